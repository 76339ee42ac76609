#!/usr/bin/env bash
# Runs every test/blackbox/t_*.sh (or those named) and sums their counts.
#
#   test/blackbox/run.sh [--jobs N] [FILE...] [--postgres FILE...]
#
# --jobs N (or EDGEAUTH_TEST_JOBS) files run at once, by default twice the
# CPUs (nproc): a file spends most of its time waiting on curl, a hash or
# its server, not computing. Each file's output is held until it ends, then
# printed whole with its time ("[time] FILE MS"; "[time] pg:FILE MS" on
# PostgreSQL), in the order they end.
#
# Longest first (issue26.3): the files start in the order of their last
# times, so that the run does not end on one long file alone. The times
# are this machine's last run's ($EDGEAUTH_TEST_TIMES, by default
# build/blackbox-times, rewritten at the end of each run), else those
# recorded in test/blackbox/times (a copy of such a file); on PostgreSQL a
# file without a time of its own there takes its SQLite time, and a file
# with neither counts as a minute. A file marked "# run.sh: early" starts
# before all of them.
# A file marked "# run.sh: alone" must not share the machine (it bounds
# how long something takes, e.g. healthz beside a flood, or a retry's
# gap): those run after the others, one at a time, with nothing beside them.
#
# Ports: each job slot holds a block of PORT_BLOCK ports for the run (an
# flock on /tmp/edgeauth-ports.B, so that two runs on one machine take
# different blocks), and lib.sh's free_port hands out the ports of its slot's
# block (EDGEAUTH_TEST_PORT_BASE, _COUNT, _NEXT): a server's port cannot be
# taken by another file between the choice and the bind. The blocks lie
# below the kernel's ephemeral ports (32768 on), which clients' sockets use.
#
# EDGEAUTH_BACKEND=postgres runs them on PostgreSQL, and so do the files
# after --postgres (make test runs both backends' files in one run, so that
# neither waits for the other's last file): on the cluster whose socket
# directory EDGEAUTH_PG_HOST names, or on a throw-away one started here
# (scripts/pg-cluster) and stopped at the end. No cluster: the run fails.
# Parallel files share that cluster, each on a database of its own (lib.sh);
# a file that stops or freezes PostgreSQL does it to a cluster of its own.
cd "$(dirname "$0")" || exit 1
jobs=${EDGEAUTH_TEST_JOBS:-$(( $(nproc) * 2 ))}
# files: "BACKEND:FILE", one a file to run
backend=${EDGEAUTH_BACKEND:-sqlite} files=() any_pg=0
while [ $# -gt 0 ]; do
	case $1 in
	--jobs|-j) jobs=${2:-}; shift 2 || { echo "run.sh: --jobs N" >&2; exit 2; } ;;
	--jobs=*) jobs=${1#--jobs=}; shift ;;
	--postgres) backend=postgres; shift ;;
	*) files+=("$backend:$1"); shift ;;
	esac
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --jobs wants a number of files at once, got '$jobs'" >&2; exit 2; }
[ ${#files[@]} -eq 0 ] && for t in t_*.sh; do files+=("$backend:$t"); done
for f in "${files[@]}"; do [ "${f%%:*}" = postgres ] && any_pg=1; done
[ "$jobs" -gt ${#files[@]} ] && jobs=${#files[@]}

RUN_DIR=$(mktemp -d /tmp/edgeauth-run.XXXXXX)
cleanup() {
	rm -rf "$RUN_DIR"
	[ -n "${OWN_CLUSTER:-}" ] && ../../scripts/pg-cluster stop "$EDGEAUTH_PG_HOST"
}
trap cleanup EXIT
if [ $any_pg -eq 1 ] && [ -z "${EDGEAUTH_PG_HOST:-}" ]; then
	EDGEAUTH_PG_HOST=$(mktemp -u /tmp/edgeauth-pg.XXXXXX)
	export EDGEAUTH_PG_HOST
	OWN_CLUSTER=1
	if ! ../../scripts/pg-cluster start "$EDGEAUTH_PG_HOST" >&2; then
		echo "blackbox: PostgreSQL could not be started (make deps installs it)" >&2
		echo "blackbox: 0 passed, 1 failed"
		exit 1
	fi
fi

# The port blocks: one per job slot, held (flock) until this run ends.
PORT_FIRST=20000 PORT_BLOCK=100 PORT_BLOCKS=127
slot_base=() lock_fds=()
for ((b = 0; b < PORT_BLOCKS && ${#slot_base[@]} < jobs; b++)); do
	f=/tmp/edgeauth-ports.$b
	[ -e "$f" ] || : > "$f" 2> /dev/null
	exec {fd}< "$f" || continue
	if flock -n "$fd"; then
		slot_base+=($((PORT_FIRST + b * PORT_BLOCK))); lock_fds+=("$fd")
	else
		exec {fd}<&-
	fi
done
if [ ${#slot_base[@]} -eq 0 ]; then
	echo "blackbox: every block of test ports (/tmp/edgeauth-ports.*) is held by other runs" >&2
	echo "blackbox: 0 passed, 1 failed"
	exit 1
fi
jobs=${#slot_base[@]}

total_pass=0; total_fail=0; status=0
# count T OUT MS: prints a file's output and time, adds up its counts
count() {
	local t=$1 out=$2 line p f
	echo "$out"
	# the time each file takes, so that a slow one shows in CI's log
	echo "[time] $t $3 ms"
	line=$(printf '%s\n' "$out" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -1)
	p=$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	[ -z "$line" ] && { echo "$t: no summary line" >&2; status=1; p=0; f=1; }
	total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
}

# label BACKEND:FILE: the name of a file's run in the output, FILE on
# SQLite and pg:FILE on PostgreSQL
label() { if [ "${1%%:*}" = postgres ]; then echo "pg:${1#*:}"; else echo "${1#*:}"; fi; }

# start SLOT BACKEND:FILE: runs FILE on BACKEND in the background on SLOT's
# ports, its output into $RUN_DIR
declare -A job_file job_slot
start() {
	local slot=$1 t=$2 o
	o=$RUN_DIR/$(label "$t" | tr /: __)
	(
		for fd in "${lock_fds[@]}"; do exec {fd}<&-; done   # the run's, not the servers'
		export EDGEAUTH_TEST_PORT_BASE=${slot_base[$slot]} EDGEAUTH_TEST_PORT_COUNT=$PORT_BLOCK
		export EDGEAUTH_TEST_PORT_NEXT=$RUN_DIR/slot$slot.port
		export EDGEAUTH_BACKEND=${t%%:*}
		s=$(date +%s%N)
		bash "${t#*:}" > "$o.out" 2> "$o.err" < /dev/null
		echo $? > "$o.rc"
		echo $(( ($(date +%s%N) - s) / 1000000 )) > "$o.ms"
	) &
	job_file[$!]=$t; job_slot[$!]=$slot
}

# report PID: a finished file's output, whole; frees its slot
free_slots=()
report() {
	local pid=$1 t o
	t=$(label "${job_file[$1]}")
	o=$RUN_DIR/$(echo "$t" | tr /: __)
	cat "$o.err" >&2
	[ "$(cat "$o.rc" 2> /dev/null)" = 0 ] || status=1
	count "$t" "$(cat "$o.out")" "$(cat "$o.ms" 2> /dev/null)"
	echo "$t $(cat "$o.ms" 2> /dev/null)" >> "$RUN_DIR/times"
	free_slots+=("${job_slot[$pid]}")
	unset "job_file[$pid]" "job_slot[$pid]"
}

# lane N FILE...: runs the files, N at a time
lane() {
	local n=$1 pid; shift
	local queue=("$@")
	free_slots=($(seq 0 $((n - 1))))
	while [ ${#queue[@]} -gt 0 ] || [ ${#job_file[@]} -gt 0 ]; do
		while [ ${#queue[@]} -gt 0 ] && [ ${#free_slots[@]} -gt 0 ]; do
			start "${free_slots[0]}" "${queue[0]}"
			free_slots=("${free_slots[@]:1}"); queue=("${queue[@]:1}")
		done
		wait -n -p pid
		report "$pid"
	done
}

# The recorded times: this machine's last run's, then the repository's
TIMES=${EDGEAUTH_TEST_TIMES:-$(cd ../.. && pwd)/build/blackbox-times}
declare -A ms
while read -r t m; do [[ "$m" =~ ^[0-9]+$ ]] && ms[$t]=$m; done < <(cat times "$TIMES" 2> /dev/null)
early=() rest=() alone=()
for t in "${files[@]}"; do
	f=${t#*:}
	if [ ${#files[@]} -gt 1 ] && grep -q '^# run.sh: alone' "$f"; then alone+=("$t")
	elif grep -q '^# run.sh: early' "$f"; then early+=("$t")
	else rest+=("${ms[$(label "$t")]:-${ms[$f]:-60000}} $t"); fi
done
[ ${#rest[@]} -gt 0 ] && mapfile -t rest < <(printf '%s\n' "${rest[@]}" | sort -k1,1nr -s | cut -d' ' -f2-)
lane "$jobs" "${early[@]}" "${rest[@]}"
[ ${#alone[@]} -gt 0 ] && lane 1 "${alone[@]}"
echo "blackbox: $total_pass passed, $total_fail failed"
# this run's times over the last ones (another run may be writing them too)
if mkdir -p "$(dirname "$TIMES")" 2> /dev/null && touch "$TIMES" 2> /dev/null; then
	(flock 9; cat "$TIMES" "$RUN_DIR/times" | awk '{ m[$1] = $2 } END { for (t in m) print t, m[t] }' |
		sort > "$TIMES.new.$$" && mv "$TIMES.new.$$" "$TIMES") 9> "$TIMES.lock"
fi
[ $status -eq 0 ] && [ $total_fail -eq 0 ]
