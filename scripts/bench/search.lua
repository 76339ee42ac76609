-- GET .../users?search=TERM, the terms of BENCH_TERMS (comma-separated,
-- URL-encoded) in turn; BENCH_PATH is the users path.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local path = os.getenv("BENCH_PATH")
local terms = {}
for t in os.getenv("BENCH_TERMS"):gmatch("[^,]+") do terms[#terms + 1] = t end
local n = 0

function request()
	n = n + 1
	return wrk.format("GET", path .. "?search=" .. terms[(n + tid) % #terms + 1])
end
