# Deactivation ends tokens for good (docs/tokens.md §"Bearer check"): after a user, client or
# project is reactivated, the access tokens, refresh tokens and codes issued
# before its deactivation stay dead; new ones work.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
start_server

rita_and_app

# A sign-in's tokens and a code not yet redeemed, all issued before.
signed_in() { # sets ACCESS, REFRESH and a fresh unredeemed CODE2/VERIFIER2
	sign_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"; exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
	check_status "$1: sign-in" 200
	sign_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"; CODE2=$CODE; VERIFIER2=$VERIFIER
}
# The deactivation's own second counts as before it (iat is in seconds):
# lib.sh's next_second waits for a later one.
all_dead() { # all_dead LABEL: the tokens from signed_in are refused
	AUTH="Bearer $ACCESS" req GET "$P/users"
	check_err "$1: old access token" 401 invalid_authorization_token
	refresh "$APP" "$REFRESH"
	check_err "$1: old refresh token" 400 invalid_refresh_token
	exchange "$APP" "$REDIRECT" "$CODE2" "$VERIFIER2"
	check_err "$1: old code" 400 invalid_authorization_code
}
fresh_works() {
	sign_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"; exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
	check_status "$1: a new sign-in" 200
	AUTH="Bearer $ACCESS" req GET "$P/users"
	check_status "$1: its access token" 200
	refresh "$APP" "$REFRESH"
	check_status "$1: its refresh token" 200
}

# --- a user ---
signed_in user
AUTH="Bearer $ACCESS" req GET "$P/users"
check_status "user token works before" 200
req PUT "$P/users/$USER" "$(jq -cn --arg e "$EMAIL" '{display_name:"Rita",is_active:false,email:$e}')"
check_status "deactivate user" 200
req PUT "$P/users/$USER" "$(jq -cn --arg e "$EMAIL" '{display_name:"Rita",is_active:true,email:$e}')"
check_status "reactivate user" 200
all_dead "user reactivated"
# a browser's sign-in now may fall in the deactivation's second, whose
# session then gives nothing (issue33.2); a later sign-in in the same
# browser continues that session and revives it
JAR=$TMP/jar.user sign_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
next_second
fresh_works "user reactivated"
JAR=$TMP/jar.user sign_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
JAR=$TMP/jar.user authorize_get "$APP" "$REDIRECT" prompt=none
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check_status "issue33.2: user reactivated: a later sign-in's session signs in silently" 200
# an update that leaves the user active ends nothing
signed_in "user renamed"
req PUT "$P/users/$USER" "$(jq -cn --arg e "$EMAIL" '{display_name:"Rita R",is_active:true,email:$e}')"
AUTH="Bearer $ACCESS" req GET "$P/users"
check_status "a rename keeps the user's token" 200

# --- a client: its user tokens and its client_credentials tokens ---
signed_in client
CC=$(client_token "$APP" "$APP_SECRET")
AUTH="Bearer $CC" req GET "$P/users"
check_err "the app's own token works (no permission)" 403 insufficient_permission
req PUT "$P/clients/$APP" '{"name":"app","is_active":false}'
check_status "deactivate client" 200
req PUT "$P/clients/$APP" '{"name":"app","is_active":true}'
check_status "reactivate client" 200
all_dead "client reactivated"
AUTH="Bearer $CC" req GET "$P/users"
check_err "client reactivated: old client_credentials token" 401 invalid_authorization_token
next_second
fresh_works "client reactivated"
CC=$(client_token "$APP" "$APP_SECRET")
AUTH="Bearer $CC" req GET "$P/users"
check_err "client reactivated: a new client_credentials token" 403 insufficient_permission

# --- the project (CLI), with the admin token too ---
signed_in project
ADMIN_BEFORE=$TOKEN
"$EDGEAUTH" -c "$CONF" project deactivate "$PROJECT_ID"
check "project deactivate" $? 0
"$EDGEAUTH" -c "$CONF" project activate "$PROJECT_ID"
check "project activate" $? 0
all_dead "project reactivated"
AUTH="Bearer $ADMIN_BEFORE" req GET "$P/users"
check_err "project reactivated: old admin token" 401 invalid_authorization_token
next_second
TOKEN=$(admin_token)
req GET "$P/users"
check_status "project reactivated: a new admin token" 200
fresh_works "project reactivated"

finish
