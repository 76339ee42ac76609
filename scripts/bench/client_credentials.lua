-- POST /api/v1/tokens, client_credentials with HTTP Basic (BENCH_BASIC:
-- "Basic base64(id:secret)").
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
wrk.method = "POST"
wrk.body = "grant_type=client_credentials"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = os.getenv("BENCH_BASIC")
