# A client's OpenID Connect and confidential-client fields (docs/api.md §"Records",
# §7, §8): post_logout_redirect_uris (the rules of redirect_uris),
# backchannel_logout_uri (an absolute http/https URL or null),
# token_endpoint_auth_method and id_token_signed_response_alg (their
# values and defaults), read and written through create, update (omitted
# ones kept), get and list; and who may change where tokens go: setting or
# changing the three URI fields or the auth method needs all twelve
# default-resource permissions, else 403 after invalid_params and
# client_not_found, and a refusal changes nothing.
. "$(dirname "$0")/lib.sh"
start_server
keepalive_client
AS_ADMIN="Bearer $TOKEN"
DENIED="403 insufficient_permission"
load_resources
ALL12=$(ids resources:create resources:update resources:read users:create users:update users:read \
	roles:create roles:update roles:read clients:create clients:update clients:read)
# row ID: the stored client, to compare before and after a refusal
row() { db "select * from clients where id = '$1'"; }
OIDC_FIELDS='[.post_logout_redirect_uris, .backchannel_logout_uri, .token_endpoint_auth_method, .id_token_signed_response_alg]|tostring'

########## the fields ##########
req POST "$P/clients" '{"name":"plain"}'
check_status "create without the new fields" 201
check_json "their defaults" "$OIDC_FIELDS" '[[],null,"none","RS256"]'
PLAIN=$(jq -r .id <<<"$BODY")

req POST "$P/clients" '{"name":"rp","redirect_uris":["https://rp.example/cb"],
	"post_logout_redirect_uris":["https://rp.example/bye","http://127.0.0.1:8000/bye?x=1","https://rp.example/bye"],
	"backchannel_logout_uri":"https://rp.example/backchannel?x=1",
	"token_endpoint_auth_method":"client_secret_basic","id_token_signed_response_alg":"ES256"}'
check_status "create with every field" 201
check_json "written, logout URIs deduplicated in order" "$OIDC_FIELDS" \
	'[["https://rp.example/bye","http://127.0.0.1:8000/bye?x=1"],"https://rp.example/backchannel?x=1","client_secret_basic","ES256"]'
check_json "key order" 'keys_unsorted|join(",")' \
	'id,name,description,is_active,permission_ids,redirect_uris,post_logout_redirect_uris,backchannel_logout_uri,token_endpoint_auth_method,id_token_signed_response_alg,forward_auth_urls,device_flow,allowed_role_ids,consent_required,created_at,updated_at,client_secret'
RP=$(jq -r .id <<<"$BODY")
CREATED=$(jq -c 'del(.client_secret)' <<<"$BODY")
req GET "$P/clients/$RP"
check "get answers what create wrote" "$(jq -c . <<<"$BODY")" "$CREATED"
req GET "$P/clients?page_size=100"
check "the list answers it too" "$(jq -c --arg id "$RP" '.data[]|select(.id==$id)' <<<"$BODY")" "$CREATED"

req PUT "$P/clients/$RP" '{"name":"rp 2","is_active":true}'
check_status "update without the new fields" 200
check_json "omitted ones kept" "$OIDC_FIELDS" \
	'[["https://rp.example/bye","http://127.0.0.1:8000/bye?x=1"],"https://rp.example/backchannel?x=1","client_secret_basic","ES256"]'
req PUT "$P/clients/$RP" '{"name":"rp","is_active":true,"post_logout_redirect_uris":["https://rp.example/out"],
	"backchannel_logout_uri":"http://127.0.0.1:9/bc","token_endpoint_auth_method":"client_secret_post",
	"id_token_signed_response_alg":"RS256"}'
check_status "update every field" 200
check_json "replaced" "$OIDC_FIELDS" '[["https://rp.example/out"],"http://127.0.0.1:9/bc","client_secret_post","RS256"]'
check_json "redirect_uris untouched" '.redirect_uris|tostring' '["https://rp.example/cb"]'
req PUT "$P/clients/$RP" '{"name":"rp","is_active":true,"post_logout_redirect_uris":null,"backchannel_logout_uri":null,"token_endpoint_auth_method":"none"}'
check_json "null clears the URIs" "$OIDC_FIELDS" '[[],null,"none","RS256"]'
req PUT "$P/clients/$RP" '{"name":"rp","is_active":true,"post_logout_redirect_uris":["https://rp.example/out"],"backchannel_logout_uri":"https://rp.example/bc"}'
req PUT "$P/clients/$RP" '{"name":"rp","is_active":true,"post_logout_redirect_uris":[],"backchannel_logout_uri":""}'
check_json "[] and empty string clear them" "$OIDC_FIELDS" '[[],null,"none","RS256"]'
check "stored as the store keeps lists" "$(db "select post_logout_redirect_uris from clients where id='$RP'")" "[]"

