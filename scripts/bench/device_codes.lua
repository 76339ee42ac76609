-- POST /api/v1/device_authorization for the public device_flow client
-- BENCH_CLIENT until BENCH_COUNT device codes have come back: each is
-- appended to BENCH_CODES, one a line (the pool of device_poll.lua). Then
-- the thread stops and creates the file BENCH_DONE.TID, and the run script
-- interrupts wrk (as seed_users.lua). A connection with nothing left to send
-- asks /healthz.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local body = "client_id=" .. os.getenv("BENCH_CLIENT")
local count = tonumber(os.getenv("BENCH_COUNT"))
local sent, got, out = 0, 0, nil
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"

function init(args)
	out = assert(io.open(os.getenv("BENCH_CODES"), "w"))
end

function request()
	if check_call() or sent >= count then return wrk.format("GET", "/healthz") end
	sent = sent + 1
	return wrk.format("POST", "/api/v1/device_authorization", nil, body)
end

function response(status, headers, b)
	if status == 200 and not b:find('"device_code"', 1, true) then return end   -- a /healthz filler
	local code = status == 200 and b:match('"device_code":%s*"([^"]+)"')
	if not code then bad = bad + 1; return end
	out:write(code, "\n")
	got = got + 1
	if got == count then
		out:close()
		local f = assert(io.open(os.getenv("BENCH_DONE") .. "." .. tid, "w"))
		f:close()
		wrk.thread:stop()
	end
end
