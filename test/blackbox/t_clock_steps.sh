# Cut-offs and revocations hold across wall-clock steps (issue 24 items 12
# and 13), under libfaketime: the server and the CLI read their clock as an
# offset from the real one in a file this test rewrites (the monotonic
# clock is left alone, as NTP leaves it). On PostgreSQL the times the
# database writes (deactivations, invalidate-all, codes' and refresh
# tokens' creation) are its own clock, which no step reaches; the tokens'
# iat and exp, and the purge's clock, are the node's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
FAKETIME_LIB=$(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null | head -1)
[ -r "$FAKETIME_LIB" ] || { fail "libfaketime is needed (apt-get install faketime; scripts/install-deps test)"; finish; exit 1; }
CLOCK=$TMP/clock
FAKED="env LD_PRELOAD=$FAKETIME_LIB ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 FAKETIME_TIMESTAMP_FILE=$CLOCK FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1"
step() { echo "$1" > "$CLOCK"; }   # step OFFSET: +N / -N seconds from the real clock

step +0
EDGEAUTH_WRAPPER=$FAKED start_server tokens.purge_interval_s=1
rita_and_app
app_form() { # app_form PATH FORM...: as the app, with Basic
	local path=$1 args=(-s -o "$TMP/body" -w '%{http_code}' -u "$APP:$APP_SECRET"); shift
	for f in "$@"; do args+=(--data-urlencode "$f"); done
	STATUS=$(curl "${args[@]}" "$BASE$path"); BODY=$(< "$TMP/body")
}
active() { app_form /api/v1/tokens/introspect "token=$1"; jq -r .active <<<"$BODY"; }

# --- issue24.12: invalidate-all after the clock went back an hour ---
signed_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
check_status "issue24.12: a sign-in before the step" 200
OLD_ACCESS=$ACCESS OLD_REFRESH=$REFRESH
sign_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"; OLD_CODE=$CODE OLD_VERIFIER=$VERIFIER
OLD_CC=$(client_token "$APP" "$APP_SECRET")
step -3600
$FAKED "$EDGEAUTH" -c "$CONF" invalidate-all > "$TMP/inv.out" 2>&1
check "issue24.12: invalidate-all an hour back" $? 0
# Two seconds on, so that what follows is after the invalidation's second.
# On PostgreSQL the invalidation's time is the database's, which the step
# did not reach: the node comes back to it (a node an hour behind its
# database issues tokens the cut-off refuses until its clock is set right).
if [ "$BACKEND" = postgres ]; then AFTER=+2; else AFTER=-3598; fi
step $AFTER
# and the database's codes must come in a later second of its own clock
[ "$BACKEND" = postgres ] && next_second
AUTH="Bearer $OLD_ACCESS" req GET "$P/users"
check_err "issue24.12: an access token from before the step is refused" 401 invalid_authorization_token
check "issue24.12: and inactive" "$(active "$OLD_ACCESS")" false
AUTH="Bearer $OLD_CC" req GET "$P/users"
check_err "issue24.12: a client_credentials token from before the step is refused" 401 invalid_authorization_token
refresh "$APP" "$OLD_REFRESH"
check_err "issue24.12: a refresh token from before the step is refused" 400 invalid_refresh_token
exchange "$APP" "$REDIRECT" "$OLD_CODE" "$OLD_VERIFIER"
check_err "issue24.12: a code from before the step is refused" 400 invalid_authorization_code
TOKEN=$(admin_token)
signed_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
check_status "issue24.12: a sign-in after the invalidation" 200
AUTH="Bearer $ACCESS" req GET "$P/users"
check_status "issue24.12: its access token works" 200
refresh "$APP" "$REFRESH"
check_status "issue24.12: its refresh token works" 200
AUTH="Bearer $(client_token "$APP" "$APP_SECRET")" req GET "$P/users"
check_err "issue24.12: a new client_credentials token is valid (no permission)" 403 insufficient_permission

# --- issue24.13: a revoked access token, the clock two hours ahead (past
# the token's exp) while the purge runs, then set back ---
REVOKED=$ACCESS
app_form /api/v1/tokens/revoke "token=$REVOKED" token_type_hint=access_token
check "issue24.13: revoke the access token" "$STATUS" 200
check "issue24.13: it is inactive" "$(active "$REVOKED")" false
step +7200
# a witness the purge takes in any clock's view: once it is gone, a purge
# ran with the clock ahead
db "INSERT INTO revoked_tokens (jti, expires_at) VALUES ('witness', 1)" > /dev/null
for _ in $(seq 1 600); do
	[ "$(db "SELECT count(*) FROM revoked_tokens WHERE jti = 'witness'")" = 0 ] && break
	sleep 0.1
done
check "issue24.13: a purge ran while the clock was ahead" \
	"$(db "SELECT count(*) FROM revoked_tokens WHERE jti = 'witness'")" 0
step $AFTER   # NTP sets it back
check "issue24.13: after the clock is set back the revoked token is still inactive" \
	"$(active "$REVOKED")" false
AUTH="Bearer $REVOKED" req GET "$P/users/current"
check_err "issue24.13: and refused" 401 invalid_authorization_token

finish
