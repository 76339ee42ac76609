# Access rules per app (docs/signin.md §"Access rules", issue 31): a
# client's allowed_role_ids in its record, who may change it (the twelve
# permissions, as for redirect_uris), the role IDs it takes, and the
# refusal on every path that issues a code: the sign-in form, its second
# step (TOTP), single sign-on (prompt=none too) and BYOU codes; a deleted
# role; refresh tokens issued before the rule; openid-client seeing
# access_denied; each refusal audited (access.denied). Both backends.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/apps_lib.sh"
fake_clock
EDGEAUTH_WRAPPER=$FAKED start_server
rita_and_app
load_resources

# denied_event LABEL USER_ID [N]: N (default 1) more access.denied events
# than before, the newest by the user, of APP, its outcome access_denied
DENIALS=0
denied_event() {
	DENIALS=$((DENIALS + ${3:-1}))
	req GET "$P/events?action=access.denied&page_size=100"   # the clock is frozen: the newest by ID
	check "$1" "$(jq -c '.data|max_by(.id) as $e|[length, $e.actor, $e.target, $e.outcome, $e.address]' <<<"$BODY")" \
		"[$DENIALS,\"$2\",\"$APP\",\"access_denied\",\"127.0.0.1\"]"
}
set_rule() {   # set_rule JSON_LIST: APP's allowed_role_ids, as the admin
	req PUT "$P/clients/$APP" "{\"name\":\"app\",\"is_active\":true,\"allowed_role_ids\":$1}"
	check_status "issue31.1: set allowed_role_ids $1" 200
}

########## the record ##########
req GET "$P/clients/$APP"
check_json "issue31.1: a client lets everyone in by default" '.allowed_role_ids|tostring' '[]'
check_json "issue31.1: the record's keys" 'keys_unsorted|join(",")' \
	'id,name,description,is_active,permission_ids,redirect_uris,post_logout_redirect_uris,backchannel_logout_uri,token_endpoint_auth_method,id_token_signed_response_alg,forward_auth_urls,device_flow,allowed_role_ids,consent_required,created_at,updated_at'
req POST "$P/roles" '{"code":"operator","name":"Operator","permission_ids":[]}'
check_status "issue31.1: a second role" 201
ROLE2=$(jq -r .id <<<"$BODY")
req POST "$P/clients" "{\"name\":\"ruled\",\"allowed_role_ids\":[\"$ROLE2\",\"$ROLE2\"]}"
check_status "issue31.1: a create with allowed_role_ids" 201
check_json "issue31.1: ... duplicates dropped" '.allowed_role_ids|tostring' "[\"$ROLE2\"]"
RULED=$(jq -r .id <<<"$BODY")
req GET "$P/clients?search=ruled"
check_json "issue31.1: the list shows it" '.data[0].allowed_role_ids|tostring' "[\"$ROLE2\"]"

########## what it takes ##########
for bad in '"x"' '{}' '[1]' '[""]' '["no-such-role"]' "[\"$ROLE\",\"no-such-role\"]"; do
	req PUT "$P/clients/$APP" "{\"name\":\"app\",\"is_active\":true,\"allowed_role_ids\":$bad}"
	check_err "issue31.1: allowed_role_ids $bad" 400 invalid_params
done
req POST "$P/clients" '{"name":"bad","allowed_role_ids":["no-such-role"]}'
check_err "issue31.1: a create naming no role of the project" 400 invalid_params
check_json "issue31.1: ... says why" .error_description "allowed_role_ids names a role that is not of the project"
req GET "$P/clients?search=bad"
check_json "issue31.1: ... and writes nothing" .total 0
req GET "$P/clients/$APP"
check_json "issue31.1: refused writes change nothing" '.allowed_role_ids|tostring' '[]'
# a role of another project
NP=$("$EDGEAUTH" -c "$CONF" project create --name other 2> /dev/null)
OTHER=$(jq -r .project_id <<<"$NP")
TOKEN=$(client_token "$(jq -r .client_id <<<"$NP")" "$(jq -r .client_secret <<<"$NP")") \
	req POST "/api/v1/projects/$OTHER/roles" '{"code":"theirs","name":"Theirs"}'
check_status "a role of another project" 201
THEIRS=$(jq -r .id <<<"$BODY")
req PUT "$P/clients/$APP" "{\"name\":\"app\",\"is_active\":true,\"allowed_role_ids\":[\"$THEIRS\"]}"
check_err "issue31.1: a role of another project" 400 invalid_params

########## who may change it: the twelve permissions ##########
new_client updater clients:update clients:read clients:create
UPD=$(client_token "$CID" "$CSECRET")
expect "Bearer $UPD" "403 insufficient_permission" "issue31.1: clients:update alone cannot set allowed_role_ids" \
	PUT "$P/clients/$APP" "{\"name\":\"app\",\"is_active\":true,\"allowed_role_ids\":[\"$ROLE2\"]}"
