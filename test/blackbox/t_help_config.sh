# issue27.4: which config file edgeauth reads (docs/operations.md §"The program"):
# -c FILE, else $EDGEAUTH_CONFIG, else the path compiled in (the Makefile's
# CONFIG_PATH, etc/edgeauth.conf for a build in the source tree); --help
# prints the one in force and where it came from.
. "$(dirname "$0")/lib.sh"
help_config() { "$@" 2> /dev/null | grep '^config in force: '; }
check "issue27.4 --help: the compiled-in path" \
	"$(help_config env -u EDGEAUTH_CONFIG "$EDGEAUTH" --help)" "config in force: etc/edgeauth.conf (compiled in)"
check "issue27.4 --help: \$EDGEAUTH_CONFIG" \
	"$(help_config env EDGEAUTH_CONFIG=/srv/e.conf "$EDGEAUTH" --help)" \
	"config in force: /srv/e.conf (\$EDGEAUTH_CONFIG)"
check "issue27.4 --help: -c beats \$EDGEAUTH_CONFIG" \
	"$(help_config env EDGEAUTH_CONFIG=/srv/e.conf "$EDGEAUTH" -c /x/y.conf --help)" \
	"config in force: /x/y.conf (-c)"
check "issue27.4 -h is --help" "$("$EDGEAUTH" -c /x/y.conf -h | tail -1)" "config in force: /x/y.conf (-c)"

# ... and it is the file read
start_server
mkdir -p "$TMP/elsewhere"
cd "$TMP/elsewhere" || exit 1
OUT=$(env EDGEAUTH_CONFIG="$CONF" "$EDGEAUTH" project list 2> "$TMP/err")
check "issue27.4 \$EDGEAUTH_CONFIG is read" "$?:$(printf '%s' "$OUT" | jq -r --arg p "$PROJECT_ID" 'map(.id) | index($p) != null')" 0:true
env EDGEAUTH_CONFIG="$TMP/none.conf" "$EDGEAUTH" -c "$CONF" project list > /dev/null 2> "$TMP/err"
check "issue27.4 -c beats \$EDGEAUTH_CONFIG" "$?" 0
env EDGEAUTH_CONFIG="$TMP/none.conf" "$EDGEAUTH" project list > /dev/null 2> "$TMP/err"
check "issue27.4 a missing \$EDGEAUTH_CONFIG: exit 2 naming it" "$?:$(grep -c "$TMP/none.conf" "$TMP/err")" 2:1
env -u EDGEAUTH_CONFIG "$EDGEAUTH" project list > /dev/null 2> "$TMP/err"
check "issue27.4 no -c, no \$EDGEAUTH_CONFIG: the compiled-in path" "$?:$(grep -c 'etc/edgeauth.conf' "$TMP/err")" 2:1
cd "$TMP" || exit 1

# the Makefile compiles CONFIG_PATH in
mkdir -p "$TMP/tree/src" "$TMP/tree/include"
cp "$ROOT/Makefile" "$TMP/tree/"
: > "$TMP/tree/src/main.c"
check "issue27.4 make CONFIG_PATH=... compiles the path in" \
	"$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD -u BIN make -s -C "$TMP/tree" -n CONFIG_PATH=/etc/edgeauth/edgeauth.conf build/main.o 2> /dev/null |
	   grep -o "EDGEAUTH_DEFAULT_CONFIG='\"[^\"]*\"'")" "EDGEAUTH_DEFAULT_CONFIG='\"/etc/edgeauth/edgeauth.conf\"'"
finish
