# Strict input of the management API (docs/api.md §"Conventions", issue 27):
# a body field that the endpoint neither takes nor answers with is
# invalid_params naming it and the nearest field it takes, and nothing is
# written; a record read with GET goes back as the body of its PUT; a
# malformed document's message names its line and column; a query
# parameter an endpoint does not take is invalid_params naming it. The OAuth
# and OpenID Connect endpoints, and the JSON body of
# POST /api/v1/tokens/current/revoke, keep ignoring what they do not know.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
start_server
load_resources

# refused NAME WANT: the last answer is 400 invalid_params whose
# error_description is exactly WANT
refused() {
	check_err "$1" 400 invalid_params
	check_json "$1: message" .error_description "$2"
}
# unknown NAME FIELD [NEAREST]: refused for the unknown field FIELD
unknown() {
	if [ -n "${3:-}" ]; then refused "$1" "unknown field \"$2\"; did you mean \"$3\"?"
	else refused "$1" "unknown field \"$2\""; fi
}
# count PATH: how many records the list at PATH holds
count() { req GET "$1"; jq -r .total <<<"$BODY"; }

rita_and_app   # USER (rita, role ROLE), APP with redirect REDIRECT
ORDERS_READ=$(pid users:read)

########## unknown body fields, each endpoint ##########
# The issue's probe: a role with "permissions" was created without them.
req POST "$P/roles" "{\"code\":\"orders\",\"name\":\"Orders\",\"permissions\":[\"$ORDERS_READ\"]}"
unknown "issue27.1: role create, permissions for permission_ids" permissions permission_ids
check "issue27.1: ... and no role written" "$(count "$P/roles?search=orders")" 0
req PUT "$P/roles/$ROLE" '{"code":"reader","name":"Reader","permision_ids":[]}'
unknown "issue27.1: role update, a typo" permision_ids permission_ids
req GET "$P/roles/$ROLE"
check_json "issue27.1: ... and the role keeps its permissions" '.permission_ids|length' 1

req POST "$P/resources" '{"name":"Orders","code":"orders","desc":"x"}'
unknown "issue27.1: resource create" desc description
req POST "$P/resources" '{"name":"Orders","code":"orders","permissions":[{"name":"Read","code":"read","scope":"x"}]}'
unknown "issue27.1: resource create, a permission item's field" "permissions[0].scope"
check "issue27.1: ... and no resource written" "$(count "$P/resources?search=orders")" 0
req POST "$P/resources" '{"name":"Orders","code":"orders","permissions":[{"name":"Read","code":"read"}]}'
check_status "a resource" 201
RES=$(jq -r .id <<<"$BODY")
req PUT "$P/resources/$RES" '{"name":"Orders","code":"orders","permissions":[],"descripton":"x"}'
unknown "issue27.1: resource update" descripton description
req GET "$P/resources/$RES"
check_json "issue27.1: ... and the resource keeps its permission" '.permissions|length' 1

req POST "$P/users" '{"display_name":"Bob","external_user_id":"bob","role":"x"}'
unknown "issue27.1: user create" role role_id
check "issue27.1: ... and no user written" "$(count "$P/users?search=bob")" 0
req PUT "$P/users/$USER" '{"display_name":"Rita","email":"rita@example.com","is_active":true,"emial":"r@example.com"}'
unknown "issue27.1: user update" emial email
req POST "$P/clients" '{"name":"x","redirect_uri":"https://x.example/cb"}'
unknown "issue27.1: client create" redirect_uri redirect_uris
req POST "$P/clients" '{"name":"x","client_secret":"mine"}'
unknown "issue27.1: client create, a secret of the caller's" client_secret
check "issue27.1: ... and no client written" "$(count "$P/clients?search=x")" 0
req PUT "$P/clients/$APP" '{"name":"app","is_active":true,"scopes":"a"}'
unknown "issue27.1: client update" scopes
new_pkce
req POST "$P/users/external/ext/authorization-codes" "{\"client_id\":\"$APP\",\"redirect_uri\":\"$REDIRECT\",\"code_challenge\":\"$CHALLENGE\",\"code_challenge_method\":\"S256\",\"state\":\"s\"}"
unknown "issue27.1: BYOU code" state
# The unknown field is told before another field's mistake, and never quoted with its value.
req POST "$P/roles" '{"nmae":"Orders","code":"orders"}'
unknown "issue27.1: a typo of a required field is named as such" nmae name

########## a record read with GET is the body of its PUT ##########
roundtrip() {   # roundtrip NAME PATH [JQ]: GET PATH, PUT it back (through JQ), same record
	local before
	req GET "$2"
	before=$(jq -c "del(.updated_at)" <<<"$BODY")
	req PUT "$2" "$(jq -c "${3:-.}" <<<"$BODY")"
	check_status "issue27.2: $1: GET's record as PUT's body" 200
	check "issue27.2: $1: record unchanged" "$(jq -c 'del(.updated_at)' <<<"$BODY")" "$before"
}
roundtrip "resource" "$P/resources/$RES"
roundtrip "role" "$P/roles/$ROLE"
roundtrip "user" "$P/users/$USER"
roundtrip "client" "$P/clients/$APP"
roundtrip "admin client" "$P/clients/$CLIENT_ID"
req PUT "$P/clients/$APP" "{\"name\":\"app\",\"is_active\":true,\"allowed_role_ids\":[\"$ROLE\"]}"
check_status "issue31.1: a client with an access rule" 200
roundtrip "issue31.1: client with allowed_role_ids" "$P/clients/$APP"
req PUT "$P/clients/$APP" '{"name":"app","is_active":true,"allowed_role_ids":[]}'
req POST "$P/users" '{"display_name":"Ext","external_user_id":"ext"}'
check_status "a user without email" 201
roundtrip "user without email" "$P/users/$(jq -r .id <<<"$BODY")"
signed_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
check_status "rita signs in" 200
AUTH="Bearer $ACCESS" roundtrip "current user" /api/v1/users/current
AUTH="Bearer $ACCESS" req PUT /api/v1/users/current '{"display_name":"Rita","email":"rita@example.com","passwrod":"x"}'
unknown "issue27.1: current user" passwrod password

