# Crash durability: scripts/crash-test kills the server 20 times under a
# write load; nothing acknowledged may be lost, no refresh token may work
# twice, and the store must pass integrity_check. synchronous=normal makes the
# same promise against a process crash (not against power loss). On
# PostgreSQL (EDGEAUTH_BACKEND=postgres): the same load and client secret
# rotations, on the test's own database.
. "$(dirname "$0")/lib.sh"
if [ "$BACKEND" = postgres ]; then
	pg_db_create
	modes=("postgres 15")
else
	modes=("full 20" "normal 8")
fi
for mode in "${modes[@]}"; do
	set -- $mode
	if [ "$1" = postgres ]; then args=(--postgres "$(pg_url)"); else args=(--synchronous "$1"); fi
	out=$("$ROOT/scripts/crash-test" --binary "$EDGEAUTH" "${args[@]}" --kills "$2" --port "$(free_port)" \
		--min-run 0.1 --max-run 0.5 2> "$TMP/crash-$1.log")
	rc=$?
	cat "$TMP/crash-$1.log" >&2
	check "crash-test $1 exit" "$rc" 0
	check "crash-test $1 summary" "$(printf '%s' "$out" | grep -Ec '^crash-test: [0-9]+ passed, 0 failed$')" 1
done
finish
