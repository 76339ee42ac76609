# Records you can read and delete (docs/api.md §"Current user"): GET and DELETE of one
# resource, role, user and client, GET /api/v1/users/current, their errors
# (404s, 403 escalation, the default-resource refusal), every cascade (a
# deleted resource's permissions leave roles, clients and new tokens; a
# deleted role's users have no role; a deleted user's and client's codes
# and tokens stop at once), and `edgeauth project admin-client ID`, which
# recovers a project whose admin client was deleted.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
start_server
keepalive_client
AS_ADMIN="Bearer $TOKEN"
REDIRECT="http://127.0.0.1:9/cb"

load_resources
# listed PATH ID: the record with that ID in the list at PATH
listed() { AUTH="$AS_ADMIN" req GET "$1?page_size=100"; jq -c --arg id "$2" '.data[]|select(.id==$id)' <<<"$BODY"; }
DENIED="403 insufficient_permission"

# Another project, for records that are not this one's.
OTHER=$("$EDGEAUTH" -c "$CONF" project create --name other)
OTHER_ID=$(jq -r .project_id <<<"$OTHER")
OTHER_CLIENT=$(jq -r .client_id <<<"$OTHER")

########## resources ##########
req POST "$P/resources" '{"name":"Orders","code":"orders","permissions":[{"name":"Read","code":"read"},{"name":"Ship","code":"ship"}]}'
check_status "create orders" 201
ORDERS=$(jq -r .id <<<"$BODY")
load_resources

req GET "$P/resources/$ORDERS"
check_status "get resource" 200
check "get resource is the listed record" "$(jq -c . <<<"$BODY")" "$(listed "$P/resources" "$ORDERS")"
USERS_RES=$(jq -r '.data[]|select(.code=="users")|.id' <<<"$RESOURCES")
req GET "$P/resources/$USERS_RES"
check_json "get a default resource" '[.code, .is_default, (.permissions|length)]|tostring' '["users",true,3]'
req GET "$P/resources/nope"
check_err "get unknown resource" 404 resource_not_found
OTHER_RES=$(db "select id from resources where project_id='$OTHER_ID' limit 1")
req GET "$P/resources/$OTHER_RES"
check_err "get another project's resource" 404 resource_not_found
AUTH=none req GET "$P/resources/$ORDERS"
check_err "get resource without a token" 401 invalid_authorization_token
req GET "/api/v1/projects/$OTHER_ID/resources/$OTHER_RES"
check_err "get resource of another project's path" 403 insufficient_permission
req GET "/api/v1/projects/nope/resources/$ORDERS"
check_err "get resource of an unknown project" 404 project_not_found

# a role and a client holding orders:read, and a token of that client
req POST "$P/roles" "{\"code\":\"clerk\",\"name\":\"Clerk\",\"permission_ids\":$(ids orders:read orders:ship users:read)}"
check_status "create clerk role" 201
CLERK=$(jq -r .id <<<"$BODY")
new_client "orders app" orders:read users:read
ORDERS_APP=$CID; ORDERS_APP_SECRET=$CSECRET
OLD_ORDERS_TOKEN=$(client_token "$ORDERS_APP" "$ORDERS_APP_SECRET")
check "orders app's token carries orders:read" "$(jwt_claim "$OLD_ORDERS_TOKEN" scope)" "orders:read users:read"

new_client "resource reader" resources:read
AS_RR="Bearer $(client_token "$CID" "$CSECRET")"
expect "$AS_RR" 200 "get resource with resources:read" GET "$P/resources/$ORDERS"
expect "$AS_RR" "$DENIED" "delete resource without resources:update" DELETE "$P/resources/$ORDERS"
expect "$AS_ADMIN" "400 invalid_params" "delete a default resource" DELETE "$P/resources/$USERS_RES"
check_json "the refusal says why" '.error_description|test("default")' true
check "default resource still there" "$(db "select count(*) from resources where id='$USERS_RES'")" 1
expect "$AS_ADMIN" "404 resource_not_found" "delete unknown resource" DELETE "$P/resources/nope"
expect "$AS_ADMIN" "404 resource_not_found" "delete another project's resource" DELETE "$P/resources/$OTHER_RES"
check "another project's resource still there" "$(db "select count(*) from resources where id='$OTHER_RES'")" 1