# invalid_params, on create and on update, naming the field
bad() { # bad NAME JSON_FIELDS: create and update with those fields both refused
	req POST "$P/clients" "{\"name\":\"x\",$2}"
	check_err "create: $1" 400 invalid_params
	req PUT "$P/clients/$RP" "{\"name\":\"x\",\"is_active\":true,$2}"
	check_err "update: $1" 400 invalid_params
}
bad "post_logout_redirect_uris a string" '"post_logout_redirect_uris":"https://a.example/"'
bad "post_logout_redirect_uri relative" '"post_logout_redirect_uris":["/bye"]'
bad "post_logout_redirect_uri with a fragment" '"post_logout_redirect_uris":["https://a.example/#x"]'
check_json "the error names the field" .error_description "post_logout_redirect_uris[0] must not contain a fragment"
bad "post_logout_redirect_uri ftp" '"post_logout_redirect_uris":["ftp://a.example/"]'
bad "post_logout_redirect_uri empty" '"post_logout_redirect_uris":[""]'
bad "post_logout_redirect_uri a number" '"post_logout_redirect_uris":[1]'
bad "post_logout_redirect_uri over 2048" "\"post_logout_redirect_uris\":[\"https://a.example/$(printf 'x%.0s' $(seq 2031))\"]"
URIS21=$(for i in $(seq 21); do printf '"https://a.example/%d",' "$i"; done)
bad "21 post_logout_redirect_uris" "\"post_logout_redirect_uris\":[${URIS21%,}]"
bad "backchannel_logout_uri relative" '"backchannel_logout_uri":"/bc"'
bad "backchannel_logout_uri javascript" '"backchannel_logout_uri":"javascript:alert(1)"'
bad "backchannel_logout_uri with a fragment" '"backchannel_logout_uri":"https://a.example/bc#f"'
bad "backchannel_logout_uri an array" '"backchannel_logout_uri":["https://a.example/bc"]'
bad "backchannel_logout_uri over 2048" "\"backchannel_logout_uri\":\"https://a.example/$(printf 'x%.0s' $(seq 2031))\""
bad "token_endpoint_auth_method unknown" '"token_endpoint_auth_method":"client_secret_jwt"'
check_json "the error lists the values" .error_description \
	"token_endpoint_auth_method must be one of none, client_secret_basic, client_secret_post"
bad "token_endpoint_auth_method null" '"token_endpoint_auth_method":null'
bad "token_endpoint_auth_method in another case" '"token_endpoint_auth_method":"None"'
bad "token_endpoint_auth_method a number" '"token_endpoint_auth_method":1'
bad "id_token_signed_response_alg unknown" '"id_token_signed_response_alg":"HS256"'
bad "id_token_signed_response_alg none" '"id_token_signed_response_alg":"none"'
bad "id_token_signed_response_alg null" '"id_token_signed_response_alg":null'
bad "id_token_signed_response_alg lower case" '"id_token_signed_response_alg":"rs256"'
check "no refused create was written" "$(db "select count(*) from clients where name = 'x'")" 0

########## who may change where tokens go (docs/signin.md §"Who may change where tokens go") ##########
# a client holding every clients permission and users:read, but not all twelve
new_client "client manager" clients:create clients:read clients:update users:read
AS_CM="Bearer $(client_token "$CID" "$CSECRET")"

expect "$AS_CM" 201 "create with none of those fields" POST "$P/clients" '{"name":"m1","id_token_signed_response_alg":"ES256"}'
M1=$(jq -r .id <<<"$BODY")
expect "$AS_CM" 201 "create that sets them to their defaults" POST "$P/clients" \
	'{"name":"m2","redirect_uris":[],"post_logout_redirect_uris":null,"backchannel_logout_uri":"","token_endpoint_auth_method":"none"}'
N=$(db "select count(*) from clients")
expect "$AS_CM" "$DENIED" "create setting redirect_uris" POST "$P/clients" '{"name":"m3","redirect_uris":["https://evil.example/cb"]}'
check_header "the 403 names the scope" '^WWW-Authenticate: Bearer error="insufficient_scope"'
check_json "it says why" '.error_description|test("all twelve")' true
expect "$AS_CM" "$DENIED" "create setting post_logout_redirect_uris" POST "$P/clients" '{"name":"m3","post_logout_redirect_uris":["https://evil.example/bye"]}'
expect "$AS_CM" "$DENIED" "create setting backchannel_logout_uri" POST "$P/clients" '{"name":"m3","backchannel_logout_uri":"https://evil.example/bc"}'
expect "$AS_CM" "$DENIED" "create setting token_endpoint_auth_method" POST "$P/clients" '{"name":"m3","token_endpoint_auth_method":"client_secret_basic"}'
check "no refused create was written" "$(db "select count(*) from clients")" "$N"

