# The audit trail (docs/operations.md §"Audit trail"): each kind of event appears exactly once
# after its action, with its actor, target and address; a failed write
# leaves none; `edgeauth events` and its filters; the retention purge.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
AUDIT=$TMP/audit.log
start_server tokens.purge_interval_s=1 signin.max_failures=3 "audit.file=$AUDIT" \
	server.trusted_proxies=127.0.0.1/32
keepalive_client   # req over one connection (lib.sh)

# events [ARGS...]: edgeauth events as a JSON array, in $EV
events() { EV=$("$EDGEAUTH" -c "$CONF" events "$@" | jq -sc .); }
# one NAME ACTION TARGET ACTOR: exactly one event of ACTION, with that
# target, actor and address (ADDR, default 127.0.0.1) and outcome (OUTCOME,
# default success), in project PROJECT (default $PROJECT_ID)
one() {
	local name=$1 action=$2 target=$3 actor=$4
	events --action "$action"
	check "$name: one $action" "$(jq length <<<"$EV")" 1
	check "$name: fields" "$(jq -c '.[0]|[.project_id, .actor, .target, .address, .outcome]' <<<"$EV")" \
		"$(jq -nc --arg p "${PROJECT:-$PROJECT_ID}" --arg a "$actor" --arg t "$target" \
			--arg ad "${ADDR:-127.0.0.1}" --arg o "${OUTCOME:-success}" \
			'[(if $p == "null" then null else $p end), $a, (if $t == "null" then null else $t end), (if $ad == "null" then null else $ad end), $o]')"
}
# count NAME ACTION N: N events of ACTION (after failed writes: none more)
count() {
	events --action "$2"
	check "$1: $3 of $2" "$(jq length <<<"$EV")" "$3"
}

# ---------------------------------------------------------------- resources
RES="$P/resources"
req POST "$RES" '{"name":"Printers","code":"printers","permissions":[{"name":"Print","code":"print"}]}'
check_status "resource create" 201
RID=$(jq -r .id <<<"$BODY")
one "resource create" resource.create "$RID" "$CLIENT_ID"
req PUT "$RES/$RID" '{"name":"Printers 2","code":"printers"}'
check_status "resource update" 200
one "resource update" resource.update "$RID" "$CLIENT_ID"
# failed writes: a 409 (code taken), a 400, a 404 leave nothing
req POST "$RES" '{"name":"Dup","code":"printers"}'
check_err "resource dup" 409 resource_code_already_used
req POST "$RES" '{"name":"","code":"x"}'
check_status "resource bad" 400
req PUT "$RES/nope" '{"name":"n","code":"n"}'
check_status "resource update missing" 404
req PUT "$RES/$RID" '{"name":"Printers 3","code":"users"}'
check_err "resource update dup" 409 resource_code_already_used
count "failed creates: still one" resource.create 1
count "failed updates: still one" resource.update 1
load_resources
DEF=$(jq -r '.data[]|select(.code=="users")|.id' <<<"$RESOURCES")
req DELETE "$RES/$DEF"
check_status "default resource delete refused" 400
count "refused delete" resource.delete 0
req DELETE "$RES/$RID"
check_status "resource delete" 204
one "resource delete" resource.delete "$RID" "$CLIENT_ID"

# ---------------------------------------------------------------- the CLI
events
check "events: oldest first" "$(jq -c '[.[].action]' <<<"$EV")" \
	'["resource.create","resource.update","resource.delete"]'
check "events: ids rise" "$(jq '[.[].id] == ([.[].id]|sort)' <<<"$EV")" true
check "events: time is RFC 3339" "$(jq -r '.[0].time' <<<"$EV" | grep -Ec '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z$')" 1
check "events: the fields" "$(jq -c '.[0]|keys' <<<"$EV")" \
	'["action","actor","address","id","outcome","project_id","target","time"]'
