# Two nodes on one database (docs/operations.md §"A fleet on PostgreSQL"): a write through node A (or the
# CLI) reaches node B's caches through LISTEN/NOTIFY (B caches with no
# expiry, so nothing else empties them; issue26.4: how soon is a benchmark
# row, not a check, so each waits up to SETTLE_MS, on a busy machine too): a
# client's deactivation, its deletion, a revocation, a change of a client's
# permissions, a resource's new codes and deletion, a user's deactivation,
# a change of a role's permissions, a key rotation and a retirement,
# invalidate-all. Single use across nodes: of 20 simultaneous uses of one
# refresh token spread over both nodes exactly one wins. And a notification
# lost while B's listening connection is down never leaves a verdict cached
# on B working: a deactivation written without its NOTIFY (as if lost)
# reaches B once B's listening connection was killed (pg_terminate_backend).
# And the commands that copy SQLite's file (backup, restore) refuse on
# PostgreSQL.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../signin_lib.sh"
if [ "$BACKEND" != postgres ]; then
	fail "t_fleet runs on PostgreSQL: EDGEAUTH_BACKEND=postgres test/blackbox/run.sh postgres/t_fleet.sh"
	finish
	exit 1
fi
SETTLE_MS=30000

start_server tokens.key_activation_delay_s=0
A=$BASE
# node B: the same database, key-encryption key file and issuer (a token of
# one node is valid on every node), its own port
B_PORT=$(free_port)
write_config "$TMP/b.conf" "$B_PORT" "server.issuer=$A" tokens.key_activation_delay_s=0
"$EDGEAUTH" -c "$TMP/b.conf" serve > "$TMP/b.out" 2>> "$TMP/b.log" &
B_PID=$!
B="http://127.0.0.1:$B_PORT"
for _ in $(seq 1 200); do curl -s -o /dev/null "$B/healthz" && break; sleep 0.05; done
check "node B created no second default project" "$(db "select count(*) from projects")" 1
check "node B printed no project" "$(wc -c < "$TMP/b.out")" 0

