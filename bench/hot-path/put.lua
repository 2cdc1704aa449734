-- wrk: durable writes. Each request is a settings PUT (SPEC §4 Settings) that denies location
-- to one seeded app for a user never written before ("w<tag><run>-<n>"), so every answered write
-- is a real change: one new record and one audit entry committed together (durably).
-- The bench compares the answered count with the audit rows added. PUT_TAG (empty unless set)
-- keeps apart the users of wrk processes started in the same second.
local apps = tonumber(os.getenv("APPS") or "100")
local run = (os.getenv("PUT_TAG") or "") .. tostring(os.time())
local headers = {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. (os.getenv("BENCH_API_KEY") or ""),
}
local body = '{"status": "denied"}'
local n = 0

function init(args)
    math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % 100000)
end

function request()
    n = n + 1
    local a = math.random(0, apps - 1)
    return wrk.format("PUT", "/v1/users/w" .. run .. "-" .. n .. "/apps/com.example.app" .. a .. "/authorizations/location",
        headers, body)
end
