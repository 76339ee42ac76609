-- GET of the URL given to wrk, as is (headers with -H).
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
