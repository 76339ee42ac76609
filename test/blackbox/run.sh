#!/usr/bin/env bash
# Runs every test/blackbox/t_*.sh (or those named) and sums their counts.
# EDGEAUTH_BACKEND=postgres runs them on PostgreSQL: on the cluster whose
# socket directory EDGEAUTH_PG_HOST names, or on a throw-away one started
# here (scripts/pg-cluster) and stopped at the end. No cluster: the run fails.
cd "$(dirname "$0")" || exit 1
if [ "${EDGEAUTH_BACKEND:-sqlite}" = postgres ] && [ -z "${EDGEAUTH_PG_HOST:-}" ]; then
	EDGEAUTH_PG_HOST=$(mktemp -u /tmp/edgeauth-pg.XXXXXX)
	export EDGEAUTH_PG_HOST
	trap '../../scripts/pg-cluster stop "$EDGEAUTH_PG_HOST"' EXIT
	if ! ../../scripts/pg-cluster start "$EDGEAUTH_PG_HOST" >&2; then
		echo "blackbox: PostgreSQL could not be started (make deps installs it)" >&2
		echo "blackbox: 0 passed, 1 failed"
		exit 1
	fi
fi
total_pass=0; total_fail=0; status=0
files=("$@"); [ ${#files[@]} -eq 0 ] && files=(t_*.sh)
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
# A file marked "# run.sh: beside the others" spends its time waiting for
# the clock (t_keys.sh: a key's departure from JWKS takes 120 s) and is
# run in the background while the others run one after the other.
side=(); rest=()
for t in "${files[@]}"; do
	if [ ${#files[@]} -gt 1 ] && grep -q '^# run.sh: beside the others' "$t"; then side+=("$t"); else rest+=("$t"); fi
done
SIDE_DIR=$(mktemp -d /tmp/edgeauth-side.XXXXXX)
for t in "${side[@]}"; do
	o="$SIDE_DIR/$(echo "$t" | tr / _)"
	( start=$(date +%s%N); bash "$t" > "$o.out" 2> "$o.err"; echo $? > "$o.rc"
	  echo $(( ($(date +%s%N) - start) / 1000000 )) > "$o.ms" ) &
done
for t in "${rest[@]}"; do
	start=$(date +%s%N)
	out=$(bash "$t" 2> >(cat >&2)) || status=1
	count "$t" "$out" $(( ($(date +%s%N) - start) / 1000000 ))
done
wait
for t in "${side[@]}"; do
	o="$SIDE_DIR/$(echo "$t" | tr / _)"
	cat "$o.err" >&2
	[ "$(cat "$o.rc")" = 0 ] || status=1
	count "$t (beside the others)" "$(cat "$o.out")" "$(cat "$o.ms")"
done
rm -rf "$SIDE_DIR"
echo "blackbox: $total_pass passed, $total_fail failed"
[ $status -eq 0 ] && [ $total_fail -eq 0 ]
