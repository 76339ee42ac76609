-- POST .../clients: a new client per request (a name no other request of the
-- run used: BENCH_RUN-tid-n). BENCH_PATH is the clients path.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local path = os.getenv("BENCH_PATH")
local run = os.getenv("BENCH_RUN")
local n = 0
wrk.headers["Content-Type"] = "application/json"

function request()
	n = n + 1
	return wrk.format("POST", path, nil, string.format('{"name":"%s-%d-%d"}', run, tid, n))
end

function response(status)
	if status ~= 201 then bad = bad + 1 end
end
