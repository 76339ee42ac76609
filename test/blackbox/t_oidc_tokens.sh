# The token side of OpenID Connect (docs/signin.md §"ID tokens"): the ID token of an
# OIDC sign-in's code grant and of its refreshes (verified as a relying
# party does, with jose against JWKS), the granted scope, auth_time in
# access tokens, BYOU codes' scope and nonce, which token is accepted where
# (an ID token is no bearer token), UserInfo and its errors, and the
# discovery document at both addresses. A BYOU code stands for an OIDC
# sign-in until the authorization endpoint takes scope.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
CLIENT_DIR=$ROOT/test/oauth-client
need_node_project "$CLIENT_DIR" jose
start_server oidc.id_token_ttl_s=600
keepalive_client   # req over one connection (lib.sh)
REDIRECT="http://127.0.0.1:9/cb"
OIDC_SCOPES="openid profile email roles"

# id_verify AUDIENCE TOKEN: jose's verdict, {alg, ok, claims} or {ok, code}
id_verify() {
	(cd "$CLIENT_DIR" && timeout 30 node id_token_verify.mjs "$BASE" "$1" "$2") | jq -c '.[0]'
}

# --- set-up: a role clerk (users:read), a managed user, a BYOU user, two apps ---
load_resources
req POST "$P/roles" "{\"code\":\"clerk\",\"name\":\"Clerk\",\"permission_ids\":$(ids users:read roles:read)}"
check_status "role" 201
ROLE=$(jq -r .id <<<"$BODY")
req POST "$P/users" "$(jq -cn --arg r "$ROLE" '{display_name:"Ann Example",email:"ann@example.com",
	password:"ann password",avatar_url:"https://img.example/ann.png",role_id:$r,external_user_id:"ann-1"}')"
check_status "managed user" 201
ANN=$(jq -r .id <<<"$BODY")
req POST "$P/users" '{"display_name":"Bo","external_user_id":"crm-42"}'
check_status "BYOU user without role or email" 201
BO=$(jq -r .id <<<"$BODY")
req POST "$P/clients" "{\"name\":\"rp\",\"redirect_uris\":[\"$REDIRECT\"]}"
RP=$(jq -r .id <<<"$BODY")
req POST "$P/clients" "{\"name\":\"es\",\"redirect_uris\":[\"$REDIRECT\"],\"id_token_signed_response_alg\":\"ES256\"}"
ES=$(jq -r .id <<<"$BODY")

# --- an OIDC sign-in: the ID token of the code grant ---
byou_code ann-1 "$RP" "$REDIRECT" "email offline_access roles openid profile" "n-0S6_WzA2Mj"
check_status "a BYOU code with scope and nonce" 201
BEFORE=$(date +%s)
exchange "$RP" "$REDIRECT" "$CODE" "$VERIFIER"
check_status "code grant" 200
check_json "the answer has an id_token" '.id_token | type' string
check_json "granted scope: the OIDC scopes in order, then the permissions" .scope \
	"$OIDC_SCOPES roles:read users:read"
check_header "no-store" '^Cache-Control: no-store'
ID=$(jq -r .id_token <<<"$BODY")
ANN_ACCESS=$ACCESS
ANN_REFRESH=$REFRESH
V=$(id_verify "$RP" "$ID")
check "jose verifies it (issuer, audience, typ JWT, JWKS)" "$(jq -r .ok <<<"$V")" true
check "RS256 by default" "$(jq -r .alg <<<"$V")" RS256
C=$(jq -c .claims <<<"$V")
check "iss, sub, aud" "$(jq -r '[.iss, .sub, .aud] | join(" ")' <<<"$C")" "$BASE $ANN $RP"
check "exp = iat + id_token_ttl_s" "$(jq -r '.exp - .iat' <<<"$C")" 600
check "auth_time: when the BYOU code was made" \
	"$(jq -r --argjson b "$BEFORE" '.auth_time <= $b and .auth_time >= $b - 5' <<<"$C")" true
check "nonce as sent" "$(jq -r .nonce <<<"$C")" "n-0S6_WzA2Mj"
check "at_hash of the access token" "$(jq -r .at_hash <<<"$C")" "$(at_hash "$ACCESS")"
check "a BYOU sign-in: no amr, no sid" "$(jq -r '[has("amr"), has("sid")] | tostring' <<<"$C")" \
	'[false,false]'
check "profile" "$(jq -r '[.name, .preferred_username, .picture, (.updated_at | type)] | join(" ")' <<<"$C")" \
	"Ann Example ann@example.com https://img.example/ann.png number"
check "email" "$(jq -r '[.email, .email_verified] | tostring' <<<"$C")" '["ann@example.com",true]'
check "roles" "$(jq -r '[.role, .permissions] | tostring' <<<"$C")" '["clerk",["roles:read","users:read"]]'
check "no scope claim" "$(jq -r 'has("scope")' <<<"$C")" false
check "the access token carries the granted scope" "$(jwt_claim "$ACCESS" scope)" \
	"$OIDC_SCOPES roles:read users:read"
