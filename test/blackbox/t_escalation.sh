# No escalation through the management API (docs/api.md §"No escalation"): a caller may
# not grant, through permission_ids or a user's role_id, a permission of the
# four default resources that its own token lacks, nor update, deactivate or
# rotate the secret of a role, client or user holding one; 403
# insufficient_permission after invalid_params and the *_not_found checks,
# before the conflicts. A refused request changes nothing (the row is read
# back); the admin client's same request passes; a project's own
# resources' permissions stay free to grant. Callers: client tokens, and a
# user token (its scope is its role's permissions).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
start_server
keepalive_client
AS_ADMIN="Bearer $TOKEN"

req POST "$P/resources" '{"name":"Orders","code":"orders","permissions":[{"name":"Read","code":"read"},{"name":"Ship","code":"ship"}]}'
check_status "orders resource" 201
load_resources
ALL_NAMES=(resources:create resources:update resources:read users:create users:update users:read
	roles:create roles:update roles:read clients:create clients:update clients:read)
ALL12=$(ids "${ALL_NAMES[@]}")
# rows TABLE: how many rows it has
rows() { db "select count(*) from $1"; }
# snap TABLE ID: the stored row and its permission set, to compare before and after
snap() {
	local link=""
	case $1 in
	roles) link="select permission_id from role_permissions where role_id = '$2' order by 1" ;;
	clients) link="select permission_id from client_permissions where client_id = '$2' order by 1" ;;
	users) link="select 'no set'" ;;
	esac
	db "select * from $1 where id = '$2'"
	db "$link"
}
# new_role CODE NAMED... (as the admin): sets RID
new_role() {
	local code=$1; shift
	AUTH="$AS_ADMIN" req POST "$P/roles" "{\"code\":\"$code\",\"name\":\"$code\",\"permission_ids\":$(ids "$@")}"
	check_status "admin creates role $code" 201
	RID=$(jq -r .id <<<"$BODY")
}
DENIED="403 insufficient_permission"

# ======== clients: a client holding clients:read clients:update clients:create ========
new_client "limited clients" clients:create clients:read clients:update orders:read
LIM_C=$CID; AS_C="Bearer $(client_token "$CID" "$CSECRET")"
new_client "orders app" orders:read orders:ship
ORDERS_APP=$CID; ORDERS_APP_SECRET=$CSECRET

# the issue's attack: giving itself all twelve permissions
BEFORE=$(snap clients "$LIM_C")
expect "$AS_C" "$DENIED" "client gives itself all twelve" PUT "$P/clients/$LIM_C" "{\"name\":\"limited clients\",\"is_active\":true,\"permission_ids\":$ALL12}"
check_header "403 names the scope" '^WWW-Authenticate: Bearer error="insufficient_scope"'
check_json "403 says which permission" '.error_description|test("resources:create")' true
check "own permissions unchanged" "$(snap clients "$LIM_C")" "$BEFORE"
expect "$AS_C" "$DENIED" "client adds one permission it lacks to itself" PUT "$P/clients/$LIM_C" "{\"name\":\"limited clients\",\"is_active\":true,\"permission_ids\":$(ids clients:read users:read)}"
check "own permissions still unchanged" "$(snap clients "$LIM_C")" "$BEFORE"

# the admin client: update, deactivate, rotate its secret
BEFORE=$(snap clients "$CLIENT_ID")
expect "$AS_C" "$DENIED" "rename the admin client" PUT "$P/clients/$CLIENT_ID" '{"name":"pwned","is_active":true}'
expect "$AS_C" "$DENIED" "deactivate the admin client" PUT "$P/clients/$CLIENT_ID" '{"name":"admin","is_active":false}'
expect "$AS_C" "$DENIED" "strip the admin client" PUT "$P/clients/$CLIENT_ID" '{"name":"admin","is_active":true,"permission_ids":[]}'
expect "$AS_C" "$DENIED" "rotate the admin client's secret" POST "$P/clients/$CLIENT_ID/secret"
check "no secret in the refusal" "$(jq -r 'has("client_secret")' <<<"$BODY")" false
check "admin client unchanged" "$(snap clients "$CLIENT_ID")" "$BEFORE"
check "admin secret still works" "$(admin_token | cut -c1-3)" "eyJ"

