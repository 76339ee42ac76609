# Consent for third-party apps (docs/signin.md §"Consent", issue 31): a
# client's consent_required in its record and who may change it (the twelve
# permissions); the page after the form and on single sign-on (the app's
# name, the scopes, Allow / Deny, a form token bound to the sign-in, the
# Origin check, the sign-in page's CSP); Deny is access_denied, Allow is
# remembered per user, client and set of scopes; a wider set and
# prompt=consent ask again; prompt=none without consent is
# consent_required; BYOU codes are not asked; the account page lists the
# remembered consents and revokes one (its form token, the app's refresh
# and access tokens end), and Allow, Deny and revocations are audited. Both
# backends; the store's side of revocation is check_store_conform_access's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
start_server
rita_and_app
load_resources

unescape_html() {
	sed -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&quot;/"/g' -e "s/&#39;/'/g" -e "s/&#x27;/'/g" -e 's/&amp;/\&/g'
}
# is_consent_page: the last answer is the consent page
is_consent_page() { [ "$STATUS" = 200 ] && grep -q 'name="consent_token"' <<<"$BODY"; }
# answer ANSWER [TOKEN]: posts the page's form (BODY) with consent=ANSWER
# (TOKEN replaces its consent_token); JAR and ORIGIN as authorize_post's.
# (BODY=... answer: bash gives BODY back its old value after the call; the
# answer's body is $TMP/body.)
answer() {
	local form=(-s -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}' -b "$JAR" -c "$JAR"
		${ORIGIN:+-H "Origin: $ORIGIN"} --data-urlencode "consent=$1") field
	while IFS= read -r field; do
		[ -n "${2:-}" ] && [ "${field%%=*}" = consent_token ] && field="consent_token=$2"
		form+=(--data-urlencode "$field")
	done < <(grep -o '<input type="hidden" name="[^"]*" value="[^"]*">' <<<"$BODY" |
		sed -E 's/.*name="([^"]*)" value="([^"]*)".*/\1=\2/' | unescape_html)
	STATUS=$(curl "${form[@]}" "$BASE/api/v1/authorize")
	BODY=$(< "$TMP/body"); HDRS=$(< "$TMP/hdrs")
	LOCATION=$(printf '%s' "$HDRS" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
	CODE=$(query_value "$LOCATION" code)
}
token_of() { sed -n 's/.*name="consent_token" value="\([^"]*\)".*/\1/p' <<<"$BODY"; }

########## the field, and who may change it ##########
req GET "$P/clients/$APP"
check_json "issue31.2: a client asks for no consent by default" .consent_required false
new_client updater clients:update clients:read clients:create
UPD=$(client_token "$CID" "$CSECRET")
expect "Bearer $UPD" "403 insufficient_permission" "issue31.2: clients:update alone cannot turn consent on" \
	PUT "$P/clients/$APP" '{"name":"app","is_active":true,"consent_required":true}'
expect "Bearer $UPD" "403 insufficient_permission" "issue31.2: nor create a client with it" \
	POST "$P/clients" '{"name":"third","consent_required":true}'
expect "Bearer $UPD" 200 "issue31.2: the same value carried back is no change" \
	PUT "$P/clients/$APP" '{"name":"app","is_active":true,"consent_required":false}'
for bad in '"true"' 1 null '[]'; do
	req PUT "$P/clients/$APP" "{\"name\":\"app\",\"is_active\":true,\"consent_required\":$bad}"
	check_err "issue31.2: consent_required $bad" 400 invalid_params
done
req PUT "$P/clients/$APP" '{"name":"app","is_active":true,"consent_required":true}'
check_status "issue31.2: the admin turns consent on" 200
check_json "issue31.2: ... in the record" .consent_required true
expect "Bearer $UPD" "403 insufficient_permission" "issue31.2: clients:update alone cannot turn it off" \
	PUT "$P/clients/$APP" '{"name":"app","is_active":true,"consent_required":false}'
req GET "$P/clients/$APP"
check_json "issue31.2: refused: unchanged" .consent_required true