check "and auth_time (RFC 9068 §2.2.1)" "$(jwt_claim "$ACCESS" auth_time)" "$(jq -r .auth_time <<<"$C")"

# --- the refresh of such a sign-in: a new ID token, no nonce ---
refresh "$RP" "$ANN_REFRESH"
check_status "refresh" 200
check_json "scope kept" .scope "$OIDC_SCOPES roles:read users:read"
C2=$(id_verify "$RP" "$(jq -r .id_token <<<"$BODY")")
check "refresh: a verified ID token" "$(jq -r .ok <<<"$C2")" true
check "refresh: no nonce, the same auth_time" \
	"$(jq -r --argjson t "$(jq .auth_time <<<"$C")" '[(.claims | has("nonce")), .claims.auth_time == $t] | tostring' <<<"$C2")" \
	'[false,true]'
check "refresh: at_hash of its access token" "$(jq -r .claims.at_hash <<<"$C2")" "$(at_hash "$ACCESS")"
ANN_ACCESS=$ACCESS

# --- fewer scopes, an ES256 client, a user without email or role ---
byou_code crm-42 "$ES" "$REDIRECT" "openid profile email roles"
exchange "$ES" "$REDIRECT" "$CODE" "$VERIFIER"
check_status "ES256 client's grant" 200
V=$(id_verify "$ES" "$(jq -r .id_token <<<"$BODY")")
check "ES256 when the client says so" "$(jq -r .alg <<<"$V")" ES256
check "claims without a value are left out" "$(jq -c '.claims | [has("email"), has("picture"), has("role"), has("permissions"), .preferred_username, has("nonce")]' <<<"$V")" \
	'[false,false,false,false,"crm-42",false]'
BO_ACCESS=$ACCESS
byou_code ann-1 "$RP" "$REDIRECT" "openid"
exchange "$RP" "$REDIRECT" "$CODE" "$VERIFIER"
check_json "openid alone" .scope "openid roles:read users:read"
C=$(id_verify "$RP" "$(jq -r .id_token <<<"$BODY")")
check "openid alone: sub and the token's own claims" "$(jq -c '.claims | keys' <<<"$C")" \
	'["at_hash","aud","auth_time","exp","iat","iss","sub"]'

# --- not an OIDC request: no ID token, the scope as before ---
byou_code ann-1 "$RP" "$REDIRECT" "profile email"
exchange "$RP" "$REDIRECT" "$CODE" "$VERIFIER"
check_json "without openid: no id_token" 'has("id_token")' false
check_json "without openid: named permissions only" .scope "roles:read users:read"
PLAIN_ACCESS=$ACCESS
byou_code ann-1 "$RP" "$REDIRECT"
exchange "$RP" "$REDIRECT" "$CODE" "$VERIFIER"
check_json "no scope at all: no id_token" 'has("id_token")' false

# --- BYOU codes: scope and nonce are checked like the other fields ---
NONCE513=$(printf 'n%.0s' $(seq 1 513))
byou_code ann-1 "$RP" "$REDIRECT" "openid" "$NONCE513"
check_err "a nonce over 512 characters" 400 invalid_params
AUTH="Bearer $TOKEN" req POST "$P/users/external/ann-1/authorization-codes" \
	"$(jq -cn --arg c "$RP" --arg r "$REDIRECT" '{client_id:$c,redirect_uri:$r,code_challenge:"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",code_challenge_method:"S256",scope:["openid"]}')"
check_err "a scope that is not a string" 400 invalid_params
AUTH="Bearer $TOKEN" req POST "$P/users/external/ann-1/authorization-codes" \
	"$(jq -cn --arg c "$RP" --arg r "$REDIRECT" '{client_id:$c,redirect_uri:$r,code_challenge:"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",code_challenge_method:"S256",nonce:7}')"
check_err "a nonce that is not a string" 400 invalid_params

# --- which token is accepted where: an ID token is no bearer token ---
expect "Bearer $ID" "401 invalid_authorization_token" "an ID token on the management API" GET "$P/users"
check_header "as an invalid token" '^WWW-Authenticate: Bearer error="invalid_token"'
expect "Bearer $ID" "401 invalid_authorization_token" "an ID token as the current user" GET /api/v1/users/current
expect "Bearer $ID" "401 invalid_authorization_token" "an ID token at UserInfo" GET /api/v1/userinfo

# --- UserInfo ---
for m in GET POST; do
	AUTH="Bearer $ANN_ACCESS" req "$m" /api/v1/userinfo -H "Origin: https://spa.example"
	check_status "UserInfo $m" 200
	check_json "UserInfo $m: sub and the claims of the token's scopes" \
		'[.sub, .name, .preferred_username, .picture, .email, .email_verified, .role, (.permissions | join(" ")), (.updated_at | type)] | tostring' \
		"[\"$ANN\",\"Ann Example\",\"ann@example.com\",\"https://img.example/ann.png\",\"ann@example.com\",true,\"clerk\",\"roles:read users:read\",\"number\"]"
	check_header "UserInfo $m: CORS as the token endpoint" '^Access-Control-Allow-Origin: \*$'
	check_header "UserInfo $m: JSON" '^Content-Type: application/json$'