# create: only what it carries, and any project permission
N=$(rows clients)
expect "$AS_C" "$DENIED" "create a client with users:create" POST "$P/clients" "{\"name\":\"evil\",\"permission_ids\":$(ids clients:read users:create)}"
expect "$AS_C" "$DENIED" "create a client with all twelve" POST "$P/clients" "{\"name\":\"evil\",\"permission_ids\":$ALL12}"
check "no client created" "$(rows clients)" "$N"
expect "$AS_C" 201 "create a client with what it carries and project permissions" POST "$P/clients" "{\"name\":\"helper\",\"permission_ids\":$(ids clients:read clients:update orders:read orders:ship)}"
HELPER=$(jq -r .id <<<"$BODY")
check_json "helper holds four" '.permission_ids|length' 4

# clients it may touch
expect "$AS_C" 200 "update a client within its scope" PUT "$P/clients/$HELPER" "{\"name\":\"helper 2\",\"is_active\":false,\"permission_ids\":$(ids clients:read orders:ship)}"
check_json "updated" '[.name, .is_active, (.permission_ids|length)]|tostring' '["helper 2",false,2]'
expect "$AS_C" 200 "rotate a client within its scope" POST "$P/clients/$HELPER/secret"
expect "$AS_C" 200 "update a client holding a project permission it lacks (orders:ship)" PUT "$P/clients/$ORDERS_APP" '{"name":"orders app","is_active":true}'
expect "$AS_C" 200 "rotate that client's secret" POST "$P/clients/$ORDERS_APP/secret"
check "old secret of orders app no longer works" "$(client_token "$ORDERS_APP" "$ORDERS_APP_SECRET")" null

# order: invalid_params, then client_not_found, then some_permissions_not_found, then 403
expect "$AS_C" "400 invalid_params" "invalid_params before 403" PUT "$P/clients/$CLIENT_ID" "{\"is_active\":false,\"permission_ids\":$ALL12}"
expect "$AS_C" "404 client_not_found" "client_not_found before 403" PUT "$P/clients/nope" "{\"name\":\"x\",\"is_active\":true,\"permission_ids\":$ALL12}"
expect "$AS_C" "404 client_not_found" "rotate: client_not_found before 403" POST "$P/clients/nope/secret"
expect "$AS_C" "404 some_permissions_not_found" "some_permissions_not_found before 403 (update)" PUT "$P/clients/$CLIENT_ID" '{"name":"x","is_active":true,"permission_ids":["nope"]}'
expect "$AS_C" "404 some_permissions_not_found" "some_permissions_not_found before 403 (create)" POST "$P/clients" "{\"name\":\"x\",\"permission_ids\":[\"$(pid users:create)\",\"nope\"]}"

# the admin's same requests pass
expect "$AS_ADMIN" 200 "admin grants users:read to the limited client" PUT "$P/clients/$LIM_C" "{\"name\":\"limited clients\",\"is_active\":true,\"permission_ids\":$(ids clients:create clients:read clients:update orders:read users:read)}"
expect "$AS_ADMIN" 201 "admin creates a client with all twelve" POST "$P/clients" "{\"name\":\"second admin\",\"permission_ids\":$ALL12}"
SECOND_ADMIN=$(jq -r .id <<<"$BODY")
expect "$AS_ADMIN" 200 "admin rotates a full client's secret" POST "$P/clients/$SECOND_ADMIN/secret"
# a token does not grow with its client: the limited token still lacks users:read
expect "$AS_C" "$DENIED" "the old token's scope decides, not the client's new set" POST "$P/clients" "{\"name\":\"x\",\"permission_ids\":$(ids users:read)}"

# ======== roles: a client holding roles:* ========
new_role full "${ALL_NAMES[@]}"
FULL_ROLE=$RID
new_client "limited roles" roles:create roles:read roles:update
AS_R="Bearer $(client_token "$CID" "$CSECRET")"

