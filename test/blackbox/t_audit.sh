# The audit trail (CONTRACT.md §10): each kind of event appears exactly once
# after its action, with its actor, target and address; a failed write
# leaves none; `edgeauth events` and its filters; the retention purge.
. "$(dirname "$0")/lib.sh"
start_server tokens.purge_interval_s=1
DB=$TMP/edgeauth.db

sql() { sqlite3 -cmd ".timeout 5000" "$DB" "$@"; }
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
LAST=$(sql "SELECT time FROM events WHERE action = 'resource.delete'")
sql "UPDATE events SET time = time - 60000 WHERE action <> 'resource.delete'"
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

# ---------------------------------------------------------------- retention
stop_server
start_server tokens.purge_interval_s=1 audit.retention_days=1
sql "INSERT INTO events (time, project_id, actor, action, target, address, outcome)
     VALUES ($(( $(date +%s) * 1000 - 2 * 86400000 )), NULL, 'cli', 'key.rotate', NULL, NULL, 'success')"
check "old event in" "$(sql "SELECT count(*) FROM events WHERE action = 'key.rotate'")" 1
for _ in $(seq 1 60); do
	[ "$(sql "SELECT count(*) FROM events WHERE action = 'key.rotate'")" = 0 ] && break
	sleep 0.1
done
check "old event purged" "$(sql "SELECT count(*) FROM events WHERE action = 'key.rotate'")" 0
check "recent events kept" "$(sql "SELECT count(*) FROM events WHERE action LIKE 'resource.%'")" 3

finish