done
AUTH="Bearer $BO_ACCESS" req GET /api/v1/userinfo
check_json "UserInfo of a user without email or role" '[.sub, .name, .preferred_username, has("email"), has("role")] | tostring' \
	"[\"$BO\",\"Bo\",\"crm-42\",false,false]"
AUTH=none req OPTIONS /api/v1/userinfo -H "Origin: https://spa.example" -H "Access-Control-Request-Method: GET" \
	-H "Access-Control-Request-Headers: authorization"
check_status "UserInfo preflight" 204
check_header "UserInfo preflight allows any origin" '^Access-Control-Allow-Origin: \*$'
check_header "UserInfo preflight allows Authorization" '^Access-Control-Allow-Headers:.*Authorization'

expect "Bearer $PLAIN_ACCESS" "403 insufficient_permission" "UserInfo: a user's token without openid" GET /api/v1/userinfo
check_header "403 insufficient_scope" '^WWW-Authenticate: Bearer error="insufficient_scope"'
expect "Bearer $TOKEN" "403 insufficient_permission" "UserInfo: a client_credentials token" GET /api/v1/userinfo
check_header "403 insufficient_scope for the client token" '^WWW-Authenticate: Bearer error="insufficient_scope"'
expect none "401 invalid_authorization_token" "UserInfo without a token" GET /api/v1/userinfo
check_header "401 without a token: Bearer, no error" '^WWW-Authenticate: Bearer$'
expect "Bearer garbage" "401 invalid_authorization_token" "UserInfo with garbage" POST /api/v1/userinfo
check_header "401 with a token: invalid_token" '^WWW-Authenticate: Bearer error="invalid_token"'
expect "Bearer $ANN_ACCESS" "405 method_not_allowed" "UserInfo PUT" PUT /api/v1/userinfo '{}'

# a revoked access token (RFC 7009), a deactivated user
curl -s -o /dev/null -d "client_id=$RP" --data-urlencode "token=$ANN_ACCESS" "$BASE/api/v1/tokens/revoke"
expect "Bearer $ANN_ACCESS" "401 invalid_authorization_token" "UserInfo with a revoked token" GET /api/v1/userinfo
check_header "revoked: invalid_token" '^WWW-Authenticate: Bearer error="invalid_token"'
req PUT "$P/users/$BO" '{"display_name":"Bo","external_user_id":"crm-42","is_active":false}'
check_status "deactivate Bo" 200
expect "Bearer $BO_ACCESS" "401 invalid_authorization_token" "UserInfo of a deactivated user" GET /api/v1/userinfo

# --- discovery: one document at both addresses ---
AUTH=none req GET /.well-known/openid-configuration -H "Origin: https://spa.example"
check_status "openid-configuration" 200
check_header "openid-configuration: CORS" '^Access-Control-Allow-Origin: \*$'
OIDC_DOC=$BODY
AUTH=none req GET /.well-known/oauth-authorization-server
check "the RFC 8414 document is the same" "$(jq -S . <<<"$BODY")" "$(jq -S . <<<"$OIDC_DOC")"
check_json "endpoints" '[.issuer, .userinfo_endpoint, .end_session_endpoint, .introspection_endpoint, .jwks_uri] | join(" ")' \
	"$BASE $BASE/api/v1/userinfo $BASE/api/v1/logout $BASE/api/v1/tokens/introspect $BASE/.well-known/jwks.json"
check_json "scopes" '.scopes_supported | join(" ")' "$OIDC_SCOPES"
check_json "subjects" '.subject_types_supported | join(" ")' public
check_json "ID token algorithms" '.id_token_signing_alg_values_supported | join(" ")' "RS256 ES256"
check_json "prompt" '.prompt_values_supported | join(" ")' "none login"
check_json "no request objects, no claims parameter" \
	'[.request_parameter_supported, .request_uri_parameter_supported, .claims_parameter_supported] | tostring' \
	'[false,false,false]'
check_json "response modes" '.response_modes_supported | join(" ")' query
check_json "token, revocation auth methods" \
	'[.token_endpoint_auth_methods_supported, .revocation_endpoint_auth_methods_supported] | map(join(" ")) | unique | join(";")' \
	"client_secret_basic client_secret_post none"
check_json "introspection auth methods" '.introspection_endpoint_auth_methods_supported | join(" ")' \
	"client_secret_basic client_secret_post"
check_json "claims" '.claims_supported | sort | join(" ")' \
	"amr at_hash aud auth_time email email_verified exp iat iss name nonce permissions picture preferred_username role sid sub updated_at"
check_json "back-channel logout" '[.backchannel_logout_supported, .backchannel_logout_session_supported] | tostring' \
	'[true,true]'
check_json "still RFC 8414's" '[.authorization_response_iss_parameter_supported, (.code_challenge_methods_supported | join(" ")), (.grant_types_supported | join(" "))] | tostring' \
	'[true,"S256","authorization_code refresh_token client_credentials urn:ietf:params:oauth:grant-type:device_code"]'

finish