N=$(rows roles)
expect "$AS_R" "$DENIED" "create a role with users:update" POST "$P/roles" "{\"code\":\"evil\",\"name\":\"Evil\",\"permission_ids\":$(ids roles:read users:update)}"
check "no role created" "$(rows roles)" "$N"
expect "$AS_R" 201 "create a role with what it carries and project permissions" POST "$P/roles" "{\"code\":\"clerk\",\"name\":\"Clerk\",\"permission_ids\":$(ids roles:read orders:read orders:ship)}"
CLERK=$(jq -r .id <<<"$BODY")

BEFORE=$(snap roles "$CLERK")
expect "$AS_R" "$DENIED" "give a role all twelve" PUT "$P/roles/$CLERK" "{\"code\":\"clerk\",\"name\":\"Clerk\",\"permission_ids\":$ALL12}"
check "role unchanged" "$(snap roles "$CLERK")" "$BEFORE"
expect "$AS_R" 200 "update a role within its scope" PUT "$P/roles/$CLERK" "{\"code\":\"clerk\",\"name\":\"Clerk 2\",\"permission_ids\":$(ids roles:update orders:read)}"

BEFORE=$(snap roles "$FULL_ROLE")
expect "$AS_R" "$DENIED" "rename a role holding what it lacks" PUT "$P/roles/$FULL_ROLE" '{"code":"full","name":"renamed"}'
expect "$AS_R" "$DENIED" "strip a role holding what it lacks" PUT "$P/roles/$FULL_ROLE" '{"code":"full","name":"full","permission_ids":[]}'
check "full role unchanged" "$(snap roles "$FULL_ROLE")" "$BEFORE"

# order: invalid_params, role_not_found, some_permissions_not_found, then 403, then the conflict
expect "$AS_R" "400 invalid_params" "role: invalid_params before 403" PUT "$P/roles/$FULL_ROLE" '{"name":"no code"}'
expect "$AS_R" "404 role_not_found" "role_not_found before 403" PUT "$P/roles/nope" "{\"code\":\"x\",\"name\":\"x\",\"permission_ids\":$ALL12}"
expect "$AS_R" "404 some_permissions_not_found" "role: some_permissions_not_found before 403" PUT "$P/roles/$FULL_ROLE" '{"code":"full","name":"x","permission_ids":["nope"]}'
expect "$AS_R" "$DENIED" "role: 403 before role_code_already_used" POST "$P/roles" "{\"code\":\"clerk\",\"name\":\"x\",\"permission_ids\":$ALL12}"
expect "$AS_R" "$DENIED" "role update: 403 before role_code_already_used" PUT "$P/roles/$FULL_ROLE" '{"code":"clerk","name":"x"}'
expect "$AS_R" "409 role_code_already_used" "the conflict when nothing is escalated" POST "$P/roles" "{\"code\":\"clerk\",\"name\":\"x\",\"permission_ids\":$(ids orders:read)}"

expect "$AS_ADMIN" 200 "admin gives a role all twelve" PUT "$P/roles/$CLERK" "{\"code\":\"clerk\",\"name\":\"Clerk\",\"permission_ids\":$ALL12}"

# ======== users: a client holding users:* ========
new_role ops users:create users:update users:read
OPS_ROLE=$RID
new_role shop orders:read orders:ship
SHOP_ROLE=$RID
new_client "limited users" users:create users:read users:update
AS_U="Bearer $(client_token "$CID" "$CSECRET")"
expect "$AS_ADMIN" 201 "admin creates a full user" POST "$P/users" "{\"display_name\":\"Root\",\"email\":\"root@example.com\",\"password\":\"root password 1\",\"role_id\":\"$FULL_ROLE\"}"
ROOT_USER=$(jq -r .id <<<"$BODY")
expect "$AS_ADMIN" 201 "admin creates a full BYOU user" POST "$P/users" "{\"display_name\":\"Boss\",\"external_user_id\":\"boss\",\"role_id\":\"$FULL_ROLE\"}"

