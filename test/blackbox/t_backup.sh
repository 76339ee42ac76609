# Backup and restore (docs/operations.md §"Backup and restore"): a backup under write load is a
# consistent copy (integrity_check) holding every write acknowledged before
# it began, mode 0600, never over an existing file; restore is refused while
# a server runs; a server on the restored store answers for those writes,
# and every token, code and refresh token issued before the restore is
# refused after it. invalidate-all does the same beside a running server.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
start_server
keepalive_client   # req over one connection (lib.sh)
SAVED=("$PROJECT_ID" "$CLIENT_ID" "$CLIENT_SECRET")
BACKUP=$TMP/backup.db

# what is issued before the backup, to be dead after the restore
REDIRECT="http://127.0.0.1:9/cb"
req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(jq -r .id <<<"$BODY")
req POST "$P/users" '{"display_name":"Ann","email":"ann@example.com","password":"ann password"}'
sign_in "$APP" "$REDIRECT" ann@example.com "ann password"
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check_status "a sign-in before the backup" 200
OLD_ACCESS=$ACCESS OLD_REFRESH=$REFRESH
sign_in "$APP" "$REDIRECT" ann@example.com "ann password"
OLD_CODE=$CODE OLD_VERIFIER=$VERIFIER
BROWSER=$TMP/browser   # a browser's session (single sign-on), to be ended
JAR=$BROWSER authorize_post "$APP" "$REDIRECT" ann@example.com "ann password" st-1 scope=openid
JAR=$BROWSER authorize_get "$APP" "$REDIRECT" prompt=none
check "a session before the backup: prompt=none gets a code" "$STATUS $([ -n "$CODE" ] && echo code)" "302 code"
# backup and restore copy SQLite's file; on PostgreSQL they refuse, naming
# the database's own tools (docs/operations.md "Running a fleet")
if [ "$BACKEND" = sqlite ]; then
	OLD_ADMIN=$TOKEN
	for i in $(seq 1 300); do   # a store of some pages
		AUTH="Bearer $TOKEN" req POST "$P/users" "{\"display_name\":\"seed $i\",\"external_user_id\":\"seed-$i\"}" > /dev/null
	done

	# a loop of creates through the API, each acknowledged one written down
	writer() {
		local i=0
		while [ ! -e "$TMP/stop" ]; do
			i=$((i + 1))
			code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
				-H 'Content-Type: application/json' -d "{\"display_name\":\"w $i\",\"external_user_id\":\"w-$i\"}" \
				"$BASE$P/users")
			[ "$code" == 201 ] && echo "w-$i" >> "$TMP/acked"
		done
	}
	: > "$TMP/acked"
	writer & WRITER=$!
	# issue26.4: by state, not by sleeps: a write acknowledged before the
	# backup begins, and another after it ended
	wait_for test -s "$TMP/acked"
	cp "$TMP/acked" "$TMP/acked-before"   # acknowledged before the backup began
	"$EDGEAUTH" -c "$CONF" backup "$BACKUP" > "$TMP/backup.out" 2>&1
	check "backup under load" "$?" 0
	acked_after() { [ "$(wc -l < "$TMP/acked")" -gt "$(wc -l < "$TMP/acked-before")" ]; }
	wait_for acked_after
	touch "$TMP/stop"; wait "$WRITER"
	check "writes went on during the backup" "$([ "$(wc -l < "$TMP/acked")" -gt "$(wc -l < "$TMP/acked-before")" ] && echo yes)" yes
	check "writes before it" "$([ "$(wc -l < "$TMP/acked-before")" -gt 0 ] && echo yes)" yes
	check "the copy passes integrity_check" "$(sqlite3 "$BACKUP" 'PRAGMA integrity_check')" ok
	check "mode 0600" "$(stat -c %a "$BACKUP")" 600
	check "one file: no journal or WAL beside it" "$(ls "$TMP" | grep -c '^backup.db-')" 0
	sqlite3 "$BACKUP" "SELECT external_user_id FROM users WHERE external_user_id LIKE 'w-%'" | sort > "$TMP/in-copy"
	check "every write acknowledged before the backup is in the copy" \
		"$(sort "$TMP/acked-before" | comm -23 - "$TMP/in-copy" | wc -l)" 0
	check "the backup names the key file to keep apart" "$(grep -c 'key-encryption.key apart' "$TMP/backup.out")" 1

	# refusals
	cp "$BACKUP" "$TMP/backup.keep"
	"$EDGEAUTH" -c "$CONF" backup "$BACKUP" > /dev/null 2> "$TMP/err"
	check "an existing file: refused" "$?" 1
	check "and says so" "$(grep -c 'exists; a backup never overwrites a file' "$TMP/err")" 1
	check "the file is untouched" "$(cmp -s "$BACKUP" "$TMP/backup.keep" && echo same)" same
	"$EDGEAUTH" -c "$CONF" restore "$BACKUP" > /dev/null 2> "$TMP/err"
	check "restore while a server runs: refused" "$?" 1
	check "and says why" "$(grep -c 'server is running' "$TMP/err")" 1
	"$EDGEAUTH" -c "$CONF" backup > /dev/null 2>&1
	check "backup without a file: usage" "$?" 2
	AFTER_ID=$(tail -1 "$TMP/acked")
	stop_server

	# a restore that fails leaves the store as it was
	head -c 8192 /dev/urandom > "$TMP/garbage.db"
	"$EDGEAUTH" -c "$CONF" restore "$TMP/garbage.db" > /dev/null 2> "$TMP/err"
	check "a file that is not a store: refused" "$?" 1
	check "and says why" "$(grep -c 'restore refused' "$TMP/err")" 1
	"$EDGEAUTH" -c "$CONF" restore "$TMP/no-such.db" > /dev/null 2>&1
	check "a missing file: refused" "$?" 1
	check "nothing left behind" "$(ls "$TMP" | grep -c 'restore-')" 0

	# a server may not start while a restore holds the store
	# (the lock held until the serve has been tried: issue26.4, not a 2 s hold)
	flock -x "$TMP/edgeauth.db.lock" sh -c 'touch "$1.held"; while [ ! -e "$1.done" ]; do sleep 0.05; done' \
		sh "$TMP/lockholder" &
	wait_for test -e "$TMP/lockholder.held"
	"$EDGEAUTH" -c "$CONF" serve > /dev/null 2> "$TMP/err"
	check "serve during a restore: refused" "$?" 1
	check "and says why" "$(grep -c 'a restore of .* is under way' "$TMP/err")" 1
	touch "$TMP/lockholder.done"
	wait

	"$EDGEAUTH" -c "$CONF" restore "$BACKUP" > "$TMP/restore.out" 2>&1
	check "restore" "$?" 0
	check "it says what it invalidated" "$(grep -c 'issued up to .* is invalid' "$TMP/restore.out")" 1
	start_server
	PROJECT_ID=${SAVED[0]} CLIENT_ID=${SAVED[1]} CLIENT_SECRET=${SAVED[2]}
	P="/api/v1/projects/$PROJECT_ID"
	TOKEN=$(admin_token)
	req GET "$P/users?page_size=1"
	check_status "a new token after the restore" 200
	MISSING=0
	while read -r id; do
		req GET "$P/users/external/$id"
		[ "$STATUS" == 200 ] || MISSING=$((MISSING + 1))
	done < "$TMP/acked-before"
	check "the restored server answers for every write acknowledged before the backup" "$MISSING" 0
	req GET "$P/users/external/$AFTER_ID"
	check_err "a write after the backup is not there" 404 user_not_found
	AUTH="Bearer $OLD_ADMIN" req GET "$P/users?page_size=1"
	check_err "an access token from before: 401" 401 invalid_authorization_token
	AUTH="Bearer $OLD_ACCESS" req GET /api/v1/users/current
	check_err "a user's access token from before: 401" 401 invalid_authorization_token
	refresh "$APP" "$OLD_REFRESH"
	check_err "a refresh token from before: refused" 400 invalid_refresh_token
	exchange "$APP" "$REDIRECT" "$OLD_CODE" "$OLD_VERIFIER"
	check_err "a code from before: refused" 400 invalid_authorization_code
	JAR=$BROWSER authorize_get "$APP" "$REDIRECT" prompt=none
	check "a session from before: ended (login_required)" "$STATUS $(query_value "$LOCATION" error)" "302 login_required"
	sign_in "$APP" "$REDIRECT" ann@example.com "ann password"
	exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
	check_status "a new sign-in works" 200
	refresh "$APP" "$REFRESH"
	check_status "and its refresh" 200
