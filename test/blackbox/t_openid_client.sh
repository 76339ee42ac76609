# A certified OpenID Connect relying-party library works against edgeauth
# with its defaults (issue 13): openid-client (pinned in
# test/oauth-client/package-lock.json) runs test/oauth-client/oidc_flow.mjs
# for a public client and two confidential ones (client_secret_basic and
# client_secret_post) of one project: discovery, code + PKCE + nonce with
# the library's ID token checks (signature against JWKS, iss, aud, exp,
# nonce; at_hash checked beside it), single sign-on for the second and third
# client, UserInfo with its sub check, refresh with a new ID token,
# introspection, RP-initiated logout followed back to the app with state,
# back-channel logout tokens verified with jose, and after the logout the
# session's tokens revoked and prompt=none answered login_required.
# Needs node and npm (scripts/install-deps test).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
CLIENT_DIR=$ROOT/test/oauth-client
NAMES="public basic post es256"
STEPS="sso_one_session userinfo_wrong_sub_refused logout logout_revoked_tokens logout_ended_session"
for n in $NAMES; do
	STEPS+=" discovery_$n authorization_code_$n id_token_$n userinfo_$n refresh_$n backchannel_$n"
done
STEPS+=" introspection_basic introspection_post revocation_es256"

need_node_project "$CLIENT_DIR" openid-client

start_server

# --- set-up: a user with a role, three clients whose URIs are the app's
# listener that oidc_flow.mjs runs on APP_PORT ---
EMAIL="oidc-user@example.com"
PASSWORD='correct horse battery stäple'
reader_user "$EMAIL" "$PASSWORD" "OIDC User"
APP_PORT=$(free_port)
APP="http://127.0.0.1:$APP_PORT"
declare -A ID SECRET
for n in $NAMES; do
	method=client_secret_$n
	alg=RS256
	case $n in public) method=none ;; es256) method=none alg=ES256 ;; esac
	req POST "$P/clients" "$(jq -cn --arg n "$n" --arg app "$APP" --arg m "$method" --arg alg "$alg" \
		'{name: "app \($n)", redirect_uris: ["\($app)/cb/\($n)"],
		  post_logout_redirect_uris: ["\($app)/out/\($n)"],
		  backchannel_logout_uri: "\($app)/bc/\($n)", token_endpoint_auth_method: $m,
		  id_token_signed_response_alg: $alg}')"
	check_status "create client $n" 201
	ID[$n]=$(jq -r .id <<<"$BODY")
	SECRET[$n]=$(jq -r '.client_secret // empty' <<<"$BODY")
done

# --- the library's flows ---
OUT=$(cd "$CLIENT_DIR" && BASE=$BASE PORT=$APP_PORT USER_EMAIL=$EMAIL USER_PASSWORD=$PASSWORD \
	USER_ID=$USER PUBLIC_ID=${ID[public]} BASIC_ID=${ID[basic]} BASIC_SECRET=${SECRET[basic]} \
	POST_ID=${ID[post]} POST_SECRET=${SECRET[post]} ES256_ID=${ID[es256]} timeout 60 node oidc_flow.mjs 2>&1)
RC=$?
# SHOW_FLOW=1 prints the library run's own output
[ -n "${SHOW_FLOW:-}" ] && printf '%s\n' "$OUT" >&2
check_steps openid-client oidc_flow.mjs "$RC" "$OUT" $STEPS

finish