expect "Bearer $UPD" "403 insufficient_permission" "issue31.1: nor clear it" \
	PUT "$P/clients/$RULED" '{"name":"ruled","is_active":true,"allowed_role_ids":[]}'
expect "Bearer $UPD" "403 insufficient_permission" "issue31.1: nor create a client with one" \
	POST "$P/clients" "{\"name\":\"sneaky\",\"allowed_role_ids\":[\"$ROLE\"]}"
req GET "$P/clients/$RULED"
check_json "issue31.1: refused: the rule is unchanged" '.allowed_role_ids|tostring' "[\"$ROLE2\"]"
req GET "$P/clients?search=sneaky"
check_json "issue31.1: refused: no client created" .total 0
expect "Bearer $UPD" 200 "issue31.1: the same list carried back is no change" \
	PUT "$P/clients/$RULED" "{\"name\":\"ruled 2\",\"is_active\":true,\"allowed_role_ids\":[\"$ROLE2\"]}"
expect "Bearer $UPD" 200 "issue31.1: a PUT without it keeps it" \
	PUT "$P/clients/$RULED" '{"name":"ruled 3","is_active":true}'
check_json "issue31.1: ... kept" '.allowed_role_ids|tostring' "[\"$ROLE2\"]"

########## the form ##########
set_rule "[\"$ROLE2\"]"
JAR=$TMP/jar
new_pkce
JAR=$JAR authorize_post "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD" "st-1"
redirected_error "issue31.1: the form: a role not allowed gets access_denied" st-1 access_denied
check "issue31.1: no code of the refusal was stored" "$(db "SELECT count(*) FROM auth_codes WHERE user_id = '$USER'")" 0
denied_event "issue31.1: the form's refusal is audited (access.denied: the user, the app)" "$USER"
check "issue31.1: the session goes on (signed in to the project)" \
	"$(grep -c "edgeauth_$PROJECT_ID" "$JAR")" 1
########## single sign-on ##########
JAR=$JAR authorize_get "$APP" "$REDIRECT"
redirected_error "issue31.1: SSO: access_denied" st-g access_denied
JAR=$JAR authorize_get "$APP" "$REDIRECT" prompt=none
redirected_error "issue31.1: SSO with prompt=none: access_denied, not login_required" st-g access_denied
JAR= authorize_get "$APP" "$REDIRECT" prompt=none
redirected_error "issue31.1: prompt=none without a session is still login_required" st-g login_required
denied_event "issue31.1: SSO's two refusals are audited, the login_required is not" "$USER" 2
set_rule "[\"$ROLE2\",\"$ROLE\"]"
JAR=$JAR authorize_get "$APP" "$REDIRECT"
check "issue31.1: SSO once the role is allowed: a code" "$STATUS $([ -n "$CODE" ] && echo code)" "302 code"
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check_status "issue31.1: the code is good" 200
OLD_REFRESH=$REFRESH
signed_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
check_status "issue31.1: the form once the role is allowed" 200

########## refresh tokens of before the rule ##########
# docs/decisions.md "Access rules and issued tokens": a rule judges sign-ins;
# tokens issued before it live on, as at the big servers.
set_rule "[\"$ROLE2\"]"
refresh "$APP" "$OLD_REFRESH"
check_status "issue31.1: a refresh token of before the rule still refreshes" 200

########## a user without a role ##########
req POST "$P/users" '{"display_name":"Nora","email":"nora@example.com","password":"nora has no role"}'
check_status "a user without a role" 201
NORA=$(jq -r .id <<<"$BODY")
new_pkce
authorize_post "$APP" "$REDIRECT" nora@example.com "nora has no role" "st-n"
redirected_error "issue31.1: a user without a role is not let in by a rule" st-n access_denied
denied_event "issue31.1: ... audited" "$NORA"
set_rule '[]'
sign_in "$APP" "$REDIRECT" nora@example.com "nora has no role"
check "issue31.1: ... and is by [] (everyone)" "$([ -n "$CODE" ] && echo code)" code

########## BYOU codes ##########
req POST "$P/users" "{\"display_name\":\"Ext\",\"external_user_id\":\"ext-1\",\"role_id\":\"$ROLE\"}"
check_status "a BYOU user" 201
EXT=$(jq -r .id <<<"$BODY")
set_rule "[\"$ROLE2\"]"
byou_code ext-1 "$APP" "$REDIRECT"
check_err "issue31.1: BYOU code for a role not allowed" 400 invalid_params
check "issue31.1: ... and no code" "$CODE" ""
denied_event "issue31.1: the BYOU refusal is audited" "$EXT"
set_rule "[\"$ROLE\"]"
byou_code ext-1 "$APP" "$REDIRECT"
check_status "issue31.1: BYOU code once allowed" 201

