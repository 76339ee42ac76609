-- POST /api/v1/tokens, grant_type device_code, as a fleet of kiosks polls
-- while their users have not decided: the codes of BENCH_CODES (one a line,
-- all pending) in turn, round-robin, so that a code is polled again only
-- after every other one was (the pool is larger than the interval times the
-- rate: no poll comes sooner than the interval). A good answer is the row's
-- status (BENCH_STATUS, 400) with authorization_pending; slow_down, or
-- anything else, is bad. BENCH_CLIENT: the public client's client_id.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local prefix = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&client_id=" ..
	os.getenv("BENCH_CLIENT") .. "&device_code="
local want = tonumber(os.getenv("BENCH_STATUS"))
local codes, i = {}, 0
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"

function init(args)
	codes = read_lines(os.getenv("BENCH_CODES"))
end

function request()
	if check_call() then return wrk.format("GET", "/healthz") end
	i = i % #codes + 1
	return wrk.format("POST", "/api/v1/tokens", nil, prefix .. codes[i])
end

function response(status, headers, body)
	if status ~= want or not body:find('"authorization_pending"', 1, true) then bad = bad + 1 end
end