expect "$AS_ADMIN" 204 "delete resource" DELETE "$P/resources/$ORDERS"
check "204 has no body" "$BODY" ""
expect "$AS_ADMIN" "404 resource_not_found" "deleted resource is gone" GET "$P/resources/$ORDERS"
expect "$AS_ADMIN" "404 resource_not_found" "delete it again" DELETE "$P/resources/$ORDERS"
check "its permissions are gone" "$(db "select count(*) from permissions where resource_id='$ORDERS'")" 0
AUTH="$AS_ADMIN" req GET "$P/roles/$CLERK"
check_json "permissions left the role" '.permission_ids|tostring' "[\"$(pid users:read)\"]"
AUTH="$AS_ADMIN" req GET "$P/clients/$ORDERS_APP"
check_json "permissions left the client" '.permission_ids|tostring' "[\"$(pid users:read)\"]"
NEW_ORDERS_TOKEN=$(client_token "$ORDERS_APP" "$ORDERS_APP_SECRET")
check "a new token lacks them" "$(jwt_claim "$NEW_ORDERS_TOKEN" scope)" "users:read"
check "a token already out keeps its scope" "$(jwt_claim "$OLD_ORDERS_TOKEN" scope)" "orders:read users:read"
AUTH="$AS_ADMIN" req GET "$P/resources?page_size=100"
check_json "resource left the list" "[.data[]|select(.id==\"$ORDERS\")]|length" 0

########## roles ##########
req GET "$P/roles/$CLERK"
check_status "get role" 200
check "get role is the listed record" "$(jq -c . <<<"$BODY")" "$(listed "$P/roles" "$CLERK")"
req GET "$P/roles/nope"
check_err "get unknown role" 404 role_not_found
expect "$AS_RR" "$DENIED" "get role without roles:read" GET "$P/roles/$CLERK"

req POST "$P/roles" "{\"code\":\"full\",\"name\":\"Full\",\"permission_ids\":$(ids users:create users:update users:read roles:read roles:update)}"
FULL_ROLE=$(jq -r .id <<<"$BODY")
req POST "$P/roles" '{"code":"empty","name":"Empty"}'
EMPTY_ROLE=$(jq -r .id <<<"$BODY")
AUTH="Bearer $(client_token "$OTHER_CLIENT" "$(jq -r .client_secret <<<"$OTHER")")" \
	req POST "/api/v1/projects/$OTHER_ID/roles" '{"code":"x","name":"x"}'
OTHER_ROLE=$(jq -r .id <<<"$BODY")
req GET "$P/roles/$OTHER_ROLE"
check_err "get another project's role" 404 role_not_found

new_client "role keeper" roles:read roles:update
AS_RK="Bearer $(client_token "$CID" "$CSECRET")"
expect "$AS_RK" "$DENIED" "delete a role holding what the caller lacks" DELETE "$P/roles/$FULL_ROLE"
check_json "403 names the permission" '.error_description|test("users:")' true
check_header "403 names the scope" '^WWW-Authenticate: Bearer error="insufficient_scope"'
check "that role still there" "$(db "select count(*) from roles where id='$FULL_ROLE'")" 1
expect "$AS_RK" "404 role_not_found" "role_not_found before 403" DELETE "$P/roles/nope"
expect "$AS_RK" "404 role_not_found" "delete another project's role" DELETE "$P/roles/$OTHER_ROLE"
expect "$AS_RR" "$DENIED" "delete role without roles:update" DELETE "$P/roles/$EMPTY_ROLE"
expect "$AS_RK" 204 "delete a role within the caller's scope" DELETE "$P/roles/$EMPTY_ROLE"

# users in the clerk role lose it
req POST "$P/users" "{\"display_name\":\"Carl\",\"email\":\"carl@example.com\",\"password\":\"carl password\",\"role_id\":\"$CLERK\"}"
CARL=$(jq -r .id <<<"$BODY")
req POST "$P/users" "{\"display_name\":\"Cleo\",\"external_user_id\":\"cleo\",\"role_id\":\"$CLERK\"}"
CLEO=$(jq -r .id <<<"$BODY")
expect "$AS_ADMIN" 204 "delete the clerk role" DELETE "$P/roles/$CLERK"
expect "$AS_ADMIN" "404 role_not_found" "deleted role is gone" GET "$P/roles/$CLERK"
AUTH="$AS_ADMIN" req GET "$P/users?page_size=100"
check_json "its users have role_id null" "[.data[]|select(.id==\"$CARL\" or .id==\"$CLEO\")|[.role_id,.role_name]]|tostring" '[[null,null],[null,null]]'
AUTH="$AS_ADMIN" req GET "$P/users?role_id=$CLERK"
check_json "no user lists under it" .total 0
check "its grants are gone" "$(db "select count(*) from role_permissions where role_id='$CLERK'")" 0