N=$(rows users)
expect "$AS_U" "$DENIED" "create a user in a role holding what it lacks" POST "$P/users" "{\"display_name\":\"Evil\",\"external_user_id\":\"evil\",\"role_id\":\"$FULL_ROLE\"}"
expect "$AS_U" "$DENIED" "the same with a password" POST "$P/users" "{\"display_name\":\"Evil\",\"email\":\"evil@example.com\",\"password\":\"evil password 1\",\"role_id\":\"$FULL_ROLE\"}"
check "no user created" "$(rows users)" "$N"
expect "$AS_U" 201 "create a user in a role of project permissions" POST "$P/users" "{\"display_name\":\"Clerk\",\"external_user_id\":\"clerk\",\"role_id\":\"$SHOP_ROLE\"}"
CLERK_USER=$(jq -r .id <<<"$BODY")
expect "$AS_U" 201 "create a user in a role within its scope" POST "$P/users" "{\"display_name\":\"Op\",\"external_user_id\":\"op\",\"role_id\":\"$OPS_ROLE\"}"

BEFORE=$(snap users "$CLERK_USER")
expect "$AS_U" "$DENIED" "move a user into a role holding what it lacks" PUT "$P/users/$CLERK_USER" "{\"is_active\":true,\"display_name\":\"Clerk\",\"external_user_id\":\"clerk\",\"role_id\":\"$FULL_ROLE\"}"
check "user unchanged" "$(snap users "$CLERK_USER")" "$BEFORE"
BEFORE=$(snap users "$ROOT_USER")
expect "$AS_U" "$DENIED" "deactivate a user whose role holds what it lacks" PUT "$P/users/$ROOT_USER" '{"display_name":"Root","email":"root@example.com","is_active":false}'
expect "$AS_U" "$DENIED" "set the password of such a user" PUT "$P/users/$ROOT_USER" '{"is_active":true,"display_name":"Root","email":"root@example.com","password":"taken over 1"}'
expect "$AS_U" "$DENIED" "take such a user's role away" PUT "$P/users/$ROOT_USER" '{"is_active":true,"display_name":"Root","email":"root@example.com","role_id":null}'
check "root user unchanged" "$(snap users "$ROOT_USER")" "$BEFORE"
expect "$AS_U" 200 "move a user into a role within its scope" PUT "$P/users/$CLERK_USER" "{\"is_active\":true,\"display_name\":\"Clerk 2\",\"external_user_id\":\"clerk\",\"role_id\":\"$OPS_ROLE\"}"

# order: invalid_params, user_not_found, role_not_found, then 403, then the conflicts
expect "$AS_U" "400 invalid_params" "user: invalid_params before 403" PUT "$P/users/$ROOT_USER" '{"display_name":"Root"}'
expect "$AS_U" "404 user_not_found" "user_not_found before 403" PUT "$P/users/nope" "{\"is_active\":true,\"display_name\":\"x\",\"external_user_id\":\"x\",\"role_id\":\"$FULL_ROLE\"}"
expect "$AS_U" "404 role_not_found" "role_not_found before 403" PUT "$P/users/$ROOT_USER" '{"is_active":true,"display_name":"Root","email":"root@example.com","role_id":"nope"}'
expect "$AS_U" "$DENIED" "user: 403 before user_email_already_used" POST "$P/users" "{\"display_name\":\"x\",\"email\":\"ROOT@example.com\",\"password\":\"whatever 12\",\"role_id\":\"$FULL_ROLE\"}"
expect "$AS_U" "$DENIED" "user: 403 before user_external_id_already_used" POST "$P/users" "{\"display_name\":\"x\",\"external_user_id\":\"boss\",\"role_id\":\"$FULL_ROLE\"}"
expect "$AS_U" "$DENIED" "user update: 403 before user_external_id_already_used" PUT "$P/users/$ROOT_USER" '{"is_active":true,"display_name":"Root","external_user_id":"clerk"}'

