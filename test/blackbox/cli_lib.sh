# Helpers for the tests of the everyday commands (docs/commands.md): run
# one, and judge its exit status and stderr. Sourced after lib.sh, once
# start_server has set CONF.

# run CMD...: `edgeauth -c $CONF CMD...` with stdin from INPUT (a line)
# when set, else /dev/null; sets OUT, ERR and RC
run() {
	if [ -n "${INPUT+x}" ]; then
		OUT=$(printf '%s\n' "$INPUT" | "$EDGEAUTH" -c "$CONF" "$@" 2> "$TMP/cli.err")
	else
		OUT=$("$EDGEAUTH" -c "$CONF" "$@" < /dev/null 2> "$TMP/cli.err")
	fi
	RC=$?
	ERR=$(cat "$TMP/cli.err")
}

# check_ok NAME: exit 0, nothing on stderr
check_ok() {
	if [ "$RC" = 0 ] && [ -z "$ERR" ]; then pass; else fail "$1: exit $RC, stderr '$ERR'"; fi
}

# check_fail NAME CODE: exit 1 and one line "edgeauth: CODE: <sentence>"
check_fail() {
	if [ "$RC" = 1 ] && [ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] &&
	   printf '%s' "$ERR" | grep -Eq "^edgeauth: $2: [A-Za-z]"; then pass
	else fail "$1: exit $RC, stderr '$ERR', want 1 and 'edgeauth: $2: ...'"; fi
}

# check_usage NAME WHAT USAGE: exit 2, a first line that says WHAT, then
# the usage of USAGE (e.g. "user add")
check_usage() {
	if [ "$RC" = 2 ] && printf '%s\n' "$ERR" | head -1 | grep -Fq -- "$2" &&
	   printf '%s\n' "$ERR" | sed -n 2p | grep -Fq "usage: edgeauth [-c FILE] $3"; then pass
	else fail "$1: exit $RC, stderr '$ERR', want 2, '$2' and the usage of $3"; fi
}

# settled CMD...: the state the server must show at its next request after
# a CLI write. On PostgreSQL its caches hear of the write by a notification
# (docs/operations.md §"A fleet on PostgreSQL"), which on a busy machine may
# come after that request: wait until CMD holds (by state, a minute at
# most); on SQLite the next request sees it (PRAGMA data_version), so CMD
# runs once.
settled() {
	if [ "$BACKEND" = postgres ]; then wait_for "$@"; else "$@"; fi
}
