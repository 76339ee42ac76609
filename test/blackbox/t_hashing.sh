# Password hashing runs off the loop: while 32 sign-ins hash, other requests
# are answered at once; past max_pending_hashes a request gets 503.
# issue26.4: "at once" is checked by state (discovery answered while the
# hash queue still holds sign-ins), not by the time it took; the hashes in
# flight at SIGTERM have a stop_grace_s no machine's slowness reaches.
# run.sh: alone (under two busy cores gone_mid_check's PUT can come after
# the 16-iteration hash it must meet: "done while it runs" got 0)
# A hash that waits in the queue longer than request_timeout_s is still
# answered: that deadline is for a request to arrive, not to be answered
# (conn_guard.h); the SIGTERM part runs with 1 s to show it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
# One account's checks at once are limited to signin.max_failures (they count
# when queued, t_throttle.sh): raised here, since this storm is one account's.
MPORT=$(free_port)
start_server passwords.argon2_memory_kib=32768 passwords.argon2_iterations=3 \
	passwords.hash_threads=2 passwords.max_pending_hashes=40 signin.max_failures=64 \
	metrics.listen=127.0.0.1:$MPORT
# queued: the hashes queued or running (the metrics of the server on MPORT)
queued() { metric "$MPORT" edgeauth_password_hash_queue_depth; }

REDIRECT="http://127.0.0.1:9/cb"
req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(printf '%s' "$BODY" | jq -r .id)
req POST "$P/users" '{"display_name":"Eve","email":"eve@example.com","password":"long enough"}'
check_status "user with a slow hash" 201

new_pkce
FORM="response_type=code&client_id=$APP&redirect_uri=$REDIRECT&code_challenge=$CHALLENGE&code_challenge_method=S256&email=eve%40example.com&password=long+enough"
PIDS=()
for i in $(seq 1 32); do
	curl -s -o /dev/null -w '%{http_code}\n' --data "$FORM" "$BASE/api/v1/authorize" > "$TMP/storm.$i" &
	PIDS+=($!)
done
# (more than the 2 threads hash: the rest wait in the queue)
queued_beyond_threads() { [ "$(queued)" -ge 3 ]; }
wait_for queued_beyond_threads
DEPTH=$(queued)
# While they hash: discovery answers without waiting for them.
META=$(curl -s -m 60 -o /dev/null -w '%{http_code}' "$BASE/.well-known/oauth-authorization-server")
DEPTH_AFTER=$(queued)
wait "${PIDS[@]}"   # not the server, which is a child too
check "32 sign-ins all redirect" "$(cat "$TMP"/storm.* | sort | uniq -c | awk '{print $2 "x" $1}')" "302x32"
echo "hash queue ${DEPTH} before discovery, ${DEPTH_AFTER} after it" >&2
check "the storm was long (hashing really queued)" "$([ "$DEPTH" -ge 3 ] && echo yes || echo "no: $DEPTH")" yes
check "discovery did not wait for the hashes" \
	"$META $([ "$DEPTH_AFTER" -ge 1 ] && echo "while they hash" || echo "after them")" "200 while they hash"
stop_server

# A tiny queue: the surplus is refused with 503 and Retry-After, never hangs.
# (Each part on a new store of its own.)
PIDS=()
start_server store.path="$TMP/tiny.db" passwords.argon2_memory_kib=32768 passwords.argon2_iterations=3 \
	passwords.hash_threads=1 passwords.max_pending_hashes=2
for i in $(seq 1 12); do
	curl -s -D "$TMP/h.$i" -o "$TMP/b.$i" -w '%{http_code}\n' -H "Authorization: Bearer $TOKEN" \
		-H 'Content-Type: application/json' \
		--data "{\"display_name\":\"U$i\",\"email\":\"u$i@example.com\",\"password\":\"password $i\"}" \
		"$BASE$P/users" > "$TMP/s.$i" &
	PIDS+=($!)
done
wait "${PIDS[@]}"
CREATED=$(cat "$TMP"/s.* | grep -c 201); REFUSED=$(cat "$TMP"/s.* | grep -c 503)
check "every request answered 201 or 503" "$((CREATED + REFUSED))" 12
check "some were refused" "$([ "$REFUSED" -gt 0 ] && echo yes)" yes
check "some were created" "$([ "$CREATED" -ge 2 ] && echo yes)" yes
I=$(grep -l 503 "$TMP"/s.* | head -1 | sed 's/.*\.//')
check "503 carries Retry-After" "$(tr -d '\r' < "$TMP/h.$I" | grep -ci '^Retry-After: ')" 1
check "503 error body" "$(jq -r .error "$TMP/b.$I")" temporarily_unavailable
req GET "$P/users"
check_json "only the created users exist" .total "$CREATED"
stop_server

