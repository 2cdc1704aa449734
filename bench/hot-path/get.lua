-- wrk: GET one authorization of a random seeded (user, app). USERS and APPS come from the
-- environment (the seeded grid); every response must be 200.
local users = tonumber(os.getenv("USERS") or "10000")
local apps = tonumber(os.getenv("APPS") or "100")
-- PACE_MS > 0: each connection waits a random time, PACE_MS milliseconds on average
-- (exponentially distributed, as in bench/paced.lua), after every response: the paced run,
-- where the server and nginx see the same offered load below saturation.
local pace = tonumber(os.getenv("PACE_MS") or "0")
if pace > 0 then
    function delay()
        return math.floor(-pace * math.log(1 - math.random()) + 0.5)
    end
end
-- HOT_USERS > 0: a share HOT_SHARE (0.9 unless set) of the reads go to the users u0 ...
-- u<HOT_USERS - 1>, the others to any seeded user: a skewed load, where a read cache smaller
-- than the table pays by keeping what is read again.
local hot_users = math.min(tonumber(os.getenv("HOT_USERS") or "0"), users)
local hot_share = tonumber(os.getenv("HOT_SHARE") or "0.9")
local headers = { ["Authorization"] = "Bearer " .. (os.getenv("BENCH_API_KEY") or "") }

function init(args)
    math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % 100000)
end

function request()
    local u
    if hot_users > 0 and math.random() < hot_share then
        u = math.random(0, hot_users - 1)
    else
        u = math.random(0, users - 1)
    end
    local a = math.random(0, apps - 1)
    return wrk.format("GET", "/v1/users/u" .. u .. "/apps/com.example.app" .. a .. "/authorizations/location", headers)
end
