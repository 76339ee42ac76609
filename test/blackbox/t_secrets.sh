# Secrets stay secret: a full session (sign-in through the authorize form,
# code exchange, refresh, reuse, client_credentials, client creation, secret
# rotation, BYOU code, password change, both revocation endpoints, failed
# attempts), then no password, client secret, access token, refresh token,
# code or PKCE verifier it used may appear in the server's log, on its stdout
# after the start-up line, in its memory once the session is over, or
# (passwords, secrets, refresh tokens, codes) in plain text in the database;
# the signing key file is mode 0600.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
start_server

SECRETS=()      # name=value: checked in the log, stdout and the database
TOKENS=()       # access tokens: checked in the log and stdout
keep() { SECRETS+=("$1=$2"); }

# --- set-up ---------------------------------------------------------------
keep "admin client secret" "$CLIENT_SECRET"
TOKENS+=("$TOKEN")
EMAIL="secret.user@example.com"
PASSWORD="Pw-$(openssl rand -hex 12)"
keep "password" "$PASSWORD"
reader_user "$EMAIL" "$PASSWORD" Sam
check_json "user record has no password field" 'has("password") or has("password_hash")' false
req POST "$P/users" "{\"display_name\":\"Byou\",\"external_user_id\":\"byou-1\",\"role_id\":\"$ROLE\"}"
check_status "create BYOU user" 201
REDIRECT="https://app.example/cb"
req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"]}"
check_status "create client" 201
APP=$(printf '%s' "$BODY" | jq -r .id)
APP_SECRET=$(printf '%s' "$BODY" | jq -r .client_secret)
keep "created client secret" "$APP_SECRET"

# --- a wrong password and a wrong secret are secrets too ------------------
WRONG_PW="Wrong-$(openssl rand -hex 12)"
keep "wrong password" "$WRONG_PW"
new_pkce
authorize_post "$APP" "$REDIRECT" "$EMAIL" "$WRONG_PW" "st-0"
check_status "sign-in with a wrong password" 401
WRONG_SECRET=$(openssl rand -base64 32 | tr '+/' '-_' | tr -d '=\n')
keep "wrong client secret" "$WRONG_SECRET"
STATUS=$(curl -s -o /dev/null -w '%{http_code}' -u "$APP:$WRONG_SECRET" -d grant_type=client_credentials "$BASE/api/v1/tokens")
check "client_credentials with a wrong secret" "$STATUS" 401

# --- sign-in, exchange, refresh, reuse -------------------------------------
sign_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
check "sign-in redirects with a code" "$([ -n "$CODE" ] && echo yes)" yes
keep "authorization code" "$CODE"
keep "code verifier" "$VERIFIER"
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check_status "code exchange" 200
keep "refresh token 1" "$REFRESH"; TOKENS+=("$ACCESS")
R1=$REFRESH
FIRST_CODE=$CODE; FIRST_VERIFIER=$VERIFIER
refresh "$APP" "$R1"
check_status "refresh" 200
keep "refresh token 4" "$REFRESH"; TOKENS+=("$ACCESS")
R4=$REFRESH
refresh "$APP" "$R1"
check_err "refresh token reuse" 400 refresh_token_already_used
exchange "$APP" "$REDIRECT" "$FIRST_CODE" "$FIRST_VERIFIER"
check_err "code reuse" 400 auth_code_already_used
sign_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
keep "authorization code 2" "$CODE"; keep "code verifier 2" "$VERIFIER"
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check_status "second sign-in" 200
keep "refresh token 2" "$REFRESH"; TOKENS+=("$ACCESS")
R2=$REFRESH
refresh "$APP" "$R2"
check_status "refresh of the second sign-in" 200
keep "refresh token 3" "$REFRESH"; TOKENS+=("$ACCESS")
R3=$REFRESH; USER_ACCESS=$ACCESS

# --- password change through the current user ------------------------------
NEW_PW="New-$(openssl rand -hex 12)"
keep "new password" "$NEW_PW"
# the sign-in's token is of a recent sign-in: it carries auth_time (docs/signin.md §"Recent sign-in")
AUTH="Bearer $USER_ACCESS" req PUT /api/v1/users/current "$(jq -cn --arg e "$EMAIL" --arg p "$NEW_PW" '{display_name:"Sam",email:$e,password:$p}')"
check_status "password change" 200
sign_in "$APP" "$REDIRECT" "$EMAIL" "$NEW_PW"
keep "authorization code 3" "$CODE"; keep "code verifier 3" "$VERIFIER"
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check_status "sign-in with the new password" 200
keep "refresh token 5" "$REFRESH"; TOKENS+=("$ACCESS")

