-- wrk: each connection waits a random time after every response before it sends the next
-- request: exponentially distributed, PACE_MS (default 2) milliseconds on average, so both
-- servers see the same offered load below saturation (64 connections x 2 ms -> at most ~32k
-- requests/s). At saturation a closed loop's p50 is about connections / throughput for any
-- server; paced, the latencies compare the servers. The wait is random because with a fixed
-- one the connections fall into step and arrive in bursts of all of them, and p99 then
-- measures the burst (connections x CPU per request), not a wait a client sees at this load.
local pace = tonumber(os.getenv("PACE_MS") or "2")

function init(args)
    math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % 100000)
end

-- wrk takes whole milliseconds.
function delay()
    return math.floor(-pace * math.log(1 - math.random()) + 0.5)
end
