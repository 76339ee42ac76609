# issue24.15: a PostgreSQL that stops answering (every process stopped, as a
# partition or a hung server looks from a node) makes requests fail fast
# with 503 system_error and Retry-After, bounded by [store] pg_timeout_ms,
# and the node recovers by itself once it answers again. A refresh rotation
# answered 503 whose commit happened anyway (the commit held on a lock past
# the timeout, then let go) is safe to retry: the retry gets a new pair and
# takes back the successor the client never saw, without revoking the
# sign-in (docs/tokens.md "Refresh grace"). The test has a cluster of its own
# (scripts/pg-cluster), which it freezes.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../signin_lib.sh"
postgres_only
own_cluster
start_server store.pg_timeout_ms=1000
REDIRECT="http://127.0.0.1:9/cb"

AUTH="Bearer $TOKEN" req POST "$P/clients" '{"name":"there"}'
check_status "a client" 201
C=$(jq -r .id <<<"$BODY")

# answer METHOD PATH [BODY]: one request with the admin token, at most 30 s;
# prints "STATUS error retry-after-lines" for a 503, else the status
answer() {
	local s
	s=$(curl -s -m 30 -o "$TMP/a.b" -D "$TMP/a.h" -w '%{http_code}' -X "$1" \
		-H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
		${3:+--data "$3"} "$BASE$P$2")
	if [ "$s" = 503 ]; then
		echo "503 $(jq -r .error "$TMP/a.b") $(tr -d '\r' < "$TMP/a.h" | grep -ci '^Retry-After: [0-9]')"
	else
		echo "$s"
	fi
}

# --- every PostgreSQL process stopped: 503 with Retry-After, not a stall ---
"$ROOT/scripts/pg-cluster" freeze "$CLUSTER"
for i in 1 2 3; do
	check "issue24.15: read $i while PostgreSQL is stopped" "$(answer GET "/clients/$C")" \
		"503 system_error 1"
	check "issue24.15: create $i while PostgreSQL is stopped" \
		"$(answer POST /clients '{"name":"frozen"}')" "503 system_error 1"
done
check "issue24.15: the node said why" \
	"$(grep -c 'query connection: no answer within 1000 ms' "$TMP/server.log" | awk '{print ($1 > 0)}')" 1
"$ROOT/scripts/pg-cluster" thaw "$CLUSTER"
node_answers() { [ "$(answer GET "/clients/$C")" = 200 ]; }
wait_for node_answers
check "issue24.15: the node recovers by itself" "$(answer GET "/clients/$C")" 200
check "issue24.15: and writes again" "$(answer POST /clients '{"name":"thawed"}')" 201

# --- a rotation answered 503 that committed all the same ---
AUTH="Bearer $TOKEN" req POST "$P/clients" "{\"name\":\"tablet app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(jq -r .id <<<"$BODY")
AUTH="Bearer $TOKEN" req POST "$P/users" '{"display_name":"Ann","external_user_id":"ann"}'
byou_code ann "$APP" "$REDIRECT"
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check_status "a sign-in" 200
T0=$REFRESH
H0=$(secret_hash "$T0")

# The commit of a rotation waits for an advisory lock the test holds: the
# node's timeout answers first, and the commit happens once the lock goes.
db "CREATE FUNCTION t_hold() RETURNS trigger LANGUAGE plpgsql AS \$\$
BEGIN PERFORM pg_advisory_xact_lock_shared(2415); RETURN NULL; END \$\$;
CREATE CONSTRAINT TRIGGER t_hold AFTER UPDATE OF used_at ON refresh_tokens
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION t_hold();" > /dev/null
mkfifo "$TMP/holder"
pg_psql "$PG_DB" < "$TMP/holder" > /dev/null &
HOLDER=$!
exec 3> "$TMP/holder"
echo "SELECT pg_advisory_lock(2415);" >&3
lock_held() { [ "$(db "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 2415 AND granted")" = 1 ]; }
wait_for lock_held

refresh "$APP" "$T0"
check_err "issue24.15: the rotation's answer is lost (503)" 503 system_error
check "issue24.15: with Retry-After" "$(tr -d '\r' <<<"$HDRS" | grep -ci '^Retry-After: [0-9]')" 1
check "issue24.15: not committed when answered" \
	"$(db "SELECT used_at IS NULL FROM refresh_tokens WHERE hash = '$H0'")" t
printf 'SELECT pg_advisory_unlock(2415);\n\\q\n' >&3
exec 3>&-
wait "$HOLDER"
rotation_committed() { [ "$(db "SELECT used_at IS NOT NULL FROM refresh_tokens WHERE hash = '$H0'")" = t ]; }
wait_for rotation_committed
check "issue24.15: the rotation committed after its 503" \
	"$(db "SELECT used_at IS NOT NULL FROM refresh_tokens WHERE hash = '$H0'")" t
db "DROP TRIGGER t_hold ON refresh_tokens" > /dev/null

refresh "$APP" "$T0"
check_status "issue24.15: the client's retry of the rotation is no reuse" 200
T2=$REFRESH
expect "Bearer $ACCESS" 200 "issue24.15: its access token works" GET /api/v1/users/current
check "issue24.15: the successor the client never saw is taken back" \
	"$(db "SELECT revoked_at IS NOT NULL FROM refresh_tokens WHERE hash =
		(SELECT successor_hash FROM refresh_tokens WHERE hash = '$H0')")" t
refresh "$APP" "$T2"
check_status "issue24.15: the sign-in goes on" 200
refresh "$APP" "$T0"
check_err "issue24.15: a second retry is reuse, as a repeat in the grace" 400 refresh_token_already_used
check "no 500 in the log" "$(grep -c ' 500 ' "$TMP/server.log")" 0
finish
