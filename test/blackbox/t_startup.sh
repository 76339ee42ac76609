# Start-up (docs/operations.md §"The program", start-up errors): errors that say why and
# what to do, a store directory made with its parents, and the first start's
# admin client never lost: the listener is bound before the default project
# is made, and its JSON also goes to default-admin.json (issue 27).
. "$(dirname "$0")/lib.sh"

# admin_file CONF STORE: where a first start leaves default-admin.json
admin_file() {
	if [ "$BACKEND" = postgres ]; then echo "$(dirname "$1")/default-admin.json"
	else echo "$(dirname "$2")/default-admin.json"; fi
}

# start_first CONF STORE OUT: a server on a free port, CONF naming STORE,
# stdout to OUT; returns once it answers
start_first() {
	local port; port=$(free_port)
	write_config "$1" "$port" store.path="$2"
	"$EDGEAUTH" -c "$1" serve > "$3" 2>> "$TMP/server.log" &
	SERVER_PID=$!
	wait_for curl -sf -o /dev/null "http://127.0.0.1:$port/healthz"
}

# --- a missing config file ----------------------------------------------------
"$EDGEAUTH" -c "$TMP/nowhere/edgeauth.conf" serve > /dev/null 2> "$TMP/noconf.err"
check "issue27.errors: a missing config exits 2" "$?" 2
check "issue27.errors: a missing config says why and what to do" "$(cat "$TMP/noconf.err")" \
	"edgeauth: $TMP/nowhere/edgeauth.conf: cannot open the configuration file: No such file or directory; pass -c FILE"

# --- a store directory with missing parents --------------------------------------
start_server store.path="$TMP/a/b/c/edgeauth.db"
check "issue27.dirs: a store path under two missing directories starts" \
	"$(curl -s -o /dev/null -w '%{http_code}' "$BASE/healthz")" 200
check "issue27.dirs: the directories are made, mode 0700" \
	"$(stat -c %a "$TMP/a" "$TMP/a/b" "$TMP/a/b/c" | tr '\n' ' ')" "700 700 700 "
ADMIN=$(admin_file "$CONF" "$TMP/a/b/c/edgeauth.db")
check "issue27.admin: default-admin.json beside the store, mode 0600" "$(stat -c %a "$ADMIN")" 600
check "issue27.admin: it holds the admin client stdout showed" \
	"$(jq -r .client_secret "$ADMIN")" "$CLIENT_SECRET"
check "issue27.admin: the log names it and says to delete it" \
	"$(grep -c "admin client (with its secret) is in $ADMIN; read it, then delete it" "$TMP/server.log")" 1
HELD=$PORT

# --- the port taken: the reason, and no default project made -----------------------
write_config "$TMP/second.conf" "$HELD" store.path="$TMP/second/edgeauth.db"
timeout 60 "$EDGEAUTH" -c "$TMP/second.conf" serve > "$TMP/second.out" 2> "$TMP/second.err"
check "issue27.errors: a taken port exits 1" "$?" 1
check "issue27.errors: a taken port says why and what to do" \
	"$(grep -c "cannot listen on 127.0.0.1:$HELD: Address already in use; is another edgeauth running? set \[server\] listen" "$TMP/second.err")" 1
check "issue27.admin: a start that cannot listen prints no admin client" "$(wc -c < "$TMP/second.out")" 0
stop_server
# the same store's next start is its first: it shows the admin client
start_first "$TMP/second.conf" "$TMP/second/edgeauth.db" "$TMP/second.out"
check "issue27.admin: the next start of that store shows the admin client" \
	"$(jq -r '.client_secret | length > 20' "$TMP/second.out")" true
stop_server

# --- a new store where an old default-admin.json lies: replaced -------------------
if [ "$BACKEND" = sqlite ]; then
	rm -f "$TMP/a/b/c/edgeauth.db"*
	OLD=$(jq -r .client_secret "$ADMIN")
	start_server store.path="$TMP/a/b/c/edgeauth.db"
	check "issue27.admin: a new first start replaces an old default-admin.json" \
		"$(jq -r .client_secret "$ADMIN")" "$CLIENT_SECRET"
	check "issue27.admin: ... which held another secret" "$([ "$OLD" != "$CLIENT_SECRET" ] && echo yes)" yes
	stop_server
else
	# the config's directory refuses the file (read-only under the unit's
	# ProtectSystem; here a directory in its place): beside [store] path
	mkdir -p "$TMP/ro/default-admin.json" "$TMP/third"
	start_first "$TMP/ro/third.conf" "$TMP/third/edgeauth.db" "$TMP/third.out"
	check "issue27.admin: a read-only config directory: default-admin.json beside [store] path" \
		"$(jq -r .client_secret "$TMP/third/default-admin.json")" "$(jq -r .client_secret "$TMP/third.out")"
	stop_server
fi
finish