# --- BYOU code -------------------------------------------------------------
new_pkce
req POST "$P/users/external/byou-1/authorization-codes" \
	"{\"client_id\":\"$APP\",\"redirect_uri\":\"$REDIRECT\",\"code_challenge\":\"$CHALLENGE\",\"code_challenge_method\":\"S256\"}"
check_status "BYOU code" 201
BCODE=$(printf '%s' "$BODY" | jq -r .code)
keep "BYOU code" "$BCODE"; keep "BYOU verifier" "$VERIFIER"
exchange "$APP" "$REDIRECT" "$BCODE" "$VERIFIER"
check_status "BYOU exchange" 200
keep "BYOU refresh token" "$REFRESH"; TOKENS+=("$ACCESS")
BYOU_REFRESH=$REFRESH

# --- client_credentials, rotation -------------------------------------------
APP_TOKEN=$(client_token "$APP" "$APP_SECRET")
check "client_credentials for the app" "$([ -n "$APP_TOKEN" ] && [ "$APP_TOKEN" != null ] && echo yes)" yes
TOKENS+=("$APP_TOKEN")
req POST "$P/clients/$APP/secret"
check_status "rotate secret" 200
NEW_SECRET=$(printf '%s' "$BODY" | jq -r .client_secret)
keep "rotated client secret" "$NEW_SECRET"
STATUS=$(curl -s -o /dev/null -w '%{http_code}' -u "$APP:$APP_SECRET" -d grant_type=client_credentials "$BASE/api/v1/tokens")
check "old secret refused after rotation" "$STATUS" 401
APP_TOKEN2=$(client_token "$APP" "$NEW_SECRET")
TOKENS+=("$APP_TOKEN2")
# a confidential client refreshing with Basic
BASIC="$APP:$NEW_SECRET" refresh "$APP" "$BYOU_REFRESH"
check_status "refresh with Basic" 200
keep "refresh token (Basic)" "$REFRESH"; TOKENS+=("$ACCESS")
R_BASIC=$REFRESH

# --- revocation --------------------------------------------------------------
STATUS=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $USER_ACCESS" -H 'Content-Type: application/json' \
	--data-binary "{\"client_id\":\"$APP\",\"refresh_token\":\"$R3\"}" "$BASE/api/v1/tokens/current/revoke")
check "revoke current" "$STATUS" 200
STATUS=$(curl -s -o /dev/null -w '%{http_code}' -u "$APP:$NEW_SECRET" --data-urlencode "token=$R_BASIC" "$BASE/api/v1/tokens/revoke")
check "RFC 7009 revoke of a refresh token" "$STATUS" 200
STATUS=$(curl -s -o /dev/null -w '%{http_code}' -u "$APP:$NEW_SECRET" --data-urlencode "token=$APP_TOKEN2" "$BASE/api/v1/tokens/revoke")
check "RFC 7009 revoke of an access token" "$STATUS" 200
refresh "$APP" "$R3"
check_err "revoked refresh token" 400 invalid_refresh_token
AUTH="Bearer $USER_ACCESS" req PUT /api/v1/users/current "{\"display_name\":\"Sam\",\"email\":\"$EMAIL\"}"
check_err "revoked access token" 401 invalid_authorization_token
# tokens sent where they are wrong must not be echoed into the log either
req GET "$P/roles?search=$R4"
AUTH="Bearer ${R4}" req GET "$P/roles"
check_err "refresh token as a bearer token" 401 invalid_authorization_token
STATUS=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/api/v1/authorize?response_type=code&client_id=$APP&redirect_uri=$REDIRECT&code_challenge=$CHALLENGE&code_challenge_method=S256&state=$R4")
check "authorize page with a token in state" "$STATUS" 200

