# Signing keys in the store (docs/tokens.md §"Signing keys"): the CLI (key list, rotate,
# retire) beside a running server, a rotation that breaks no token (the
# management API and jose's createRemoteJWKSet before and after it), the old
# key leaving JWKS once the last token it signed has expired, a retired
# key's tokens failing at once, the key-encryption key file's checks at
# start, and the signing_key file: imported with its kid into a store
# without keys, ignored with a warning when it differs from every stored key.
# Access and ID tokens live a minute, a rotated key signs at once.
# A superseded key stays published as long as the longest-lived token it may
# have signed, and logout tokens live 120 s whatever the config says: so
# the old key's departure is watched on a second server of its own
# (watch_departure).
# issue26.4: no check races the clock: the servers and the CLI read their
# wall clock from a file (libfaketime; key times are the node's on both
# backends), which the test moves past a token's expiry or a key's
# departure instead of sleeping, and a token outlives the checks that use it.
. "$(dirname "$0")/lib.sh"
CLIENT_DIR=$ROOT/test/oauth-client
TTL=60
SETTINGS=(tokens.access_ttl_s=$TTL tokens.key_activation_delay_s=0 oidc.id_token_ttl_s=$TTL)
fake_clock

need_node_project "$CLIENT_DIR" jose

# key CMD...: runs the CLI on the server's config; sets OUT, ERR, RC
key() {
	$FAKED "$EDGEAUTH" -c "$CONF" key "$@" > "$TMP/key.out" 2> "$TMP/key.err"
	RC=$?
	OUT=$(cat "$TMP/key.out")
	ERR=$(cat "$TMP/key.err")
}