########## users ##########
req GET "$P/users/$CARL"
check_status "get user" 200
check "get user is the listed record" "$(jq -c . <<<"$BODY")" "$(listed "$P/users" "$CARL")"
check_json "no password in the record" 'has("password") or has("password_hash")' false
req GET "$P/users/nope"
check_err "get unknown user" 404 user_not_found
OTHER_USER=$(db "insert into users (id, project_id, display_name, created_at, updated_at) values ('ou1', '$OTHER_ID', 'o', 1, 1); select 'ou1'")
req GET "$P/users/$OTHER_USER"
check_err "get another project's user" 404 user_not_found
expect "$AS_RR" "$DENIED" "get user without users:read" GET "$P/users/$CARL"

# GET /users/current: a user's token answers its user, a client's none
new_client "web" users:read
WEB=$CID
sign_in "$WEB" "$REDIRECT" carl@example.com "carl password"
exchange "$WEB" "$REDIRECT" "$CODE" "$VERIFIER"
check "carl signed in" "${ACCESS:0:3}" "eyJ"
CARL_ACCESS=$ACCESS; CARL_REFRESH=$REFRESH
expect "Bearer $CARL_ACCESS" 200 "GET /users/current" GET /api/v1/users/current
check "it is the user's record" "$(jq -c . <<<"$BODY")" "$(listed "$P/users" "$CARL")"
expect "$AS_ADMIN" "404 user_not_found" "GET /users/current with a client token" GET /api/v1/users/current
check_json "as PUT says it" .error_description "The token does not belong to a user."
expect none "401 invalid_authorization_token" "GET /users/current without a token" GET /api/v1/users/current
check_header "401 asks for a bearer token" '^WWW-Authenticate: Bearer'

# delete: escalation, then the cascade
req POST "$P/users" "{\"display_name\":\"Root\",\"external_user_id\":\"root\",\"role_id\":\"$FULL_ROLE\"}"
ROOT_USER=$(jq -r .id <<<"$BODY")
new_client "user keeper" users:read users:update
AS_UK="Bearer $(client_token "$CID" "$CSECRET")"
expect "$AS_UK" "$DENIED" "delete a user whose role holds what the caller lacks" DELETE "$P/users/$ROOT_USER"
check "that user still there" "$(db "select count(*) from users where id='$ROOT_USER'")" 1
expect "$AS_UK" "404 user_not_found" "user_not_found before 403" DELETE "$P/users/nope"
expect "$AS_UK" "404 user_not_found" "delete another project's user" DELETE "$P/users/$OTHER_USER"
expect "$AS_RR" "$DENIED" "delete user without users:update" DELETE "$P/users/$CLEO"
expect "$AS_UK" 204 "delete a user within the caller's scope" DELETE "$P/users/$CLEO"
expect "$AS_UK" "404 user_not_found" "deleted user is gone" GET "$P/users/$CLEO"
expect "$AS_ADMIN" 201 "a deleted user's external ID is free again" POST "$P/users" '{"display_name":"Cleo 2","external_user_id":"cleo"}'

