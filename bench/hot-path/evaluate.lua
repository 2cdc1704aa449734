-- wrk: POST /access/v1/evaluation (AuthZEN) for a random seeded (user, app), or with
-- BATCH > 1 POST /access/v1/evaluations with BATCH items (random users of one random app, the
-- subject and action given once as top-level defaults). USERS and APPS come from the
-- environment (the seeded grid); every response must be 200.
local users = tonumber(os.getenv("USERS") or "10000")
local apps = tonumber(os.getenv("APPS") or "100")
local batch = tonumber(os.getenv("BATCH") or "1")
local headers = {
    ["Authorization"] = "Bearer " .. (os.getenv("BENCH_API_KEY") or ""),
    ["Content-Type"] = "application/json",
}

function init(args)
    math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % 100000)
end

function request()
    local a = math.random(0, apps - 1)
    local subject = '{"type":"app","id":"com.example.app' .. a .. '"}'
    if batch <= 1 then
        local u = math.random(0, users - 1)
        local body = '{"subject":' .. subject .. ',"action":{"name":"location"},"resource":{"type":"user","id":"u' .. u .. '"}}'
        return wrk.format("POST", "/access/v1/evaluation", headers, body)
    end
    local items = {}
    for i = 1, batch do
        items[i] = '{"resource":{"type":"user","id":"u' .. math.random(0, users - 1) .. '"}}'
    end
    local body = '{"subject":' .. subject .. ',"action":{"name":"location"},"evaluations":[' .. table.concat(items, ",") .. ']}'
    return wrk.format("POST", "/access/v1/evaluations", headers, body)
end