# BYOU codes: for a user it could not update
new_pkce
BYOU_BODY=$(jq -cn --arg c "$ORDERS_APP" --arg ch "$CHALLENGE" '{client_id:$c,redirect_uri:"http://127.0.0.1:9/cb",code_challenge:$ch,code_challenge_method:"S256"}')
expect "$AS_U" "$DENIED" "BYOU code for a user whose role holds what it lacks" POST "$P/users/external/boss/authorization-codes" "$BYOU_BODY"
check "no code stored" "$(rows auth_codes)" 0
expect "$AS_U" "404 user_not_found" "BYOU: user_not_found before 403" POST "$P/users/external/nobody/authorization-codes" "$BYOU_BODY"
expect "$AS_U" "404 client_not_found" "BYOU: client_not_found before 403" POST "$P/users/external/boss/authorization-codes" "$(jq -c '.client_id="nope"' <<<"$BYOU_BODY")"
expect "$AS_U" "400 invalid_params" "BYOU: invalid_params before 403" POST "$P/users/external/boss/authorization-codes" "$(jq -c '.redirect_uri="http://127.0.0.1:9/other"' <<<"$BYOU_BODY")"
expect "$AS_U" 201 "BYOU code for a user within its scope" POST "$P/users/external/op/authorization-codes" "$BYOU_BODY"
expect "$AS_ADMIN" 201 "admin gets a BYOU code for the full user" POST "$P/users/external/boss/authorization-codes" "$BYOU_BODY"
expect "$AS_ADMIN" 200 "admin moves a user into the full role" PUT "$P/users/$CLERK_USER" "{\"is_active\":true,\"display_name\":\"Clerk\",\"external_user_id\":\"clerk\",\"role_id\":\"$FULL_ROLE\"}"

# ======== a user token: its scope is its role's permissions ========
new_role desk users:create users:update users:read roles:read roles:update
DESK_ROLE=$RID
expect "$AS_ADMIN" 201 "admin creates mallory" POST "$P/users" "{\"display_name\":\"Mallory\",\"email\":\"mallory@example.com\",\"password\":\"mallory pass 1\",\"role_id\":\"$DESK_ROLE\"}"
MALLORY=$(jq -r .id <<<"$BODY")
AUTH="$AS_ADMIN" req POST "$P/clients" '{"name":"web","redirect_uris":["http://127.0.0.1:9/cb"]}'
WEB=$(jq -r .id <<<"$BODY")
sign_in "$WEB" "http://127.0.0.1:9/cb" mallory@example.com "mallory pass 1"
exchange "$WEB" "http://127.0.0.1:9/cb" "$CODE" "$VERIFIER"
check "mallory's scope is her role's" "$(jwt_claim "$ACCESS" scope)" "roles:read roles:update users:create users:read users:update"
AS_M="Bearer $ACCESS"

BEFORE=$(snap users "$MALLORY")
expect "$AS_M" "$DENIED" "a user gives themselves the full role" PUT "$P/users/$MALLORY" "{\"is_active\":true,\"display_name\":\"Mallory\",\"email\":\"mallory@example.com\",\"role_id\":\"$FULL_ROLE\"}"
check "mallory unchanged" "$(snap users "$MALLORY")" "$BEFORE"
BEFORE=$(snap roles "$DESK_ROLE")
expect "$AS_M" "$DENIED" "a user gives their own role all twelve" PUT "$P/roles/$DESK_ROLE" "{\"code\":\"desk\",\"name\":\"desk\",\"permission_ids\":$ALL12}"
check "desk role unchanged" "$(snap roles "$DESK_ROLE")" "$BEFORE"
expect "$AS_M" "$DENIED" "a user deactivates a full user" PUT "$P/users/$ROOT_USER" '{"display_name":"Root","email":"root@example.com","is_active":false}'
expect "$AS_M" "$DENIED" "a user asks a code for a full user" POST "$P/users/external/boss/authorization-codes" "$BYOU_BODY"
expect "$AS_M" 200 "a user moves themselves into a role of project permissions" PUT "$P/users/$MALLORY" "{\"is_active\":true,\"display_name\":\"Mallory M\",\"email\":\"mallory@example.com\",\"role_id\":\"$SHOP_ROLE\"}"
expect "$AS_M" 200 "PUT /users/current is not limited by the rule" PUT /api/v1/users/current '{"display_name":"Mallory","email":"mallory@example.com"}'

finish