# carl: a live access token (used once, so its check is cached), a refresh
# token, an unused code and a session row
sign_in "$WEB" "$REDIRECT" carl@example.com "carl password"
UNUSED_CODE=$CODE; UNUSED_VERIFIER=$VERIFIER
expect "Bearer $CARL_ACCESS" 200 "carl's token works before" GET /api/v1/users/current
db "insert into sessions (id, secret_hash, project_id, user_id, auth_time, created_at, expires_at) values ('s-carl', 'h-carl', '$PROJECT_ID', '$CARL', 1, 1, 9999999999999)"
expect "$AS_ADMIN" 204 "delete carl" DELETE "$P/users/$CARL"
expect "Bearer $CARL_ACCESS" "401 invalid_authorization_token" "carl's access token stops at once" GET /api/v1/users/current
refresh "$WEB" "$CARL_REFRESH"
check_err "carl's refresh token is invalid" 400 invalid_refresh_token
exchange "$WEB" "$REDIRECT" "$UNUSED_CODE" "$UNUSED_VERIFIER"
check_err "carl's code is invalid" 400 invalid_authorization_code
check "carl's codes are gone" "$(db "select count(*) from auth_codes where user_id='$CARL'")" 0
check "carl's refresh tokens are gone" "$(db "select count(*) from refresh_tokens where user_id='$CARL'")" 0
check "carl's sessions are gone" "$(db "select count(*) from sessions where user_id='$CARL'")" 0
sign_in "$WEB" "$REDIRECT" carl@example.com "carl password"
check "carl cannot sign in" "$STATUS" 401

########## clients ##########
req GET "$P/clients/$WEB"
check_status "get client" 200
check "get client is the listed record" "$(jq -c . <<<"$BODY")" "$(listed "$P/clients" "$WEB")"
check_json "no secret in the record" 'has("client_secret") or has("secret_hash")' false
req GET "$P/clients/nope"
check_err "get unknown client" 404 client_not_found
req GET "$P/clients/$OTHER_CLIENT"
check_err "get another project's client" 404 client_not_found
expect "$AS_RR" "$DENIED" "get client without clients:read" GET "$P/clients/$WEB"

new_client "client keeper" clients:read clients:update users:read
KEEPER=$CID
AS_CK="Bearer $(client_token "$CID" "$CSECRET")"
expect "$AS_CK" "$DENIED" "delete the admin client without its permissions" DELETE "$P/clients/$CLIENT_ID"
check "admin client still there" "$(db "select count(*) from clients where id='$CLIENT_ID'")" 1
expect "$AS_CK" "404 client_not_found" "client_not_found before 403" DELETE "$P/clients/nope"
expect "$AS_CK" "404 client_not_found" "delete another project's client" DELETE "$P/clients/$OTHER_CLIENT"
check "another project's client still there" "$(db "select count(*) from clients where id='$OTHER_CLIENT'")" 1
expect "$AS_RR" "$DENIED" "delete client without clients:update" DELETE "$P/clients/$WEB"

# a deleted client's code, refresh token, user tokens and own tokens stop
req POST "$P/users" '{"display_name":"Dora","email":"dora@example.com","password":"dora password"}'
sign_in "$WEB" "$REDIRECT" dora@example.com "dora password"
exchange "$WEB" "$REDIRECT" "$CODE" "$VERIFIER"
DORA_ACCESS=$ACCESS; DORA_REFRESH=$REFRESH
sign_in "$WEB" "$REDIRECT" dora@example.com "dora password"
UNUSED_CODE=$CODE; UNUSED_VERIFIER=$VERIFIER
new_client "doomed" users:read
DOOMED=$CID; DOOMED_SECRET=$CSECRET
DOOMED_TOKEN=$(client_token "$DOOMED" "$DOOMED_SECRET")
expect "Bearer $DORA_ACCESS" 200 "dora's token works before" GET /api/v1/users/current
expect "Bearer $DOOMED_TOKEN" 200 "the doomed client's token works before" GET "$P/users?page_size=1"
expect "$AS_CK" 204 "delete a client within the caller's scope" DELETE "$P/clients/$DOOMED"
expect "Bearer $DOOMED_TOKEN" "401 invalid_authorization_token" "a deleted client's own token stops at once" GET "$P/users?page_size=1"
check "its secret no longer gets a token" "$(client_token "$DOOMED" "$DOOMED_SECRET")" null
expect "$AS_ADMIN" 204 "delete the web client" DELETE "$P/clients/$WEB"
expect "$AS_ADMIN" "404 client_not_found" "deleted client is gone" GET "$P/clients/$WEB"
AUTH="$AS_ADMIN" req GET "$P/clients?page_size=1"
check "the list's total counts the deleted clients out" "$(jq .total <<<"$BODY")" \
	"$(db "select count(*) from clients where project_id='$PROJECT_ID'")"
