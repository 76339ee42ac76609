-- POST .../users: a new BYOU user per request (an external ID no other run
-- used: BENCH_RUN-tid-n), with a role of the project. BENCH_PATH is the users
-- path; BENCH_NAMES and BENCH_ROLES the run script's files.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local path = os.getenv("BENCH_PATH")
local run = os.getenv("BENCH_RUN")
local firsts, lasts = read_names(os.getenv("BENCH_NAMES"))
local roles = read_lines(os.getenv("BENCH_ROLES"))
local n = 0
wrk.headers["Content-Type"] = "application/json"

function request()
	n = n + 1
	local i = tid * 1000003 + n
	return wrk.format("POST", path, nil, string.format(
		'{"display_name":"%s","external_user_id":"%s-%d-%d","role_id":"%s"}',
		display_name(firsts, lasts, i), run, tid, n, roles[(i % #roles) + 1]))
end

function response(status)
	if status ~= 201 then bad = bad + 1 end
end