########## a malformed document says where ##########
req POST "$P/roles" $'{\n  "code": "c",\n  "name": "n",\n}'
refused "issue27.3: malformed JSON names line and column" \
	"request body is not valid JSON (line 4, column 1)"

########## unknown query parameters ##########
req GET "$P/users?email=rita@example.com"
refused "issue27.4: users list ?email= is not the whole list" 'unknown query parameter "email"'
req GET "$P/roles?page=2"
refused "issue27.4: roles list ?page=" 'unknown query parameter "page"; did you mean "page_num"?'
req GET "$P/resources?sort_by=name"
refused "issue27.4: resources have no sort" 'unknown query parameter "sort_by"'
req GET "$P/clients?active=true"
refused "issue27.4: clients list ?active=" 'unknown query parameter "active"; did you mean "is_active"?'
req GET "$P/users/external/ext?include_permission=true"
refused "issue27.4: external user" \
	'unknown query parameter "include_permission"; did you mean "include_permissions"?'
req GET "$P/roles/$ROLE?fields=id"
refused "issue27.4: one role" 'unknown query parameter "fields"'
req DELETE "$P/resources/$RES?force=true"
refused "issue27.4: delete" 'unknown query parameter "force"'
req GET "$P/resources/$RES"
check_status "issue27.4: ... and nothing deleted" 200
req POST "$P/roles?dry_run=true" '{"code":"dry","name":"Dry"}'
refused "issue27.4: create" 'unknown query parameter "dry_run"'
check "issue27.4: ... and no role written" "$(count "$P/roles?search=dry")" 0
AUTH="Bearer $ACCESS" req GET "/api/v1/users/current?x=1"
refused "issue27.4: current user" 'unknown query parameter "x"'
# What each list takes is still taken.
req GET "$P/users?page_num=1&page_size=5&search=rita&sort_by=email&sort_dir=asc&is_active=true&role_id=$ROLE"
check_json "issue27.4: users list, every parameter it takes" .total 1
req GET "$P/roles?page_num=1&page_size=5&search=reader&sort_by=code&sort_dir=asc"
check_json "issue27.4: roles list, every parameter it takes" .total 1
req GET "$P/resources?page_num=1&page_size=5&search=orders&is_default=false"
check_json "issue27.4: resources list, every parameter it takes" .total 1
req GET "$P/clients?page_num=1&page_size=5&search=app&sort_by=name&sort_dir=asc&is_active=true"
check_json "issue27.4: clients list, every parameter it takes" .total 1
req GET "$P/users/external/ext?include_permissions=true"
check_status "issue27.4: external user, include_permissions" 200

########## OAuth and OpenID Connect endpoints ignore what they do not know ##########
token_req grant_type=client_credentials "client_id=$CLIENT_ID" "client_secret=$CLIENT_SECRET" \
	scope=x resource=https://r.example unknown=1
check_status "issue27.5: token endpoint ignores unknown parameters" 200
signed_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
ACCESS_OLD=$ACCESS REFRESH_OLD=$REFRESH
BASIC="$APP:$APP_SECRET" ENDPOINT=/api/v1/tokens/introspect token_req "token=$ACCESS" unknown=1
check_json "issue27.5: introspection ignores unknown parameters" .active true
# same NAME URL: URL and URL&unknown=1&ui_locales=de get the same status,
# one that is not invalid_params' 400
same() {
	local plain with
	plain=$(curl -s -o /dev/null -w '%{http_code}' ${AUTHZ:+-H "Authorization: $AUTHZ"} "$BASE$2")
	with=$(curl -s -o /dev/null -w '%{http_code}' ${AUTHZ:+-H "Authorization: $AUTHZ"} "$BASE$2&unknown=1&ui_locales=de")
	check "issue27.5: $1 ignores unknown parameters" "$with" "$plain"
	[ "$with" != 400 ] && pass || fail "issue27.5: $1 answered 400"
}
AUTHZ="Bearer $ACCESS" same "userinfo" "/api/v1/userinfo?a=1"
new_pkce
same "authorize" "/api/v1/authorize?response_type=code&client_id=$APP&redirect_uri=$REDIRECT&code_challenge=$CHALLENGE&code_challenge_method=S256"
same "logout" "/api/v1/logout?client_id=$APP"
AUTH=none req GET "/.well-known/openid-configuration?v=1"
check_status "issue27.5: discovery ignores unknown parameters" 200
AUTH=none req POST /api/v1/tokens/current/revoke "{\"client_id\":\"$APP\",\"refresh_token\":\"$REFRESH_OLD\",\"reason\":\"x\"}"
check_status "issue27.5: the seed's revocation ignores unknown body fields" 200
refresh "$APP" "$REFRESH_OLD"
check_err "issue27.5: ... and revoked" 400 invalid_refresh_token
signed_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
BASIC="$APP:$APP_SECRET" ENDPOINT=/api/v1/tokens/revoke token_req "token=$REFRESH" unknown=1
check_status "issue27.5: RFC 7009 revocation ignores unknown parameters" 200
refresh "$APP" "$REFRESH"
check_err "issue27.5: ... and revoked" 400 invalid_refresh_token

finish