events --project "$PROJECT_ID"
check "events --project" "$(jq length <<<"$EV")" 3
events --project nope
check "events --project other" "$(jq length <<<"$EV")" 0
events --since 2000-01-01T00:00:00Z
check "events --since past" "$(jq length <<<"$EV")" 3
events --since 2999-01-01T00:00:00+02:00
check "events --since future" "$(jq length <<<"$EV")" 0
LAST=$(db "SELECT time FROM events WHERE action = 'resource.delete'")
db "UPDATE events SET time = time - 60000 WHERE action <> 'resource.delete'"
SINCE=$(date -u -d "@$(( (LAST - 30000) / 1000 ))" +%Y-%m-%dT%H:%M:%SZ)
events --since "$SINCE"
check "events --since between" "$(jq -c '[.[].action]' <<<"$EV")" '["resource.delete"]'
events --project "$PROJECT_ID" --action resource.update --since 2000-01-01T00:00:00Z
check "events: filters together" "$(jq -c '[.[].action]' <<<"$EV")" '["resource.update"]'
for bad in "--since" "--since yesterday" "--since 2026-11-22" "--project" "--action" \
	"--bogus x" "--project a --project b" "extra" "--action ''"; do
	eval "set -- $bad"
	"$EDGEAUTH" -c "$CONF" events "$@" > "$TMP/out" 2>&1
	check "events $bad: usage error" "$?" 2
done

# ---------------------------------------------------------------- roles
load_resources
req POST "$P/roles" "{\"name\":\"Editors\",\"code\":\"editors\",\"permission_ids\":$(ids users:read)}"
check_status "role create" 201
ROLE=$(jq -r .id <<<"$BODY")
one "role create" role.create "$ROLE" "$CLIENT_ID"
req PUT "$P/roles/$ROLE" "{\"name\":\"Editors 2\",\"code\":\"editors\",\"permission_ids\":$(ids users:read)}"
check_status "role update" 200
one "role update" role.update "$ROLE" "$CLIENT_ID"
req POST "$P/roles" '{"name":"Dup","code":"editors"}'
check_err "role dup" 409 role_code_already_used
# a 403: a client that may create roles, but not grant what it lacks
new_client limited roles:create roles:update roles:read
LIMITED=$(client_token "$CID" "$CSECRET")
LIMITED_ID=$CID
AUTH="Bearer $LIMITED" req POST "$P/roles" "{\"name\":\"Esc\",\"code\":\"esc\",\"permission_ids\":$(ids clients:create)}"
check_err "role escalation" 403 insufficient_permission
AUTH="Bearer $LIMITED" req PUT "$P/roles/$ROLE" "{\"name\":\"Esc\",\"code\":\"editors\",\"permission_ids\":$(ids clients:create)}"
check_err "role update escalation" 403 insufficient_permission
count "failed role creates: still one" role.create 1
count "failed role updates: still one" role.update 1
# the limited client's own write: its ID is the actor
AUTH="Bearer $LIMITED" req POST "$P/roles" '{"name":"Mine","code":"mine"}'
check_status "limited role create" 201
MINE=$(jq -r .id <<<"$BODY")
events --action role.create
check "limited client is the actor" "$(jq -r '.[1]|[.actor, .target]|join(" ")' <<<"$EV")" "$LIMITED_ID $MINE"
req DELETE "$P/roles/$MINE"
check_status "role delete" 204
one "role delete" role.delete "$MINE" "$CLIENT_ID"

# ---------------------------------------------------------------- clients
one "client create (new_client)" client.create "$LIMITED_ID" "$CLIENT_ID"
req PUT "$P/clients/$LIMITED_ID" "{\"name\":\"limited 2\",\"is_active\":true,\"permission_ids\":$(ids roles:read),\"redirect_uris\":[\"http://127.0.0.1:9/cb\"]}"
check_status "client update" 200
one "client update" client.update "$LIMITED_ID" "$CLIENT_ID"
req POST "$P/clients/$LIMITED_ID/secret"
check_status "client secret rotation" 200
ROTATED=$(jq -r .client_secret <<<"$BODY")
one "client secret" client.rotate_secret "$LIMITED_ID" "$CLIENT_ID"
req POST "$P/clients/nope/secret"
check_status "secret of no client" 404
req PUT "$P/clients/$LIMITED_ID" '{"name":""}'
check_status "client update 400" 400
count "failed rotation: still one" client.rotate_secret 1
count "failed client update: still one" client.update 1
req DELETE "$P/clients/$LIMITED_ID"
check_status "client delete" 204
one "client delete" client.delete "$LIMITED_ID" "$CLIENT_ID"