# --- the checks --------------------------------------------------------------
DB="$TMP/edgeauth.db"
scan() { # scan WHERE FILE KIND ENTRY... (each file scanned must exist)
	local where=$1 file=$2 kind=$3 entry name value n
	shift 3
	for entry in "$@"; do
		name=${entry%%=*}; value=${entry#*=}
		[ -z "$value" ] || [ "$value" == null ] && { fail "$kind '$name' is empty: the session went wrong"; continue; }
		n=$(grep -c -a -F -- "$value" "$file")
		check "$where holds no $name" "$n" 0
	done
}
scan_tokens() { # scan_tokens WHERE FILE
	local i=0 t n
	for t in "${TOKENS[@]}"; do
		i=$((i + 1))
		[ -z "$t" ] || [ "$t" == null ] && { fail "access token $i is empty: the session went wrong"; continue; }
		n=$(grep -c -a -F -- "$t" "$2")
		check "$1 holds no access token $i" "$n" 0
	done
}

# The database while the server runs (the WAL holds the recent writes; on
# PostgreSQL, a dump of every row of the test's database) ...
if [ "$BACKEND" = sqlite ]; then
	scan "database" "$DB" secret "${SECRETS[@]}"
	scan "database WAL" "$DB-wal" secret "${SECRETS[@]}"
	check "database WAL exists (writes went through it)" "$([ -f "$DB-wal" ] && echo yes)" yes
else
	pg_dump -h "$EDGEAUTH_PG_HOST" -p "${EDGEAUTH_PG_PORT:-5432}" -U edgeauth --data-only \
		"$PG_DB" > "$TMP/dump.sql"
	check "database dump holds the users' rows" "$(grep -q -F "$EMAIL" "$TMP/dump.sql" && echo yes)" yes
	scan "database" "$TMP/dump.sql" secret "${SECRETS[@]}"
	scan_tokens "database" "$TMP/dump.sql"
fi

# ... the log and stdout ...
scan "server log" "$TMP/server.log" secret "${SECRETS[@]}"
scan_tokens "server log" "$TMP/server.log"
check "stdout is the one start-up line" "$(wc -l < "$TMP/stdout")" 1
tail -n +2 "$TMP/stdout" > "$TMP/stdout-after"
scan "stdout after start-up" "$TMP/stdout-after" secret "${SECRETS[@]}"
scan_tokens "stdout after start-up" "$TMP/stdout-after"
check "log has a line per request" "$([ "$(grep -c -E '^(GET|POST|PUT) /' "$TMP/server.log")" -ge 30 ] && echo yes)" yes

# ... the server's memory: every buffer that held one of them was wiped
# before it was freed (crypto.h), and nothing holds one any more: the
# session's connections are closed (curl opened one a request) ...
# (issue26.4: by state, not a 0.3 s sleep: the server holds none of them)
no_conns() { [ -z "$(ss -Htn state established state close-wait "( sport = :$PORT )")" ]; }
wait_for no_conns || echo "t_secrets: the server still holds a connection" >&2
i=0
for t in "${TOKENS[@]}"; do i=$((i + 1)); echo "access token $i=$t"; done > "$TMP/memscan.in"
# Refresh token 4 was also sent on purpose where no secret belongs (a search
# term, a state), for the log's sake; a search term is the store engine's to
# keep in its own memory (SQLite's statement values, libpq's buffers), so it
# is left out here.
printf '%s\n' "${SECRETS[@]}" | grep -v '^refresh token 4=' >> "$TMP/memscan.in"
LEFT=$(python3 "$(dirname "$0")/memscan.py" "$SERVER_PID" - < "$TMP/memscan.in")
check "memory scan ran" "$?" 0
check "the server's memory holds none of them" "${LEFT//$'\n'/, }" ""

# ... the key file ...
check "signing key mode" "$(stat -c %a "$TMP/signing-key.pem")" 600

# ... and the database after a clean stop (the WAL checkpointed into it).
stop_server
if [ "$BACKEND" = sqlite ]; then
	scan "database after stop" "$DB" secret "${SECRETS[@]}"
	# A clean stop checkpoints the WAL and SQLite removes it: nothing left to scan.
	check "database WAL gone after stop" "$([ -e "$DB-wal" ] && echo left || echo gone)" gone
fi
scan "server log after stop" "$TMP/server.log" secret "${SECRETS[@]}"
scan_tokens "server log after stop" "$TMP/server.log"

finish