########## the second factor's step ##########
command -v oathtool > /dev/null || { fail "oathtool is needed (scripts/install-deps test)"; finish; exit 1; }
enroll_totp() {   # as t_totp.sh: a confirmed factor with a new secret (SECRET, base32)
	SECRET=$(python3 - "$1" "$TMP/key-encryption.key" <<'PY'
import base64, os, sys
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
user, kek = sys.argv[1], open(sys.argv[2], "rb").read()
secret, nonce = os.urandom(20), os.urandom(12)
sealed = nonce + AESGCM(kek).encrypt(nonce, secret, ("totp:" + user).encode())
print(base64.b32encode(secret).decode(), base64.urlsafe_b64encode(sealed).rstrip(b"=").decode())
PY
)
	db "INSERT INTO user_factors (user_id, kind, secret, created_at, confirmed_at)
	    VALUES ('$1', 'totp', '${SECRET#* }', 1, 2)" > /dev/null
	SECRET=${SECRET%% *}
}
T0=$(( ($(date +%s) / 30 + 10) * 30 + 5 ))
freeze "$T0"
enroll_totp "$USER"
set_rule "[\"$ROLE2\"]"
new_pkce
authorize_post "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD" "st-2"
check "issue31.1: a right password asks for the code" "$STATUS" 200
TOK=$(printf '%s' "$BODY" | sed -n 's/.*name="factor_token" value="\([^"]*\)".*/\1/p')
authorize_post "$APP" "$REDIRECT" "" "" "st-2" "factor_token=$TOK" "otp=$(oathtool --totp -b "$SECRET" --now "@$T0")"
redirected_error "issue31.1: the second step: access_denied" st-2 access_denied
denied_event "issue31.1: ... audited" "$USER"

########## a deleted role ##########
# docs/decisions.md "A deleted role in an access rule": its ID stays, matching no one
set_rule "[\"$ROLE2\"]"
req DELETE "$P/roles/$ROLE2"
check_status "delete the allowed role" 204
req GET "$P/clients/$APP"
check_json "issue31.1: a deleted role's ID stays in the rule" '.allowed_role_ids|tostring' "[\"$ROLE2\"]"
req PUT "$P/clients/$APP" "$(jq -c . <<<"$BODY")"
check_status "issue31.1: the record carried back, deleted role and all" 200
req POST "$P/clients" "{\"name\":\"late\",\"allowed_role_ids\":[\"$ROLE2\"]}"
check_err "issue31.1: ... but no other client may take it up" 400 invalid_params
step +0
JAR=$TMP/jar3 authorize_get "$APP" "$REDIRECT"
new_pkce
authorize_post "$APP" "$REDIRECT" nora@example.com "nora has no role" "st-d"
redirected_error "issue31.1: a rule of deleted roles lets no one in" st-d access_denied
denied_event "issue31.1: ... audited" "$NORA"
req GET "$P/events"
check "issue31.1: no event holds a password" \
	"$(grep -Fc -e "$PASSWORD" -e "nora has no role" <<<"$BODY")" 0

########## a real client sees access_denied ##########
if command -v node > /dev/null; then
	need_node_project "$ROOT/test/oauth-client" openid-client
	db "DELETE FROM user_factors WHERE user_id = '$USER'" > /dev/null   # the form alone
	APP_URL="http://127.0.0.1:$(free_port)"
	req POST "$P/clients" "{\"name\":\"ruled openid-client app\",\"redirect_uris\":[\"$APP_URL/callback\"],\"token_endpoint_auth_method\":\"client_secret_basic\"}"
	check_status "issue31.1: register an openid-client app" 201
	CID=$(jq -r .id <<<"$BODY"); CSECRET=$(jq -r .client_secret <<<"$BODY")
	req POST "$P/roles" '{"code":"nobody","name":"Nobody"}'
	NOBODY=$(jq -r .id <<<"$BODY")
	req PUT "$P/clients/$CID" "{\"name\":\"ruled openid-client app\",\"is_active\":true,\"allowed_role_ids\":[\"$NOBODY\"]}"
	check_status "issue31.1: the app lets in only role nobody" 200
	EDIT='s/sign-in failed: ${err.message}/sign-in failed: ${err.error} ${err.message}/' \
		run_recipe node openid-client.mjs ISSUER="$BASE" CLIENT_ID="$CID" CLIENT_SECRET="$CSECRET" APP_URL="$APP_URL"
	check "issue31.1: openid-client app starts" "$?" 0
	ua_browse "$APP_URL/login" "$EMAIL" "$PASSWORD"
	check "issue31.1: openid-client sees access_denied (its state and iss checked)" \
		"$STATUS $(grep -o 'sign-in failed: [a-z_]*' <<<"$BODY")" "500 sign-in failed: access_denied"
	stop_app
else
	missing_tool "node (Debian's nodejs)"
fi
finish