# ---------------------------------------------------------------- users
PW="correct horse battery $RANDOM"
req POST "$P/users" "{\"display_name\":\"Ann\",\"email\":\"ann@example.com\",\"password\":\"$PW\"}"
check_status "user create" 201
ANN=$(jq -r .id <<<"$BODY")
one "user create" user.create "$ANN" "$CLIENT_ID"
req POST "$P/users" '{"display_name":"Dup","email":"ann@example.com","password":"other password"}'
check_err "user dup" 409 user_email_already_used
req PUT "$P/users/$ANN" '{"display_name":"Ann 2","email":"ann@example.com","is_active":true}'
check_status "user update" 200
one "user update" user.update "$ANN" "$CLIENT_ID"
req PUT "$P/users/$ANN" '{"display_name":""}'
check_status "user update 400" 400
count "failed user update: still one" user.update 1
count "failed user create: still one" user.create 1
req POST "$P/users" '{"display_name":"Bo","external_user_id":"bo"}'
BO=$(jq -r .id <<<"$BODY")
req DELETE "$P/users/$BO"
check_status "user delete" 204
one "user delete" user.delete "$BO" "$CLIENT_ID"

# ---------------------------------------------------------------- sign-in
REDIRECT="http://127.0.0.1:9/cb"
req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(jq -r .id <<<"$BODY")
JAR=$TMP/jar
rm -f "$JAR"
new_pkce
JAR=$JAR authorize_post "$APP" "$REDIRECT" ann@example.com "$PW" st
check "sign-in" "$STATUS" 302
one "sign-in" signin.success "$ANN" "$APP"
CODE=$(query_value "$LOCATION" code)
SID=$(db "SELECT session_id FROM auth_codes WHERE hash = '$(secret_hash "$CODE")'")
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check "signed in" "${ACCESS:0:3}" "eyJ"
ANN_ACCESS=$ACCESS ANN_REFRESH=$REFRESH
# the user's own write: the user is the actor
AUTH="Bearer $ANN_ACCESS" req PUT /api/v1/users/current '{"display_name":"Ann 3","email":"ann@example.com"}'
check_status "own account" 200
count "own account" user.update 2
check "own account: the user is the actor" "$(jq -r '.[1]|[.actor, .target]|join(" ")' <<<"$EV")" "$ANN $ANN"

# a failure names the user the email names
authorize_post "$APP" "$REDIRECT" ANN@example.com "wrong password" st
check "wrong password" "$STATUS" 401
OUTCOME=access_denied one "wrong password" signin.failure "$ANN" "$APP"
# ... and none when it names no user: the typed text is never kept
TYPED="typed-$RANDOM-hunter2@example.com"
authorize_post "$APP" "$REDIRECT" "$TYPED" "some password" st
check "unknown email" "$STATUS" 401
count "unknown email" signin.failure 2
check "unknown email: target null" "$(jq -c '.[1]|[.target, .actor, .outcome]' <<<"$EV")" "[null,\"$APP\",\"access_denied\"]"
# throttling: the attempt that reaches [signin] max_failures starts it, once
req POST "$P/users" '{"display_name":"Cy","email":"cy@example.com","password":"cy password 1"}'
CY=$(jq -r .id <<<"$BODY")
for i in 1 2 3; do
	authorize_post "$APP" "$REDIRECT" cy@example.com "wrong $i" st
	check "cy attempt $i" "$STATUS" 401
done
OUTCOME=throttled one "throttle starts" signin.throttled "$CY" "$APP"
authorize_post "$APP" "$REDIRECT" cy@example.com "cy password 1" st
check "throttled" "$STATUS" 429
authorize_post "$APP" "$REDIRECT" cy@example.com "wrong 4" st
check "still throttled" "$STATUS" 429
count "throttled attempts" signin.throttled 1
count "failures: the throttled are not checked" signin.failure 5

