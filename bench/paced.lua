-- wrk: each connection waits PACE_MS (default 2) milliseconds after every response before it
-- sends the next request, so both servers see the same offered load, below saturation
-- (64 connections x 2 ms -> at most ~32k requests/s). At saturation a closed loop's p50 is
-- about connections / throughput for any server; paced, the latencies compare the servers.
local pace = tonumber(os.getenv("PACE_MS") or "2")

function delay()
    return pace
end