# The kid in a JWT's protected header.
jwt_kid() {
	local h
	h=$(printf '%s' "$1" | cut -d. -f1 | tr '_-' '/+')
	while [ $(( ${#h} % 4 )) -ne 0 ]; do h+="="; done
	printf '%s' "$h" | base64 -d | jq -r .kid
}

# watch_departure OUT: on a server with its own store, port and clock,
# frozen at a second, rotates the ES256 key after a token of it, then moves
# the clock on (by tens of seconds, then second by second from 110 s on)
# until the old key leaves JWKS (at most 140 s); writes "ROTATED TOKEN_EXP
# GONE STATE" (seconds since 1970 by that clock, GONE "never" when it did
# not go; the old key's state in `key list` after) to OUT.
watch_departure() (
	TMP=$(mktemp -d /tmp/edgeauth-bb.XXXXXX)
	PG_DB=   # on PostgreSQL, a database of its own too
	fake_clock   # a clock of its own
	PORT=$(free_port)
	BASE="http://127.0.0.1:$PORT"
	CONF=$TMP/edgeauth.conf
	started=$(date +%s)
	freeze "$started"
	write_config "$CONF" "$PORT" "${SETTINGS[@]}"
	$FAKED "$EDGEAUTH" -c "$CONF" serve > "$TMP/stdout" 2> "$TMP/server.log" &
	pid=$!
	for _ in $(seq 1 600); do curl -s -o /dev/null "$BASE/healthz" && break; sleep 0.05; done
	CLIENT_ID=$(jq -r .client_id "$TMP/stdout")
	CLIENT_SECRET=$(jq -r .client_secret "$TMP/stdout")
	t1=$(admin_token)
	k1=$(jwt_kid "$t1")
	# a second on: a key of the start's own second would tie with it
	rotated=$((started + 1))
	freeze "$rotated"
	$FAKED "$EDGEAUTH" -c "$CONF" key rotate --alg ES256 > /dev/null
	published() { curl -s "$BASE/.well-known/jwks.json" | jq -e --arg k "$1" '[.keys[].kid] | index($k) != null' > /dev/null; }
	# the server has seen the rotation: the new key is published
	k2=$($FAKED "$EDGEAUTH" -c "$CONF" key list | jq -r --arg k "$k1" '.[] | select(.alg == "ES256" and .kid != $k) | .kid')
	eventually 60 published "$k2"
	gone=never
	for s in $(seq 0 10 100) $(seq 110 140); do
		freeze $((rotated + s))
		if ! published "$k1"; then
			gone=$((rotated + s))
			break
		fi
	done
	state=$($FAKED "$EDGEAUTH" -c "$CONF" key list | jq -r --arg k "$k1" '.[] | select(.kid == $k) | .state')
	echo "$rotated $(jwt_claim "$t1" exp) $gone $state" > "$1"
	kill -TERM "$pid"
	wait "$pid"
	rm -rf "$TMP"
)

# The state of kid in `key list`.
key_state() {
	key list
	printf '%s' "$OUT" | jq -r --arg k "$1" '.[] | select(.kid == $k) | .state'
}

jwks() {
	AUTH=none req GET /.well-known/jwks.json
}

# jose_verify TOKEN...: jose's createRemoteJWKSet + jwtVerify, one fresh
# JWKS fetch; prints "ok" or the error code per token, space-separated.
jose_verify() {
	(cd "$CLIENT_DIR" && timeout 30 node jwks_verify.mjs "$BASE" "$@") |
		jq -r 'map(if .ok then "ok" else .code end) | join(" ")'
}

# jwt_claim TOKEN CLAIM
jwt_claim() {
	local p
	p=$(printf '%s' "$1" | cut -d. -f2 | tr '_-' '/+')
	while [ $(( ${#p} % 4 )) -ne 0 ]; do p+="="; done
	printf '%s' "$p" | base64 -d | jq -r ".$2"
}

EDGEAUTH_WRAPPER=$FAKED start_server "${SETTINGS[@]}"

# --- a new store: both algorithms, the signing_key file's key imported ---
key list
check "key list exit" "$RC" 0
check "key list: two keys" "$(printf '%s' "$OUT" | jq length)" 2
check "key list: both active" "$(printf '%s' "$OUT" | jq -r '[.[].state] | unique | join(",")')" active
check "key list: ES256 and RS256" "$(printf '%s' "$OUT" | jq -r '[.[].alg] | sort | join(",")')" \
	"ES256,RS256"
check "key list: fields, no private part" \
	"$(printf '%s' "$OUT" | jq -r '[.[] | keys | join(",")] | unique | join(";")')" \
	"activates_at,alg,created,kid,published_until,retired_at,state"
K1=$(printf '%s' "$OUT" | jq -r '.[] | select(.alg == "ES256") | .kid')
RSA=$(printf '%s' "$OUT" | jq -r '.[] | select(.alg == "RS256") | .kid')

jwks
check_status "jwks" 200
check_header "jwks cache-control" '^Cache-Control: public, max-age=300'
check_json "jwks: both keys" '.keys | length' 2
check_json "jwks: EC key" ".keys[] | select(.kid == \"$K1\") | [.kty, .crv, .use, .alg,
	(.x | length), (.y | length)] | join(\",\")" "EC,P-256,sig,ES256,43,43"
check_json "jwks: RSA key" ".keys[] | select(.kid == \"$RSA\") | [.kty, .use, .alg, .e,
	(.n | length)] | join(\",\")" "RSA,sig,RS256,AQAB,342"
check_json "jwks: no private members" '[.keys[] | (.d, .p, .q, .dp, .dq, .qi)] | map(select(. != null)) | length' 0
check "key-encryption key file mode" "$(stat -c %a "$TMP/key-encryption.key")" 600
check "key-encryption key file size" "$(stat -c %s "$TMP/key-encryption.key")" 32
# the store's bytes: SQLite's files, or every stored key of PostgreSQL's
if [ "$BACKEND" = postgres ]; then
	db "SELECT encode(private_key, 'hex') FROM signing_keys" | xxd -r -p > "$TMP/store.bytes"
else
	cat "$TMP/edgeauth.db" "$TMP/edgeauth.db-wal" > "$TMP/store.bytes" 2> /dev/null
fi
check "no private key in the store, open" "$(python3 - "$TMP/signing-key.pem" "$TMP/store.bytes" <<'PY'
import subprocess, sys
der = subprocess.run(["openssl", "pkey", "-in", sys.argv[1], "-outform", "DER"],
                     capture_output=True, check=True).stdout
db = open(sys.argv[2], "rb").read()
# (a store read as nearly empty proves nothing: "found")
print("found" if len(db) < 64 or der[-32:] in db or der in db else "absent")
PY
)" absent

# --- before the rotation ---
T1=$(admin_token)
check "token kid: the ES256 key" "$(jwt_kid "$T1")" "$K1"
AUTH="Bearer $T1" req GET "$P/clients"
check_status "old token on the API, before" 200
check "jose before the rotation" "$(jose_verify "$T1")" ok

# --- rotate ES256 while the server runs (activation delay 0) ---
key rotate --alg ES256
check "rotate exit" "$RC" 0
check "rotate: one new key" "$(printf '%s' "$OUT" | jq -r 'map(.alg) | join(",")')" ES256
K2=$(printf '%s' "$OUT" | jq -r '.[0].kid')
check "rotate: a new kid" "$([ -n "$K2" ] && [ "$K2" != "$K1" ] && echo new)" new
check "old key superseded" "$(key_state "$K1")" superseded
check "new key active" "$(key_state "$K2")" active
key list
check "old key published until a bound" "$(printf '%s' "$OUT" | jq -r --arg k "$K1" \
	'.[] | select(.kid == $k) | .published_until != null')" true
check "RSA key untouched" "$(key_state "$RSA")" active
jwks
check_json "jwks: old, new and RSA keys" '[.keys[].kid] | length' 3
check_json "jwks: old key still published" "[.keys[].kid] | index(\"$K1\") != null" true
check_json "jwks: new key published" "[.keys[].kid] | index(\"$K2\") != null" true

AUTH="Bearer $T1" req GET "$P/clients"
check_status "old token on the API, after the rotation" 200
T2=$(admin_token)
check "new token carries the new kid" "$(jwt_kid "$T2")" "$K2"
AUTH="Bearer $T2" req GET "$P/clients"
check_status "new token on the API" 200
check "jose after the rotation: old and new tokens" "$(jose_verify "$T1" "$T2")" "ok ok"

# --- the old key stays published: a logout token it signed lives 120 s ---
# issue26.4: the clock a second past the old token's expiry (unless the
# real one is already there), instead of waiting for it
T1_EXP=$(jwt_claim "$T1" exp)
AHEAD=$(( T1_EXP + 1 - $(date +%s) ))
step +$(( AHEAD > 0 ? AHEAD : 0 ))
AUTH="Bearer $T1" req GET "$P/clients"
check_err "issue26.4: the old key's access token has expired" 401 invalid_authorization_token
jwks
check_json "jwks: the old key outlives its access tokens" "[.keys[].kid] | index(\"$K1\") != null" true
# (its departure: watch_departure, below); here it is retired, superseded
key retire "$K1"
check "a superseded key may be retired" "$RC" 0
check "old key retired in the list" "$(key_state "$K1")" retired
jwks
check_json "jwks: new and RSA keys remain" '[.keys[].kid] | length' 2
T2=$(admin_token)
check "the new key signs" "$(jwt_kid "$T2")" "$K2"
AUTH="Bearer $T2" req GET "$P/clients"
check_status "the new key's tokens work" 200

# --- retire: the last key of an algorithm is refused; a leaked key goes at once ---
key retire "$K2"
check "retire the last ES256 key: exit 1" "$RC" 1
check "retire the last ES256 key: says why" "$(printf '%s' "$ERR" | grep -c 'last ES256 key')" 1
check "it still signs" "$(key_state "$K2")" active
T2=$(admin_token)
AUTH="Bearer $T2" req GET "$P/clients"
check_status "a token of the key to retire, seen once" 200
key rotate --alg ES256
K3=$(printf '%s' "$OUT" | jq -r '.[0].kid')
key retire "$K2"
check "retire exit" "$RC" 0
check "retired in the list" "$(key_state "$K2")" retired
AUTH="Bearer $T2" req GET "$P/clients"
check_err "a retired key's token answers 401 at once" 401 invalid_authorization_token
check "jose refuses it too" "$(jose_verify "$T2")" ERR_JWKS_NO_MATCHING_KEY
jwks
check_json "jwks: retired key gone at once" "[.keys[].kid] | index(\"$K2\") == null" true
T3=$(admin_token)
check "the next key signs" "$(jwt_kid "$T3")" "$K3"
AUTH="Bearer $T3" req GET "$P/clients"
check_status "its token works" 200

# --- rotate without --alg: both algorithms ---
key rotate
check "rotate both: exit" "$RC" 0
check "rotate both: ES256 and RS256" "$(printf '%s' "$OUT" | jq -r 'map(.alg) | sort | join(",")')" \
	"ES256,RS256"

# --- CLI errors ---
key retire no-such-kid
check "retire an unknown kid: exit 1" "$RC" 1
check "retire an unknown kid: says so" "$ERR" "edgeauth: no key no-such-kid"
for args in "" "list extra" "retire" "rotate --alg HS256" "rotate --alg" "rotate ES256" "frobnicate"; do
	# shellcheck disable=SC2086
	key $args
	check "key $args: usage, exit 2" "$RC" 2
done

# --- the old key leaves JWKS once the last token it signed may have expired ---
# Its bound is the new key's activation + the longest lifetime of what a key
# signs (here a logout token's 120 s) + 1 s.
watch_departure "$TMP/departure"
read -r ROTATED T1_EXP GONE STATE < "$TMP/departure"
check "old key left JWKS" "$([ "$GONE" != never ] && echo gone)" gone
check "not before its last token expired" "$([ "$GONE" != never ] && [ "$GONE" -ge "$T1_EXP" ] && echo after)" after
check "not before a logout token's 120 s" \
	"$([ "$GONE" != never ] && [ "$GONE" -ge $((ROTATED + 120)) ] && echo after)" after
check "but soon after" "$([ "$GONE" != never ] && [ "$GONE" -le $((ROTATED + 125)) ] && echo soon)" soon
check "old key expired in the list" "$STATE" expired

# --- the key-encryption key file at start ---
stop_server
# restart: starts the server again on the same files; STARTED is "running"
# or "exit N" when it stopped at start.
restart() {
	$FAKED "$EDGEAUTH" -c "$CONF" serve > "$TMP/restart.out" 2> "$TMP/restart.err" &
	local pid=$!
	for _ in $(seq 1 100); do
		kill -0 "$pid" 2> /dev/null || break
		curl -s -o /dev/null "$BASE/healthz" && break
		sleep 0.05
	done
	if kill -0 "$pid" 2> /dev/null; then
		SERVER_PID=$pid
		STARTED=running
	else
		wait "$pid"
		STARTED="exit $?"
	fi
}
chmod 644 "$TMP/key-encryption.key"
restart
check "a KEK file others can read stops the start" "$STARTED" "exit 1"
check "... naming it" "$(grep -c "key-encryption key file $TMP/key-encryption.key is accessible to others" "$TMP/restart.err")" 1
chmod 600 "$TMP/key-encryption.key"
cp -p "$TMP/key-encryption.key" "$TMP/kek.saved"
head -c 32 /dev/urandom > "$TMP/key-encryption.key"
restart
check "a KEK that does not open the stored keys stops the start" "$STARTED" "exit 1"
check "... naming it" "$(grep -c "does not open with key-encryption key file $TMP/key-encryption.key" "$TMP/restart.err")" 1
key rotate
check "rotate with a wrong KEK: exit 1" "$RC" 1
key list
check "nothing was added" "$(printf '%s' "$OUT" | jq length)" 6
cp -p "$TMP/kek.saved" "$TMP/key-encryption.key"

# --- a signing_key file that differs from every stored key: a warning ---
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$TMP/other.pem" 2> /dev/null
cp "$TMP/signing-key.pem" "$TMP/signing-key.saved"
install -m 600 "$TMP/other.pem" "$TMP/signing-key.pem"
restart
check "starts with another signing_key file" "$STARTED" running
check "... and warns about it" "$(grep -c "signing_key $TMP/signing-key.pem (kid [A-Za-z0-9_-]*) differs from every key in the store; it is ignored" "$TMP/restart.err")" 1
K4=$(key list; printf '%s' "$OUT" | jq -r '[.[] | select(.alg == "ES256" and .state == "active")][0].kid')
check "the store's key signs" "$(jwt_kid "$(admin_token)")" "$K4"
T_BEFORE=$(admin_token)
stop_server

# --- a store without keys imports the signing_key file with its kid ---
# (the upgrade from a store whose keys lived in the file: tokens already out
# stay valid)
install -m 600 "$TMP/signing-key.saved" "$TMP/signing-key.pem"
db "DELETE FROM signing_keys"
restart
check "starts on a store without keys" "$STARTED" running
key list
check "imported: the file's key and a new RSA key" "$(printf '%s' "$OUT" | jq -r '[.[].alg] | sort | join(",")')" \
	"ES256,RS256"
check "imported with the file's kid" "$(printf '%s' "$OUT" | jq -r '.[] | select(.alg == "ES256") | .kid')" "$K1"
check "no warning about the file" "$(grep -c 'differs from every key' "$TMP/restart.err")" 0
T5=$(admin_token)
check "tokens carry the file's kid again" "$(jwt_kid "$T5")" "$K1"
AUTH="Bearer $T_BEFORE" req GET "$P/clients"
check_err "a token of a key no longer in the store fails" 401 invalid_authorization_token
check "no key material in the log" "$(grep -ci 'PRIVATE KEY' "$TMP/server.log" "$TMP/restart.err" | awk -F: '{s += $2} END {print s}')" 0

finish