# ---------------------------------------------------------------- reuse
new_pkce
JAR=$JAR authorize_post "$APP" "$REDIRECT" ann@example.com "$PW" st
CODE=$(query_value "$LOCATION" code)
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
R1=$REFRESH
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check_err "code replay" 400 auth_code_already_used
OUTCOME=auth_code_already_used one "code replay" code.reuse_detected "$ANN" "$APP"
new_pkce
JAR=$JAR authorize_post "$APP" "$REDIRECT" ann@example.com "$PW" st
CODE=$(query_value "$LOCATION" code)
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
R1=$REFRESH
refresh "$APP" "$R1"
check "rotated" "${REFRESH:+yes}" yes
R2=$REFRESH
refresh "$APP" "$R1"
check_err "refresh replay" 400 refresh_token_already_used
OUTCOME=refresh_token_already_used one "refresh replay" refresh.reuse_detected "$ANN" "$APP"
refresh "$APP" "$R2"
check_err "the sign-in is revoked" 400 invalid_refresh_token
count "a revoked token's use is no replay" refresh.reuse_detected 1

# ---------------------------------------------------------------- revocation
new_pkce
JAR=$JAR authorize_post "$APP" "$REDIRECT" ann@example.com "$PW" st
exchange "$APP" "$REDIRECT" "$(query_value "$LOCATION" code)" "$VERIFIER"
R3=$REFRESH A3=$ACCESS
STATUS=$(curl -s -o /dev/null -w '%{http_code}' --data-urlencode "client_id=$APP" \
	--data-urlencode "token=$R3" "$BASE/api/v1/tokens/revoke")
check "RFC 7009 revoke" "$STATUS" 200
one "RFC 7009 revoke" token.revoke "$ANN" "$APP"
STATUS=$(curl -s -o /dev/null -w '%{http_code}' --data-urlencode "client_id=$APP" \
	--data-urlencode "token=not-a-token" "$BASE/api/v1/tokens/revoke")
check "revoke of nothing" "$STATUS" 200
count "revoke of nothing: no event" token.revoke 1
JTI=$(jwt_claim "$ANN_ACCESS" jti)
AUTH="Bearer $ANN_ACCESS" req POST /api/v1/tokens/current/revoke "{\"client_id\":\"$APP\",\"refresh_token\":\"$ANN_REFRESH\"}"
check_status "current/revoke" 200
count "current/revoke: the refresh token and the bearer" token.revoke 3
check "current/revoke: targets" "$(jq -c '[.[1:][]|.target]' <<<"$EV")" "[\"$ANN\",\"$JTI\"]"

# ---------------------------------------------------------------- logout
new_pkce
JAR=$JAR authorize_post "$APP" "$REDIRECT" ann@example.com "$PW" st
CODE=$(query_value "$LOCATION" code)
SID=$(db "SELECT session_id FROM auth_codes WHERE hash = '$(secret_hash "$CODE")'")
HINT=$(id_token_hint "$ANN" "$APP" "$SID")
STATUS=$(curl -s -o /dev/null -w '%{http_code}' -G --data-urlencode "id_token_hint=$HINT" "$BASE/api/v1/logout")
check "logout" "$STATUS" 200
one "logout" session.end "$SID" "$APP"
STATUS=$(curl -s -o /dev/null -w '%{http_code}' -G --data-urlencode "id_token_hint=$HINT" "$BASE/api/v1/logout")
check "logout again" "$STATUS" 200
count "logout of an ended session: no event" session.end 1

