-- Shared by every wrk script of the bench (scripts/bench/run loads it with
-- dofile): thread numbering, a per-thread count of bad answers, and done(),
-- which prints one machine-readable line for the run script:
--   BENCH {"requests":..,"duration_us":..,"p50_us":..,"p99_us":..,"max_us":..,
--          "transport_errors":..,"status_errors":..,"bad":..}
-- wrk itself counts transport errors and statuses >= 400; a script that
-- defines response() counts its own idea of a bad answer in `bad`.

local threads = {}
local next_tid = 0

-- Main state: numbers each thread (tid 0..n-1) before it starts.
function setup(thread)
	thread:set("tid", next_tid)
	thread:set("nthreads", tonumber(os.getenv("BENCH_THREADS") or "1"))
	thread:set("bad", 0)
	next_tid = next_tid + 1
	table.insert(threads, thread)
end

-- wrk calls request() once on thread 0's state before the run, to check the
-- script, and sends nothing of what it returns: a script that hands out
-- unique work skips that call (true when this call is it).
local checked = false
function check_call()
	if tid == 0 and not checked then
		checked = true
		return true
	end
	return false
end

-- Reads a file of one value a line into a table.
function read_lines(path)
	local t = {}
	for line in io.lines(path) do
		if line ~= "" then t[#t + 1] = line end
	end
	return t
end

-- The names the seeding and the user-create rows draw from (written by the
-- run script): first names on line 1, surnames on line 2, comma-separated.
function read_names(path)
	local f = assert(io.open(path))
	local firsts, lasts = {}, {}
	for w in f:read("*l"):gmatch("[^,]+") do firsts[#firsts + 1] = w end
	for w in f:read("*l"):gmatch("[^,]+") do lasts[#lasts + 1] = w end
	f:close()
	return firsts, lasts
end

-- User i's display name: the run script computes the same (surname_of).
function display_name(firsts, lasts, i)
	local h = (i * 2654435761) % 4294967296
	return firsts[(i % #firsts) + 1] .. " " .. lasts[(h % #lasts) + 1]
end

local function json_num(v) return string.format("%d", v) end

function done(summary, latency, requests)
	local bad = 0
	for _, t in ipairs(threads) do bad = bad + (t:get("bad") or 0) end
	local e = summary.errors
	io.write("BENCH {\"requests\":", json_num(summary.requests),
		",\"duration_us\":", json_num(summary.duration),
		",\"p50_us\":", json_num(latency:percentile(50)),
		",\"p99_us\":", json_num(latency:percentile(99)),
		",\"max_us\":", json_num(latency.max),
		",\"transport_errors\":", json_num(e.connect + e.read + e.write + e.timeout),
		",\"status_errors\":", json_num(e.status),
		",\"bad\":", json_num(bad), "}\n")
end