# updates: a lesser token may rename and keep, never change where tokens go
AUTH="$AS_ADMIN" req PUT "$P/clients/$M1" '{"name":"m1","is_active":true,"redirect_uris":["https://rp.example/cb","https://rp.example/cb2"],
	"post_logout_redirect_uris":["https://rp.example/bye"],"backchannel_logout_uri":"https://rp.example/bc","token_endpoint_auth_method":"client_secret_post"}'
check_status "the admin sets them" 200
BEFORE=$(row "$M1")
expect "$AS_CM" 200 "rename, fields omitted" PUT "$P/clients/$M1" '{"name":"m1 renamed","is_active":true}'
expect "$AS_CM" 200 "the same values sent back" PUT "$P/clients/$M1" '{"name":"m1","is_active":true,"redirect_uris":["https://rp.example/cb","https://rp.example/cb2","https://rp.example/cb"],
	"post_logout_redirect_uris":["https://rp.example/bye"],"backchannel_logout_uri":"https://rp.example/bc","token_endpoint_auth_method":"client_secret_post","id_token_signed_response_alg":"ES256"}'
check_json "id_token_signed_response_alg is free to change" .id_token_signed_response_alg ES256
BEFORE=$(row "$M1")
for change in '"redirect_uris":["https://evil.example/cb"]' \
	'"redirect_uris":["https://rp.example/cb2","https://rp.example/cb"]' \
	'"redirect_uris":[]' \
	'"post_logout_redirect_uris":["https://evil.example/bye"]' \
	'"post_logout_redirect_uris":null' \
	'"backchannel_logout_uri":"https://evil.example/bc"' \
	'"backchannel_logout_uri":null' \
	'"token_endpoint_auth_method":"none"'; do
	expect "$AS_CM" "$DENIED" "update changing $change" PUT "$P/clients/$M1" "{\"name\":\"m1\",\"is_active\":true,$change}"
done
check "refused updates changed nothing" "$(row "$M1")" "$BEFORE"

# the order: invalid_params, client_not_found, then 403
expect "$AS_CM" "400 invalid_params" "invalid_params before 403" PUT "$P/clients/$M1" '{"name":"","is_active":true,"redirect_uris":["https://evil.example/cb"]}'
expect "$AS_CM" "400 invalid_params" "create: invalid_params before 403" POST "$P/clients" '{"name":"m4","redirect_uris":["https://evil.example/cb"],"token_endpoint_auth_method":"x"}'
expect "$AS_CM" "404 client_not_found" "client_not_found before 403" PUT "$P/clients/nope" '{"name":"m1","is_active":true,"redirect_uris":["https://evil.example/cb"]}'
expect "$AS_CM" "404 some_permissions_not_found" "some_permissions_not_found before 403" POST "$P/clients" '{"name":"m4","permission_ids":["nope"],"redirect_uris":["https://evil.example/cb"]}'

# a user token with every clients permission is no more than a client token;
# a token with all twelve (the admin's, or any client given them) may
AUTH="$AS_ADMIN" req POST "$P/clients" "{\"name\":\"second admin\",\"permission_ids\":$ALL12}"
AS_SECOND="Bearer $(client_token "$(jq -r .id <<<"$BODY")" "$(jq -r .client_secret <<<"$BODY")")"
expect "$AS_SECOND" 200 "a token with all twelve changes them" PUT "$P/clients/$M1" '{"name":"m1","is_active":true,"redirect_uris":["https://new.example/cb"],"backchannel_logout_uri":null}'
expect "$AS_SECOND" 201 "and creates with them" POST "$P/clients" '{"name":"m5","redirect_uris":["https://new.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}'
expect "$AS_ADMIN" 200 "the admin client holds all twelve" PUT "$P/clients/$PLAIN" '{"name":"plain","is_active":true,"post_logout_redirect_uris":["https://new.example/bye"]}'
AUTH="$AS_ADMIN" req POST "$P/resources" '{"name":"Orders","code":"orders","permissions":[{"name":"Read","code":"read"}]}'
expect "$AS_SECOND" 200 "a project's own permissions are not needed" PUT "$P/clients/$M1" '{"name":"m1","is_active":true,"redirect_uris":["https://other.example/cb"]}'

finish