# ---------------------------------------------------------------- the CLI's commands
cli() { "$EDGEAUTH" -c "$CONF" "$@" 2> "$TMP/cli.err"; }
NP=$(cli project create --name "Second")
NPID=$(jq -r .project_id <<<"$NP")
ADDR=null PROJECT=$NPID one "project create: its project" project.create "$NPID" cli
cli project deactivate "$NPID" > /dev/null
ADDR=null PROJECT=$NPID one "project deactivate" project.deactivate "$NPID" cli
cli project activate "$NPID" > /dev/null
ADDR=null PROJECT=$NPID one "project activate" project.activate "$NPID" cli
cli project activate nope > /dev/null
count "activate no project" project.activate 1
NEW_ADMIN=$(cli project admin-client "$NPID" | jq -r .client_id)
ADDR=null PROJECT=$NPID one "admin client" project.admin_client "$NEW_ADMIN" cli
cli key rotate --alg ES256 > "$TMP/rotated.json"
KID=$(jq -r 'if type == "array" then .[0].kid else .kid end' "$TMP/rotated.json")
ADDR=null PROJECT=null one "key rotate" key.rotate "$KID" cli
cli key retire "$KID" > /dev/null
ADDR=null PROJECT=null one "key retire" key.retire "$KID" cli
cli key retire "$KID" > /dev/null
count "retire again: no change" key.retire 1
cli key retire nope > /dev/null
count "retire of no key" key.retire 1
next_second   # invalidate-all takes what was issued up to its second
cli invalidate-all > /dev/null
ADDR=null PROJECT=null one "invalidate-all" store.invalidate_all null cli
next_second   # a token of its own second counts as before it
TOKEN=$(admin_token)
events --project "$NPID"
check "the new project's events" "$(jq -c '[.[].action]' <<<"$EV")" \
	'["project.create","project.deactivate","project.activate","project.admin_client"]'
NP_SECRET=$(jq -r .client_secret <<<"$NP")

# ---------------------------------------------------------------- behind a proxy
# from the trusted proxy (127.0.0.1) the last X-Forwarded-For entry is the
# client; from anyone else the header is theirs to make up, and ignored
# address_of ACTION TARGET: the address of the event of ACTION on TARGET
address_of() {
	events --action "$1"
	jq -r --arg t "$2" '[.[]|select(.target == $t)|.address]|join(" ")' <<<"$EV"
}
req POST "$P/resources" '{"name":"Proxied","code":"proxied"}' -H "X-Forwarded-For: 10.9.8.7, 198.51.100.7"
check_status "a create through the proxy" 201
check "through the proxy" "$(address_of resource.create "$(jq -r .id <<<"$BODY")")" 198.51.100.7
req POST "$P/resources" '{"name":"Direct","code":"direct"}' -H "X-Forwarded-For: 198.51.100.7" \
	--interface 127.0.0.2
check_status "a create from 127.0.0.2" 201
check "not the proxy" "$(address_of resource.create "$(jq -r .id <<<"$BODY")")" 127.0.0.2
STATUS=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Forwarded-For: 203.0.113.9" \
	--data-urlencode response_type=code --data-urlencode "client_id=$APP" \
	--data-urlencode "redirect_uri=$REDIRECT" --data-urlencode "code_challenge=$CHALLENGE" \
	--data-urlencode code_challenge_method=S256 --data-urlencode email=ann@example.com \
	--data-urlencode "password=wrong again" "$BASE/api/v1/authorize")
check "a sign-in through the proxy" "$STATUS" 401
events --action signin.failure
check "its failure's address" "$(jq -r '.[-1]|[.address, .target]|join(" ")' <<<"$EV")" "203.0.113.9 $ANN"

# ---------------------------------------------------------------- no secret
# every secret, password, token and code this test made or typed (and the
# email that named no user): in no event, nowhere in the store's files
SECRETS=("$PW" "$TYPED" "some password" "cy password 1" "wrong password" "$CLIENT_SECRET"
	"$ROTATED" "$CSECRET" "$NP_SECRET" "$ANN_ACCESS" "$ANN_REFRESH" "$R1" "$R2" "$R3" "$A3" "$CODE" "$HINT")
no_secret() {
	local file=$1 s
	for s in "${SECRETS[@]}"; do
		[ -n "$s" ] || continue
		if grep -aqF -- "$s" "$file"; then fail "$file holds a secret (${s:0:6}...)"; else pass; fi
	done
}
"$EDGEAUTH" -c "$CONF" events > "$TMP/events.jsonl"
no_secret "$TMP/events.jsonl"
if [ "$BACKEND" = postgres ]; then
	pg_dump -h "$EDGEAUTH_PG_HOST" -p "${EDGEAUTH_PG_PORT:-5432}" -U edgeauth -d "$PG_DB" > "$TMP/store-files"
