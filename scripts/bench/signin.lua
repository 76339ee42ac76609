-- POST /api/v1/authorize, the sign-in form, for the users of BENCH_SIGNIN
-- (lines "email password") in turn. A good answer is a 302 whose Location
-- carries a code. BENCH_FORM: the form's other fields, URL-encoded.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local form = os.getenv("BENCH_FORM")
local users = {}
local n = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"

function init(args)
	for _, line in ipairs(read_lines(os.getenv("BENCH_SIGNIN"))) do
		local email, password = line:match("^(%S+) (%S+)$")
		users[#users + 1] = "&email=" .. email .. "&password=" .. password
	end
end

function request()
	n = n + 1
	return wrk.format(nil, "/api/v1/authorize", nil, form .. users[(n + tid) % #users + 1])
end

function response(status, headers, body)
	local loc = headers["Location"] or headers["location"] or ""
	if status ~= 302 or not loc:find("[?&]code=") then bad = bad + 1 end
end