########## the page after the form ##########
JAR=$TMP/jar
new_pkce
JAR=$JAR authorize_post "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD" "st-1" "scope=openid profile"
check "issue31.2: after the form, the consent page" "$(is_consent_page && echo page)" page
check "issue31.2: ... naming the app" "$(grep -c '<h1>Allow app?</h1>' <<<"$BODY")" 1
check "issue31.2: ... listing the scopes" "$(grep -o 'data-scope="[a-z]*"' <<<"$BODY" | tr '\n' ' ')" 'data-scope="openid" data-scope="profile" '
check "issue31.2: ... and the user's named permissions" "$(grep -o 'data-permission="[a-z:]*"' <<<"$BODY" | tr '\n' ' ')" 'data-permission="users:read" '
check "issue31.2: ... and no code yet" "$LOCATION" ""
check_header "issue31.2: the page has the sign-in page's CSP" "^Content-Security-Policy: default-src 'none'"
check "issue31.2: the sign-in stands (the session cookie)" "$(grep -c "edgeauth_$PROJECT_ID" "$JAR")" 1
PAGE=$BODY
ORIGIN=http://evil.example answer allow
check "issue31.2: an Allow from another site starts nothing" "$STATUS $LOCATION" "403 "
BODY=$PAGE answer allow "$(BODY=$PAGE token_of | tr 'A-Za-z' 'N-ZA-Mn-za-m')"
check "issue31.2: a forged form token: the sign-in again" "$STATUS $(grep -c 'name="password"' "$TMP/body")" "401 1"
TOKEN_ONE=$(BODY=$PAGE token_of)
BODY=$PAGE answer deny "$(BODY=$PAGE token_of | tr 'A-Za-z' 'N-ZA-Mn-za-m')"
check "a Deny with a forged form token: the sign-in again" "$STATUS $(grep -c 'name="password"' "$TMP/body")" "401 1"
req GET "$P/events?action=consent.deny"
check "... and recorded nothing" "$(jq .total <<<"$BODY")" 0
BODY=$PAGE answer deny
redirected_error "issue31.2: Deny is access_denied" st-1 access_denied
req GET "$P/events?action=consent.deny"
check "a Deny is audited: consent.deny, by the user, of the app, access_denied" \
	"$(jq -c '[.total, ([.data[]|[.actor, .target, .outcome, .address]]|unique)]' <<<"$BODY")" \
	"[1,[[\"$USER\",\"$APP\",\"access_denied\",\"127.0.0.1\"]]]"
check "... holding neither the form token nor the password" \
	"$(! grep -Fq -- "$TOKEN_ONE" <<<"$BODY" && ! grep -Fq -- "$PASSWORD" <<<"$BODY" && echo none)" none

########## Allow is remembered ##########
new_pkce
JAR=$JAR authorize_post "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD" "st-2" "scope=openid profile"
check "issue31.2: asked again after a Deny" "$(is_consent_page && echo page)" page
PAGE=$BODY
BODY=$PAGE answer allow "$TOKEN_ONE"
check "issue31.2: a token of another request is refused" "$STATUS" 401
BODY=$PAGE answer deny "$TOKEN_ONE"
check "a Deny with a token of another request is refused" "$STATUS" 401
BODY=$PAGE answer allow
check "issue31.2: Allow: the code" "$STATUS ${LOCATION%%\?*} $(query_value "$LOCATION" state) $([ -n "$CODE" ] && echo code)" "302 $REDIRECT st-2 code"
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check_status "issue31.2: the code is good" 200
JAR=$JAR authorize_get "$APP" "$REDIRECT" "scope=openid profile"
check "issue31.2: SSO within the allowed scopes: no page" "$STATUS $([ -n "$CODE" ] && echo code)" "302 code"
JAR=$JAR authorize_get "$APP" "$REDIRECT" "scope=openid"
check "issue31.2: a narrower set: no page" "$STATUS $([ -n "$CODE" ] && echo code)" "302 code"
JAR=$JAR authorize_get "$APP" "$REDIRECT" "scope=openid profile" prompt=consent
check "issue31.2: prompt=consent asks again" "$(is_consent_page && echo page)" page
BODY=$BODY answer allow
check "issue31.2: ... and its Allow gives the code (not the page again)" "$STATUS $([ -n "$CODE" ] && echo code)" "302 code"
JAR=$JAR authorize_get "$APP" "$REDIRECT" "scope=openid profile email" prompt=none
redirected_error "issue31.2: prompt=none and a wider set: consent_required" st-g consent_required
JAR=$JAR authorize_get "$APP" "$REDIRECT" "scope=openid profile email"
check "issue31.2: a wider set asks again (SSO)" "$(is_consent_page && echo page)" page
check "issue31.2: ... listing it" "$(grep -o 'data-scope="[a-z]*"' <<<"$BODY" | tr '\n' ' ')" 'data-scope="openid" data-scope="profile" data-scope="email" '
BODY=$BODY answer allow
check "issue31.2: its Allow" "$STATUS $([ -n "$CODE" ] && echo code)" "302 code"
JAR=$JAR authorize_get "$APP" "$REDIRECT" "scope=openid email" prompt=none
check "issue31.2: the widened set is remembered" "$STATUS $([ -n "$CODE" ] && echo code)" "302 code"
check "issue31.2: one row per user and client" \
	"$(db "SELECT scopes FROM consents WHERE user_id = '$USER' AND client_id = '$APP'")" "openid profile email"

########## Allow is audited ##########
req GET "$P/events?action=consent.grant"
check "issue31.2: each Allow is audited: consent.grant, by the user, of the app" \
	"$(jq -c '[.total, ([.data[]|[.actor, .target, .outcome, .address]]|unique)]' <<<"$BODY")" \
	"[3,[[\"$USER\",\"$APP\",\"success\",\"127.0.0.1\"]]]"
req GET "$P/events?action=consent.revoke"
check "issue31.2: nothing revoked yet" "$(jq .total <<<"$BODY")" 0
req GET "$P/events?action=consent.deny"
check "the Allows and the refused Denies recorded no consent.deny" "$(jq .total <<<"$BODY")" 1