else
	cat "$TMP/edgeauth.db" "$TMP/edgeauth.db-wal" > "$TMP/store-files" 2>/dev/null
fi
no_secret "$TMP/store-files"

# ---------------------------------------------------------------- the file
"$EDGEAUTH" -c "$CONF" events | jq -c . > "$TMP/store-events.jsonl"
check "the file holds what the store holds (none of a failed write)" \
	"$(jq -sc 'sort_by(.id)|map(del(.time))' "$AUDIT")" \
	"$(jq -sc 'sort_by(.id)|map(del(.time))' "$TMP/store-events.jsonl")"
# (the test moved some events' time back in the store, above)
check "the file: one object a line" "$(jq -c . "$AUDIT" | wc -l)" "$(wc -l < "$AUDIT")"
check "the file is 0600" "$(stat -c %a "$AUDIT")" 600
no_secret "$AUDIT"
# logrotate: moved away, HUP, the next event lands in a new file
BEFORE=$(wc -l < "$AUDIT")
mv "$AUDIT" "$AUDIT.1"
kill -HUP "$SERVER_PID"
for _ in $(seq 1 100); do [ -e "$AUDIT" ] && break; sleep 0.05; done
req POST "$P/resources" '{"name":"After HUP","code":"after_hup"}'
check_status "a write after SIGHUP" 201
AFTER=$(jq -r .id <<<"$BODY")
check "the new file has the next event" "$(jq -sc '[.[]|[.action, .target]]' "$AUDIT")" "[[\"resource.create\",\"$AFTER\"]]"
check "the old file keeps the earlier ones" "$(wc -l < "$AUDIT.1")" "$BEFORE"
check "... and only those" "$(grep -cF -- "$AFTER" "$AUDIT.1")" 0
# a file that cannot be opened: logged once, the server goes on, the store keeps the events
mv "$AUDIT" "$AUDIT.2"
mkdir "$AUDIT"
kill -HUP "$SERVER_PID"
for _ in $(seq 1 100); do grep -q "audit file" "$TMP/server.log" && break; sleep 0.05; done
for n in 1 2 3; do
	req POST "$P/resources" "{\"name\":\"Unfiled $n\",\"code\":\"unfiled_$n\"}"
	check_status "write $n while the file fails" 201
done
check "the failure is logged once" "$(grep -c "audit file" "$TMP/server.log")" 1
check "the store has the events" "$(db "SELECT count(*) FROM events WHERE action = 'resource.create' AND target IN (SELECT id FROM resources WHERE code LIKE 'unfiled_%')")" 3
rmdir "$AUDIT"
kill -HUP "$SERVER_PID"
for _ in $(seq 1 100); do [ -f "$AUDIT" ] && break; sleep 0.05; done
req POST "$P/resources" '{"name":"Filed again","code":"filed_again"}'
check_status "a write once the file opens again" 201
check "the file works again" "$(jq -r .target "$AUDIT")" "$(jq -r .id <<<"$BODY")"

# ---------------------------------------------------------------- retention
KEPT=$(db "SELECT count(*) FROM events")
stop_server
start_server tokens.purge_interval_s=1 audit.retention_days=1
# (inserted and counted in one call: on PostgreSQL one transaction, which the
# purge, ticking every second, cannot come between)
check "old event in" "$(db "INSERT INTO events (time, project_id, actor, action, target, address, outcome)
     VALUES ($(( $(date +%s) * 1000 - 2 * 86400000 )), NULL, 'cli', 'key.rotate', 'old-kid', NULL, 'success');
     SELECT count(*) FROM events WHERE target = 'old-kid'")" 1
# the purge's tick is a second; a busy machine may take longer (issue26.4)
old_event_gone() { [ "$(db "SELECT count(*) FROM events WHERE target = 'old-kid'")" = 0 ]; }
eventually 60 old_event_gone
check "old event purged" "$(db "SELECT count(*) FROM events WHERE target = 'old-kid'")" 0
check "recent events kept" "$(db "SELECT count(*) FROM events")" "$KEPT"

finish
