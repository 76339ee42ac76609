-- GET of the URL given to wrk (headers with -H: the session cookie), as the
-- browser of a signed-in user follows an app's authorization link. A good
-- answer is a 302 whose Location carries a code (a silent sign-in).
dofile(os.getenv("BENCH_LUA") .. "/common.lua")

function response(status, headers, body)
	local loc = headers["Location"] or headers["location"] or ""
	if status ~= 302 or not loc:find("[?&]code=") then bad = bad + 1 end
end