########## the account page lists and revokes ##########
. "$(dirname "$0")/console_lib.sh"
ACCOUNT="/account?project_id=$PROJECT_ID"
ENC_ID=$(jq -rn --arg v "$PROJECT_ID" '$v|@uri')
REVOKE="/account/consents/revoke?project_id=$ENC_ID"
WHO_JAR=$TMP/account_jar
STATUS=$(curl -s -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}' -b "$WHO_JAR" -c "$WHO_JAR" \
	-H "Origin: $BASE" --data-urlencode response_type=code --data-urlencode "client_id=$CONSOLE" \
	--data-urlencode "redirect_uri=$BASE$ACCOUNT" --data-urlencode "email=$EMAIL" \
	--data-urlencode "password=$PASSWORD" "$BASE/api/v1/authorize")
check "issue31.2: signed in to the account page" "$STATUS" 302
req PUT "$P/clients/$APP" '{"name":"<i>app</i>","is_active":true}'
check_status "issue31.2: the app's name, to be escaped" 200
apage "$ACCOUNT"
check_status "issue31.2: the account page" 200
has "issue31.2: the page lists the apps allowed" "<caption>Apps you allowed</caption>"
has "issue31.2: ... the app's name, escaped" "<td>&lt;i&gt;app&lt;/i&gt;</td>"
has "issue31.2: ... the scopes" "<td>openid profile email</td>"
check "issue31.2: ... when" "$(grep -Ec '<td>openid profile email</td><td>20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z</td>' <<<"$BODY")" 1
has "issue31.2: ... and a form that revokes" "action=\"$REVOKE\""
has "issue31.2: ... choosing the app" "<option value=\"$APP\">"
TOK=$(form_token)
refresh "$APP" "$REFRESH"
check_status "issue31.2: the app's refresh token works before the revocation" 200
APP_REFRESH=$REFRESH APP_ACCESS=$ACCESS
AUTH="Bearer $APP_ACCESS" req GET /api/v1/userinfo
check_status "issue31.2: ... and its access token" 200
TOKEN_F=none apost "$REVOKE" "client_id=$APP"
check_status "issue31.2: a revocation without the form token: 403" 403
ORIGIN_H=http://evil.example apost "$REVOKE" "client_id=$APP"
check_status "issue31.2: from another Origin: 403" 403
check "issue31.2: refused posts revoked nothing" \
	"$(db "SELECT count(*) FROM consents WHERE user_id = '$USER'")" 1
apost "$REVOKE" "client_id="
check_status "issue31.2: no client_id: 400" 400
apost "$REVOKE" "client_id=$CONSOLE"
check_status "issue31.2: an app she never allowed: 404" 404
apost "$REVOKE" "client_id=$APP"
check_status "issue31.2: the revocation" 302
check "issue31.2: back to the page" "$(location)" "$ACCOUNT"
apage "$ACCOUNT"
lacks "issue31.2: the app is no longer listed" "<caption>Apps you allowed</caption>"
refresh "$APP" "$APP_REFRESH"
check_err "issue31.2: revoking ended the app's refresh tokens of the user" 400 invalid_refresh_token
AUTH="Bearer $APP_ACCESS" req GET /api/v1/userinfo
check_status "issue31.2: ... and their access tokens" 401
req GET "$P/events?action=consent.revoke"
check "issue31.2: the revocation is audited: consent.revoke, by the user, of the app" \
	"$(jq -c '[.total, .data[0].actor, .data[0].target, .data[0].outcome]' <<<"$BODY")" \
	"[1,\"$USER\",\"$APP\",\"success\"]"
apost "$REVOKE" "client_id=$APP"
check_status "issue31.2: revoking again: 404" 404
req GET "$P/events?action=consent.revoke"
check "issue31.2: ... and recorded nothing" "$(jq .total <<<"$BODY")" 1
JAR=$JAR authorize_get "$APP" "$REDIRECT" "scope=openid"
check "issue31.2: the next sign-in to the app asks again" "$(is_consent_page && echo page)" page
req GET "$P/events"
no_secret_in() { ! grep -Fq -- "$1" <<<"$BODY"; }
check "issue31.2: no event holds a token" \
	"$(no_secret_in "$APP_REFRESH" && no_secret_in "$APP_ACCESS" && no_secret_in "$PASSWORD" && echo none)" none

########## a session of another user cannot use the token ##########
JAR=$TMP/jar-b authorize_get "$APP" "$REDIRECT" "scope=openid profile" prompt=consent
check "issue31.2: no session: prompt=consent shows the form" "$(grep -c 'name="password"' <<<"$BODY")" 1
JAR=$JAR authorize_get "$APP" "$REDIRECT" "scope=openid profile" prompt=consent
PAGE=$BODY
JAR=$TMP/jar-b BODY=$PAGE answer allow
redirected_error "issue31.2: an Allow without the user's session gives no code" st-g login_required

########## BYOU codes are not asked ##########
req POST "$P/users" '{"display_name":"Ext","external_user_id":"ext-1"}'
check_status "a BYOU user" 201
byou_code ext-1 "$APP" "$REDIRECT" openid
check_status "issue31.2: a BYOU code needs no consent" 201
finish