# on NODE CMD...: runs a command with BASE pointing at the node
on() { local node=$1; shift; BASE=$node "$@"; }
# ms: the clock in ms, without a process (the measurements below time
# answers, not the harness: each takes its time as soon as curl returned)
ms() { local t=${EPOCHREALTIME/[.,]/}; echo $(( t / 1000 )); }
# settles AUTH WANT NODE METHOD PATH: asks NODE again and again until it
# answers status WANT; prints how many ms that took (or "never", after SETTLE_MS)
settles() {
	local auth=$1 want=$2 node=$3 method=$4 path=$5 t0 t1 status
	t0=$(ms)
	while :; do
		status=$(curl -s -o /dev/null -w '%{http_code}' -X "$method" -H "Authorization: $auth" \
			"$node$path")
		t1=$(ms)
		[ "$status" = "$want" ] && { echo $(( t1 - t0 )); return; }
		[ $(( t1 - t0 )) -gt "$SETTLE_MS" ] && { echo never; return; }
	done
}
# until_new NODE ID SECRET JQ WANT: client_credentials grants of ID on NODE
# again and again until JQ of the answer (a jq filter) is WANT; prints how
# many ms that took (or "never", after SETTLE_MS)
until_new() {
	local node=$1 id=$2 secret=$3 filter=$4 want=$5 t0 t1 answer
	t0=$(ms)
	while :; do
		answer=$(curl -s -u "$id:$secret" -d grant_type=client_credentials "$node/api/v1/tokens")
		t1=$(ms)
		[ "$(jq -r "$filter" <<<"$answer")" = "$want" ] && { echo $(( t1 - t0 )); return; }
		[ $(( t1 - t0 )) -gt "$SETTLE_MS" ] && { echo never; return; }
	done
}
# within NAME MS: MS is a number (the change reached B), not "never"
within() {
	if [[ "$2" =~ ^[0-9]+$ ]]; then pass
	else fail "issue26.4: $1: not after $SETTLE_MS ms"; fi
}
# the ID of a named permission of the project, from the database
perm() {
	db "select p.id from permissions p join resources r on r.id = p.resource_id
	    where p.project_id = '$PROJECT_ID' and r.code || ':' || p.code = '$1'"
}
# a client holding the named permissions (through node A); CID, CSECRET
client_with() {
	local name=$1 ids; shift
	ids=$(for n in "$@"; do perm "$n"; done | jq -R . | jq -sc .)
	AUTH="Bearer $TOKEN" on "$A" req POST "$P/clients" "{\"name\":\"$name\",\"permission_ids\":$ids}"
	check_status "client $name created" 201
	CID=$(jq -r .id <<<"$BODY"); CSECRET=$(jq -r .client_secret <<<"$BODY")
}
token_on() { on "$1" client_token "$2" "$3"; }
# jwt_part TOKEN N: the JSON of a JWT's header (1) or payload (2)
jwt_part() {
	local h
	h=$(printf '%s' "$1" | cut -d. -f"$2" | tr '_-' '/+')
	while [ $(( ${#h} % 4 )) -ne 0 ]; do h+="="; done
	printf '%s' "$h" | base64 -d
}
kid_of() { jwt_part "$1" 1 | jq -r .kid; }

########## one fleet ##########
T_B=$(token_on "$B" "$CLIENT_ID" "$CLIENT_SECRET")
AUTH="Bearer $T_B" on "$A" req GET "$P/clients"
check_status "a token of node B works on node A" 200
AUTH="Bearer $TOKEN" on "$B" req GET "$P/clients"
check_status "and one of node A on node B" 200

########## a client's deactivation ##########
client_with deactivated clients:read
T=$(token_on "$A" "$CID" "$CSECRET")
AUTH="Bearer $T" on "$B" req GET "$P/clients"
check_status "before: the client's token on B (B caches its verdict)" 200
AUTH="Bearer $TOKEN" on "$A" req PUT "$P/clients/$CID" '{"name":"deactivated","is_active":false}'
check_status "deactivated through A" 200
within "B refuses the deactivated client's token" "$(settles "Bearer $T" 401 "$B" GET "$P/clients")"

########## a client's deletion ##########
client_with deleted clients:read
T=$(token_on "$B" "$CID" "$CSECRET")
AUTH="Bearer $T" on "$B" req GET "$P/clients"
check_status "before: the client's token on B" 200
AUTH="Bearer $TOKEN" on "$A" req DELETE "$P/clients/$CID"
check_status "deleted through A" 204
within "B refuses the deleted client's token" "$(settles "Bearer $T" 401 "$B" GET "$P/clients")"

########## a revocation ##########
client_with revoked clients:read
T=$(token_on "$A" "$CID" "$CSECRET")
AUTH="Bearer $T" on "$B" req GET "$P/clients"
check_status "before: the token on B" 200
AUTH="Basic $(printf '%s:%s' "$CID" "$CSECRET" | base64 -w0)" on "$A" req POST /api/v1/tokens/revoke \
	-H 'Content-Type: application/x-www-form-urlencoded' --data-urlencode "token=$T"
check_status "revoked through A (RFC 7009)" 200
within "B refuses the revoked token" "$(settles "Bearer $T" 401 "$B" GET "$P/clients")"

########## a resource: its code, its permissions, its deletion ##########
# (what a client's scope names: B's cached scopes follow each)
AUTH="Bearer $TOKEN" on "$A" req POST "$P/resources" \
	'{"name":"Fleet","code":"fleet","permissions":[{"name":"Go","code":"go"},{"name":"Stop","code":"stop"}]}'
check_status "resource created through A" 201
RES=$(jq -r .id <<<"$BODY"); GO=$(jq -r '.permissions[0].id' <<<"$BODY")
client_with fleet fleet:go fleet:stop
T=$(token_on "$B" "$CID" "$CSECRET")
check "B's token carries the resource's permissions (B caches the scope)" \
	"$(jwt_part "$T" 2 | jq -r .scope)" "fleet:go fleet:stop"
AUTH="Bearer $TOKEN" on "$A" req PUT "$P/resources/$RES" '{"name":"Fleet","code":"armada"}'
check_status "resource code changed through A" 200
within "B's tokens carry the new resource code" \
	"$(until_new "$B" "$CID" "$CSECRET" .scope "armada:go armada:stop")"
AUTH="Bearer $TOKEN" on "$A" req PUT "$P/resources/$RES" \
	"{\"name\":\"Fleet\",\"code\":\"armada\",\"permissions\":[{\"id\":\"$GO\",\"name\":\"Go\",\"code\":\"run\"}]}"
check_status "a permission renamed, the other dropped, through A" 200
within "B's tokens carry the renamed permission alone" \
	"$(until_new "$B" "$CID" "$CSECRET" .scope armada:run)"
AUTH="Bearer $TOKEN" on "$A" req DELETE "$P/resources/$RES"
check_status "resource deleted through A" 204
within "B's tokens carry none of its permissions" \
	"$(until_new "$B" "$CID" "$CSECRET" '.scope // ""' "")"

########## a client's permissions ##########
client_with changing clients:read
T=$(token_on "$B" "$CID" "$CSECRET")
check "B's token carries its scope (B caches the scope)" "$(jwt_part "$T" 2 | jq -r .scope)" \
	clients:read
AUTH="Bearer $TOKEN" on "$A" req PUT "$P/clients/$CID" \
	"{\"name\":\"changing\",\"is_active\":true,\"permission_ids\":[\"$(perm users:read)\"]}"
check_status "permissions changed through A" 200
within "B's tokens carry the new scope" "$(until_new "$B" "$CID" "$CSECRET" .scope users:read)"

########## a client's row as a grant reads it (B caches it) ##########
client_with rotating clients:read
OLD=$CSECRET
check "B grants the client (its row now cached)" \
	"$(token_on "$B" "$CID" "$OLD" | cut -d. -f1 | grep -c .)" 1
AUTH="Bearer $TOKEN" on "$A" req POST "$P/clients/$CID/secret"
check_status "secret rotated through A" 200
NEW=$(jq -r .client_secret <<<"$BODY")
within "B refuses the old secret" \
	"$(until_new "$B" "$CID" "$OLD" .error invalid_client_credentials)"
check "... and grants the new one" "$(token_on "$B" "$CID" "$NEW" | cut -d. -f1 | grep -c .)" 1
AUTH="Bearer $TOKEN" on "$A" req PUT "$P/clients/$CID" '{"name":"rotating","is_active":false}'
check_status "deactivated through A" 200
within "B refuses the deactivated client's grant" \
	"$(until_new "$B" "$CID" "$NEW" '.error // "granted"' client_not_active)"
AUTH="Bearer $TOKEN" on "$A" req DELETE "$P/clients/$CID"
check_status "deleted through A" 204
within "B refuses the deleted client's grant" \
	"$(until_new "$B" "$CID" "$NEW" '.error // "granted"' invalid_client_credentials)"

########## users: single use, deactivation, a role's permissions ##########
REDIRECT="http://127.0.0.1:9/cb"
AUTH="Bearer $TOKEN" on "$A" req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"]}"
check_status "a user-facing client created" 201
APP=$(jq -r .id <<<"$BODY")
AUTH="Bearer $TOKEN" on "$A" req POST "$P/roles" \
	"{\"code\":\"reader\",\"name\":\"Reader\",\"permission_ids\":[\"$(perm users:read)\"]}"
check_status "a role created" 201
ROLE=$(jq -r .id <<<"$BODY")
AUTH="Bearer $TOKEN" on "$A" req POST "$P/users" \
	"{\"display_name\":\"Ann\",\"external_user_id\":\"ann\",\"role_id\":\"$ROLE\"}"
check_status "a user created" 201
ANN=$(jq -r .id <<<"$BODY")
# ann_signed_in NODE: a BYOU sign-in of Ann at APP through NODE; sets
# ACCESS and REFRESH
ann_signed_in() {
	BASE=$1 byou_code ann "$APP" "$REDIRECT"
	BASE=$1 exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
	check_status "Ann signed in through $1" 200
}

# 20 simultaneous uses of one refresh token, every other one on node B
ann_signed_in "$A"
rm -f "$TMP"/race.*
RACERS=()
for i in $(seq 1 20); do
	node=$A; [ $(( i % 2 )) -eq 0 ] && node=$B
	curl -s -o "$TMP/race.$i" -w '%{http_code}\n' --data-urlencode grant_type=refresh_token \
		--data-urlencode "client_id=$APP" --data-urlencode "refresh_token=$REFRESH" \
		"$node/api/v1/tokens" > "$TMP/race.status.$i" &
	RACERS+=($!)
done
wait "${RACERS[@]}"
check "20 uses over both nodes: exactly one wins" \
	"$(cat "$TMP"/race.status.* | sort | uniq -c | awk '{print $2 "x" $1}' | paste -sd' ')" \
	"200x1 400x19"
check "... the others are told it was used" \
	"$(cat "$TMP"/race.[0-9]* | jq -r '.error // empty' | sort -u)" refresh_token_already_used
check "... and the reuse revoked the sign-in (RFC 6749 §10.4)" \
	"$(db "select count(*) from refresh_tokens where revoked_at is null and user_id = '$ANN'")" 0

# a user's deactivation through A stops Ann's token on B
ann_signed_in "$A"
AUTH="Bearer $ACCESS" on "$B" req GET /api/v1/users/current
check_status "before: Ann's token on B (B caches its verdict)" 200
AUTH="Bearer $TOKEN" on "$A" req PUT "$P/users/$ANN" \
	"{\"display_name\":\"Ann\",\"external_user_id\":\"ann\",\"role_id\":\"$ROLE\",\"is_active\":false}"
check_status "Ann deactivated through A" 200
within "B refuses the deactivated user's token" \
	"$(settles "Bearer $ACCESS" 401 "$B" GET /api/v1/users/current)"
AUTH="Bearer $TOKEN" on "$A" req PUT "$P/users/$ANN" \
	"{\"display_name\":\"Ann\",\"external_user_id\":\"ann\",\"role_id\":\"$ROLE\",\"is_active\":true}"
check_status "Ann active again" 200

# a change of Ann's role through A: B's next tokens of hers carry it (her
# code comes in a later second than her deactivation: docs/decisions.md
# "Reactivation revives nothing")
next_second
ann_signed_in "$B"
check "B's token of Ann carries her role's scope" "$(jwt_part "$ACCESS" 2 | jq -r .scope)" users:read
AUTH="Bearer $TOKEN" on "$A" req PUT "$P/roles/$ROLE" \
	"{\"code\":\"reader\",\"name\":\"Reader\",\"permission_ids\":[\"$(perm clients:read)\"]}"
check_status "the role's permissions changed through A" 200
# until_scope NODE WANT: refreshes Ann's sign-in on NODE (each answer's
# refresh token the next one's) until the access token's scope is WANT;
# prints how many ms that took (or "never", after SETTLE_MS)
until_scope() {
	local t0 t1 answer
	t0=$(ms)
	while :; do
		answer=$(curl -s --data-urlencode grant_type=refresh_token --data-urlencode "client_id=$APP" \
			--data-urlencode "refresh_token=$REFRESH" "$1/api/v1/tokens")
		t1=$(ms)
		[ "$(jq -r "$SCOPE_OF" <<<"$answer")" = "$2" ] && { echo $(( t1 - t0 )); return; }
		REFRESH=$(jq -r '.refresh_token // empty' <<<"$answer")
		[ -z "$REFRESH" ] || [ $(( t1 - t0 )) -gt "$SETTLE_MS" ] && { echo never; return; }
	done
}
# (the scope of the answer's access token: its payload, base64url)
SCOPE_OF='.access_token // "." | split(".")[1] | gsub("-"; "+") | gsub("_"; "/")
	| . + ("=" * ((4 - length % 4) % 4)) | @base64d | fromjson | .scope'
within "B's tokens of Ann carry the role's new scope" "$(until_scope "$B" clients:read)"

########## keys: a rotation and a retirement by the CLI ##########
T_OLD=$(token_on "$B" "$CLIENT_ID" "$CLIENT_SECRET")
OLD_KID=$(kid_of "$T_OLD")
AUTH="Bearer $T_OLD" on "$B" req GET "$P/clients"
check_status "before: a token of the old key on B (B holds the key ring)" 200
"$EDGEAUTH" -c "$CONF" key rotate --alg ES256 > "$TMP/rotate.out" 2> "$TMP/rotate.err"
check "key rotate through the CLI" "$?" 0
NEW_KID=$(jq -r '.[0].kid' "$TMP/rotate.out")
# (the kid of the answer's access token: its header, base64url)
KID_OF='.access_token | split(".")[0] | gsub("-"; "+") | gsub("_"; "/") | @base64d | fromjson | .kid'
within "B signs with the new key" "$(until_new "$B" "$CLIENT_ID" "$CLIENT_SECRET" "$KID_OF" "$NEW_KID")"
"$EDGEAUTH" -c "$CONF" key retire "$OLD_KID" > /dev/null 2> "$TMP/retire.err"
check "key retire through the CLI" "$?" 0
within "B refuses the retired key's token" "$(settles "Bearer $T_OLD" 401 "$B" GET "$P/clients")"
TOKEN=$(admin_token)   # the admin's token was of the retired key too

########## a lost notification ##########
# B's verdict on T is cached; the client is deactivated without its NOTIFY
# (as if the notification were lost), so B goes on answering 200 from its
# cache; then B's listening connection is killed: from then on B uses no
# cache until it listens again and has emptied its caches.
client_with lost clients:read
T=$(token_on "$A" "$CID" "$CSECRET")
LOST=$CID
# issue26.4: the notifications of what came before (the client's creation)
# reach B first, lest a late one empty B's caches after the check below: B
# hears them in order, so once it heard a later deactivation it heard them
client_with barrier clients:read
TB=$(token_on "$A" "$CID" "$CSECRET")
AUTH="Bearer $TB" on "$B" req GET "$P/clients"
AUTH="Bearer $TOKEN" on "$A" req PUT "$P/clients/$CID" '{"name":"barrier","is_active":false}'
within "B heard what came before" "$(settles "Bearer $TB" 401 "$B" GET "$P/clients")"
CID=$LOST
AUTH="Bearer $T" on "$B" req GET "$P/clients"
check_status "before: the token on B" 200
db "BEGIN; ALTER TABLE clients DISABLE TRIGGER clients_notify;
    UPDATE clients SET is_active = false, updated_at = edgeauth_now_ms() WHERE id = '$CID';
    ALTER TABLE clients ENABLE TRIGGER clients_notify; COMMIT" > /dev/null
AUTH="Bearer $T" on "$A" req GET "$P/clients"
check_status "A reads the deactivation (it cached no verdict of T)" 401
AUTH="Bearer $T" on "$B" req GET "$P/clients"
check_status "without a notification B still answers from its cache" 200
# (this database's: another test file's nodes may run beside this one)
KILLED=$(db "select count(pg_terminate_backend(pid)) from pg_stat_activity
             where application_name = 'edgeauth listener' and datname = current_database()")
check "the listening connections killed (A's and B's)" "$KILLED" 2
within "B refuses the token once its listener is gone" "$(settles "Bearer $T" 401 "$B" GET "$P/clients")"
check "B said it lost its listener" "$(grep -c 'listening connection:.*reconnecting' "$TMP/b.log")" 1
for _ in $(seq 1 600); do
	[ "$(db "select count(*) from pg_stat_activity where application_name = 'edgeauth listener'
	          and state = 'idle' and datname = current_database()")" -ge 2 ] && break
	sleep 0.05
done
client_with after clients:read
T=$(token_on "$A" "$CID" "$CSECRET")
AUTH="Bearer $T" on "$B" req GET "$P/clients"
AUTH="Bearer $TOKEN" on "$A" req PUT "$P/clients/$CID" '{"name":"after","is_active":false}'
within "listening again, B hears the next deactivation" \
	"$(settles "Bearer $T" 401 "$B" GET "$P/clients")"

########## the purge's deletions tell no node ##########
# issue26.4: deleting an ended or expired session (what the purge does every
# tick) changes nothing a node caches, so it notifies no one; before, each
# tick that found one emptied every node's caches, and B forgot the verdict
# "without a notification B still answers from its cache" above relies on.
# Nor does a tick empty its own node's caches (t_clients_caches): before,
# B's own purge tick (every 30 s) that came between B's cached verdict and
# that check emptied B's caches, as once under ASan on a loaded machine.
# A live session's deletion still notifies. A probe session of Ann's is
# deleted in a session that LISTENs: PostgreSQL delivers a
# session's own notifications to it at its commit, so psql prints them.
# notifies_on_delete ENDED_AT EXPIRES_AT: how many notifications deleting a
# probe session of those times brought, and the rows deleted
notifies_on_delete() {
	db "INSERT INTO sessions SELECT 'purge-probe', 'purge-probe-secret', project_id, id,
	        edgeauth_now_ms(), edgeauth_now_ms(), $2, $1 FROM users WHERE id = '$ANN'" > /dev/null
	db "LISTEN edgeauth; WITH d AS (DELETE FROM sessions WHERE id = 'purge-probe' RETURNING 1)
	    SELECT 'deleted ' || count(*) FROM d" 2>&1 |
		awk '/^deleted/ { d = $2 } /notification/ { n++ } END { print (n + 0) " of " d }'
}
check "the purge's deletion of an ended session notifies no one" \
	"$(notifies_on_delete "edgeauth_now_ms()" "edgeauth_now_ms() + 3600000")" "0 of 1"
check "... nor of an expired one" "$(notifies_on_delete NULL "edgeauth_now_ms() - 1")" "0 of 1"
check "... a live session's deletion notifies" \
	"$(notifies_on_delete NULL "edgeauth_now_ms() + 3600000")" "1 of 1"

########## what copies SQLite's file ##########
"$EDGEAUTH" -c "$CONF" backup "$TMP/copy.db" > /dev/null 2> "$TMP/cmd.err"
check "backup refused on PostgreSQL" "$?" 1
check "... naming the database's own tools" "$(grep -c 'pg_dump' "$TMP/cmd.err")" 1
"$EDGEAUTH" -c "$CONF" restore "$TMP/copy.db" > /dev/null 2> "$TMP/cmd.err"
check "restore refused on PostgreSQL" "$?" 1
check "... naming the database's own tools" "$(grep -c 'pg_dump' "$TMP/cmd.err")" 1

########## invalidate-all (what a restore of a dump is followed by) ##########
AUTH="Bearer $TOKEN" on "$B" req GET "$P/clients"
check_status "before: the admin's token on B" 200
"$EDGEAUTH" -c "$CONF" invalidate-all > /dev/null 2> "$TMP/cmd.err"
check "invalidate-all through the CLI" "$?" 0
check "... recorded as the CLI's event" \
	"$(db "select count(*) from events where action = 'store.invalidate_all' and actor = 'cli'")" 1
within "B refuses a token issued before it" "$(settles "Bearer $TOKEN" 401 "$B" GET "$P/clients")"
check "... every session ended" "$(db "select count(*) from sessions where ended_at is null")" 0

kill -TERM "$B_PID"
wait "$B_PID"
check "node B stops cleanly" "$?" 0
finish
