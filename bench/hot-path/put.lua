-- wrk: durable writes. Each request is a settings PUT (SPEC §4 Settings) on a random seeded
-- (user, app), alternating denied and authorized whenInUse, so every write changes the record
-- and appends one audit entry in the same transaction.
local users = tonumber(os.getenv("USERS") or "10000")
local apps = tonumber(os.getenv("APPS") or "100")
local bodies = { '{"status": "denied"}', '{"status": "authorized", "level": "whenInUse"}' }
local headers = { ["Content-Type"] = "application/json" }
local n = 0

function init(args)
    math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % 100000)
end

function request()
    n = n + 1
    local u = math.random(0, users - 1)
    local a = math.random(0, apps - 1)
    return wrk.format("PUT", "/v1/users/u" .. u .. "/apps/com.example.app" .. a .. "/authorizations/location",
        headers, bodies[n % 2 + 1])
end
