-- GET .../users/external/ext-N?include_permissions=true for random N below
-- BENCH_USERS; BENCH_PATH is the users path.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local prefix = os.getenv("BENCH_PATH") .. "/external/ext-"
local users = tonumber(os.getenv("BENCH_USERS"))

function init(args)
	math.randomseed(1000 + tid)
end

function request()
	return wrk.format("GET", prefix .. math.random(0, users - 1) .. "?include_permissions=true")
end