else
	for cmd in "backup $BACKUP" "restore $BACKUP"; do
		"$EDGEAUTH" -c "$CONF" $cmd > /dev/null 2> "$TMP/err"
		check "${cmd%% *} on PostgreSQL: refused" "$?" 1
		check "${cmd%% *} on PostgreSQL: names its tools" "$(grep -c 'on PostgreSQL use its own tools (pg_dump, pg_basebackup' "$TMP/err")" 1
		check "${cmd%% *} on PostgreSQL: no file" "$([ -e "$BACKUP" ] && echo made || echo none)" none
	done
fi

# invalidate-all beside the running server
LIVE=$REFRESH
rm -f "$BROWSER"
JAR=$BROWSER authorize_post "$APP" "$REDIRECT" ann@example.com "ann password" st-1 scope=openid
JAR=$BROWSER authorize_get "$APP" "$REDIRECT" prompt=none
check "a new session: prompt=none gets a code" "$STATUS $([ -n "$CODE" ] && echo code)" "302 code"
"$EDGEAUTH" -c "$CONF" invalidate-all > "$TMP/inv.out" 2>&1
check "invalidate-all" "$?" 0
req GET "$P/users?page_size=1"
check_err "the admin token stops at once" 401 invalid_authorization_token
refresh "$APP" "$LIVE"
check_err "the refresh token too" 400 invalid_refresh_token
JAR=$BROWSER authorize_get "$APP" "$REDIRECT" prompt=none
check "and the session (login_required)" "$STATUS $(query_value "$LOCATION" error)" "302 login_required"
next_second   # issue26.4: a later second by the clock's state, not a 1.1 s sleep
TOKEN=$(admin_token)
req GET "$P/users?page_size=1"
check_status "a token of a later second works" 200
"$EDGEAUTH" -c "$CONF" invalidate-all extra > /dev/null 2>&1
check "invalidate-all takes no argument" "$?" 2
finish
