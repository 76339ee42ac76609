-- POST /api/v1/tokens/introspect with HTTP Basic (BENCH_BASIC) for the
-- token BENCH_TOKEN, as a resource server asks. A good answer is a 200 that
-- says the token is active.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
wrk.method = "POST"
wrk.body = "token=" .. os.getenv("BENCH_TOKEN")
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = os.getenv("BENCH_BASIC")

function response(status, headers, body)
	if status ~= 200 or not body:find('"active":true', 1, true) then bad = bad + 1 end
end