# A user deleted or deactivated while their password is checked: the
# sign-in is refused as for a user who is not there (401, the form), and
# nothing is stored for them: no session, no code (a store error before).
start_server store.path="$TMP/gone.db" passwords.argon2_memory_kib=32768 \
	passwords.argon2_iterations=16 passwords.hash_threads=1 metrics.listen=127.0.0.1:$MPORT
req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(printf '%s' "$BODY" | jq -r .id)
# gone_mid_check WHAT METHOD [BODY]: a sign-in of a new user, whose
# password check is met by METHOD on the user; sets STATUS (the sign-in's)
gone_mid_check() {
	local what=$1 method=$2 body=${3:-} user bg
	req POST "$P/users" "{\"display_name\":\"G\",\"email\":\"g-$what@example.com\",\"password\":\"long enough\"}"
	user=$(printf '%s' "$BODY" | jq -r .id)
	new_pkce
	(authorize_post "$APP" "$REDIRECT" "g-$what@example.com" "long enough" s
	 echo "$STATUS" > "$TMP/gone.status") &
	bg=$!
	running() { [ "$(queued)" = 1 ]; }
	wait_for running
	check "$what: the password check runs" "$(queued)" 1
	req "$method" "$P/users/$user" ${body:+"$body"}
	check "$what: done while it runs" "$(queued)" 1
	wait "$bg"
	STATUS=$(cat "$TMP/gone.status")
}
gone_mid_check deleted DELETE
check "deleted: the sign-in is refused" "$STATUS" 401
check "deleted: no session, no code" "$(db "select (select count(*) from sessions) + (select count(*) from auth_codes)" "$TMP/gone.db")" 0
gone_mid_check deactivated PUT '{"display_name":"G","email":"g-deactivated@example.com","is_active":false}'
check "deactivated: the sign-in is refused" "$STATUS" 401
check "deactivated: no session, no code" "$(db "select (select count(*) from sessions) + (select count(*) from auth_codes)" "$TMP/gone.db")" 0
check "no store error logged" "$(grep -c -i -E 'violates|constraint' "$TMP/server.log")" 0
stop_server

# SIGTERM while creates hash: each is still answered, with Connection: close
# (the server is going), the writes are kept, and the exit is clean.
# "In flight" means the server has read the request and queued its hash (an
# established connection may still wait in the listen backlog, which a
# stopping server closes unread): the metrics' hash queue depth says so.
# (The default grace, 5 s, is shorter than three slow hashes on a loaded
# machine: 600 s here, and the answers' Connection: close shows they came
# during the stop, issue26.4. request_timeout_s is 1 s, less than the last
# one's wait for the two hashes before it: issue26.4.hashing, a queued hash
# is answered, never cut off by the request timeout.)
MPORT=$(free_port)
start_server store.path="$TMP/term.db" passwords.argon2_memory_kib=32768 passwords.argon2_iterations=16 \
	passwords.hash_threads=1 metrics.listen=127.0.0.1:$MPORT server.stop_grace_s=600 \
	server.request_timeout_s=1
PIDS=()
for i in 1 2 3; do
	curl -s -D "$TMP/dh.$i" -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $TOKEN" \
		-H 'Content-Type: application/json' \
		--data "{\"display_name\":\"D$i\",\"email\":\"d$i@example.com\",\"password\":\"password $i\"}" \
		"$BASE$P/users" > "$TMP/ds.$i" &
	PIDS+=($!)
done
three_queued() { Q=$(queued); [ "$Q" = 3 ]; }
wait_for three_queued
check "three hashes queued before SIGTERM" "$Q" 3
stop_server   # checks exit status 0
wait "${PIDS[@]}"
check "issue26.4.hashing: creates in flight at SIGTERM answered" "$(cat "$TMP"/ds.* | sort | uniq -c | awk '{print $2 "x" $1}')" "201x3"
check "their answers close the connection" "$(cat "$TMP"/dh.* | tr -d '\r' | grep -ci '^Connection: close$')" 3
check "their users are stored" "$(db "select count(*) from users where email like 'd_@example.com'" "$TMP/term.db")" 3

finish
