-- POST /api/v1/tokens, refresh_token grant, a never-used token each time.
-- The tokens of BENCH_TOKENS (one a line) are shared out among the threads;
-- each answer's new refresh token goes back into the thread's pool, so a pool
-- a little larger than the connections lasts any run. BENCH_CLIENT: client_id.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local client = os.getenv("BENCH_CLIENT")
local pool, head, tail = {}, 1, 0
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"

function init(args)
	local k = 0
	for line in io.lines(os.getenv("BENCH_TOKENS")) do
		if k % nthreads == tid then tail = tail + 1; pool[tail] = line end
		k = k + 1
	end
end

function request()
	if check_call() then return wrk.format("GET", "/healthz") end
	local t = pool[head]
	if not t then   -- the pool ran dry (answers failed): a request that fails
		t = "exhausted"
	else
		pool[head] = nil
		head = head + 1
	end
	return wrk.format("POST", "/api/v1/tokens", nil,
		"grant_type=refresh_token&client_id=" .. client .. "&refresh_token=" .. t)
end

function response(status, headers, body)
	local t = status == 200 and body:match('"refresh_token":"([^"]+)"')
	if t then
		tail = tail + 1
		pool[tail] = t
	else
		bad = bad + 1
	end
end
