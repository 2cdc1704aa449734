-- wrk: durable writes. Each request is a settings PUT (SPEC §4 Settings) that denies location
-- to one seeded app for a user never written before ("w<tag><run>-<n>"), so every answered write
-- is a real change: one new record and one audit entry committed together (durably).
-- The bench compares the answered count with the audit rows added. PUT_TAG (empty unless set)
-- keeps apart the users of wrk processes started in the same second.
local apps = tonumber(os.getenv("APPS") or "100")
-- PACE_MS > 0: each connection waits a random time, PACE_MS milliseconds on average
-- (exponentially distributed, as in bench/paced.lua), after every response: the paced run,
-- where the service and the peer see the same offered load below saturation.
local pace = tonumber(os.getenv("PACE_MS") or "0")
if pace > 0 then
    function delay()
        return math.floor(-pace * math.log(1 - math.random()) + 0.5)
    end
end
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