expect "Bearer $DORA_ACCESS" "401 invalid_authorization_token" "its user's access token stops at once" GET /api/v1/users/current
refresh "$WEB" "$DORA_REFRESH"
check "its refresh token is refused" "$STATUS $(jq -r .error <<<"$BODY")" "400 invalid_client"
exchange "$WEB" "$REDIRECT" "$UNUSED_CODE" "$UNUSED_VERIFIER"
check "its code is refused" "$STATUS $(jq -r .error <<<"$BODY")" "400 invalid_client"
check "its codes are gone" "$(db "select count(*) from auth_codes where client_id='$WEB'")" 0
check "its refresh tokens are gone" "$(db "select count(*) from refresh_tokens where client_id='$WEB'")" 0
check "its grants are gone" "$(db "select count(*) from client_permissions where client_id='$WEB'")" 0

########## project admin-client: recovering a project ##########
# a second admin deletes the first; the first's token stops
req POST "$P/clients" "{\"name\":\"second admin\",\"permission_ids\":$(AUTH="$AS_ADMIN" req GET "$P/clients/$CLIENT_ID"; jq -c .permission_ids <<<"$BODY")}"
check_status "admin creates a second admin" 201
SECOND=$(jq -r .id <<<"$BODY"); SECOND_SECRET=$(jq -r .client_secret <<<"$BODY")
AS_SECOND="Bearer $(client_token "$SECOND" "$SECOND_SECRET")"
expect "$AS_SECOND" 204 "the second admin deletes the first" DELETE "$P/clients/$CLIENT_ID"
expect "$AS_ADMIN" "401 invalid_authorization_token" "the deleted admin's token stops" GET "$P/clients"
expect "$AS_SECOND" 204 "the second admin deletes itself" DELETE "$P/clients/$SECOND"
expect "$AS_SECOND" "401 invalid_authorization_token" "no admin left" GET "$P/clients"

RECOVERED=$("$EDGEAUTH" -c "$CONF" project admin-client "$PROJECT_ID")
check "admin-client exits 0" "$?" 0
check "admin-client prints project, client, secret" "$(jq -r 'keys|join(",")' <<<"$RECOVERED")" "client_id,client_secret,project_id"
check "for this project" "$(jq -r .project_id <<<"$RECOVERED")" "$PROJECT_ID"
NEW_ADMIN=$(jq -r .client_id <<<"$RECOVERED")
NEW_TOKEN=$(client_token "$NEW_ADMIN" "$(jq -r .client_secret <<<"$RECOVERED")")
check "the running server takes its token" "$(jwt_claim "$NEW_TOKEN" scope | tr ' ' '\n' | sort | paste -sd' ')" \
	"clients:create clients:read clients:update resources:create resources:read resources:update roles:create roles:read roles:update users:create users:read users:update"
expect "Bearer $NEW_TOKEN" 200 "the new admin reads its record" GET "$P/clients/$NEW_ADMIN"
check_json "it is active, named admin, with twelve" '[.is_active, .name, (.permission_ids|length)]|tostring' '[true,"admin",12]'
check "its secret is stored only as a hash" "$(db "select count(*) from clients where secret_hash = '$(jq -r .client_secret <<<"$RECOVERED")'")" 0
req POST "$P/resources" '{"name":"Parcels","code":"parcels","permissions":[{"name":"Read","code":"read"}]}'
"$EDGEAUTH" -c "$CONF" project admin-client "$PROJECT_ID" > "$TMP/second.json"
check "a later admin client holds only the twelve" "$(db "select count(*) from client_permissions where client_id = '$(jq -r .client_id "$TMP/second.json")'")" 12
"$EDGEAUTH" -c "$CONF" project admin-client nope > "$TMP/none.out" 2> "$TMP/none.err"
check "unknown project exits 1" "$?" 1
check "and prints nothing on stdout" "$(cat "$TMP/none.out")" ""
check "but says why" "$(grep -c 'no project nope' "$TMP/none.err")" 1
"$EDGEAUTH" -c "$CONF" project admin-client > /dev/null 2>&1
check "no ID is a usage error" "$?" 2
"$EDGEAUTH" -c "$CONF" project admin-client a b > /dev/null 2>&1
check "two IDs is a usage error" "$?" 2
check "the usage names the command" "$("$EDGEAUTH" --help | grep -c 'project admin-client ID')" 1

finish
