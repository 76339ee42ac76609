-- Seeds users ext-FROM .. ext-(TO-1) through POST .../users, each once, over
-- wrk's keep-alive connections. When all of a thread's users have answered,
-- the thread stops and creates the file BENCH_DONE.TID; wrk itself runs out
-- its duration unless interrupted (SIGINT), which the run script does once
-- every thread's file is there. BENCH_PATH, BENCH_NAMES and BENCH_ROLES as in
-- post_users.lua. A connection with nothing left to send asks /healthz.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local path = os.getenv("BENCH_PATH")
local from, to = tonumber(os.getenv("BENCH_FROM")), tonumber(os.getenv("BENCH_TO"))
local firsts, lasts = read_names(os.getenv("BENCH_NAMES"))
local roles = read_lines(os.getenv("BENCH_ROLES"))
local next_i, quota, answered
wrk.headers["Content-Type"] = "application/json"

function init(args)
	next_i = from + tid
	quota = 0
	for i = from + tid, to - 1, nthreads do quota = quota + 1 end
	answered = 0
	if quota == 0 then finished() end
end

function finished()
	local f = assert(io.open(os.getenv("BENCH_DONE") .. "." .. tid, "w"))
	f:close()
	wrk.thread:stop()
end

function request()
	if check_call() or next_i >= to then
		return wrk.format("GET", "/healthz")
	end
	local i = next_i
	next_i = next_i + nthreads
	return wrk.format("POST", path, nil, string.format(
		'{"display_name":"%s","external_user_id":"ext-%d","role_id":"%s"}',
		display_name(firsts, lasts, i), i, roles[(i % #roles) + 1]))
end

function response(status)
	if status == 200 then return end   -- a /healthz filler
	if status ~= 201 then bad = bad + 1 end
	answered = answered + 1
	if answered == quota then finished() end
end
