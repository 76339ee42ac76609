# Users: create, update and get by external ID (docs/api.md §"Users",
# docs/api.md §"Which error wins", §"Records"): happy paths, every error code, precedence, limits.
# Roles and a limited client are inserted through lib.sh's db (either backend).
. "$(dirname "$0")/lib.sh"
start_server
keepalive_client

# rep N STRING: STRING repeated N times
rep() { local out="" i; for ((i = 0; i < $1; i++)); do out+=$2; done; printf '%s' "$out"; }
# add_role ID PROJECT NAME [RESOURCE:PERMISSION...]
add_role() {
	local id=$1 project=$2 name=$3 q named; shift 3
	q="INSERT INTO roles (id, project_id, code, name, created_at, updated_at)
	   VALUES ('$id', '$project', '$id', '$name', 0, 0);"
	for named in "$@"; do
		q+="INSERT INTO role_permissions SELECT '$id', pm.id FROM permissions pm
		    JOIN resources r ON r.id = pm.resource_id WHERE pm.project_id = '$project'
		    AND r.code = '${named%%:*}' AND pm.code = '${named#*:}';"
	done
	db "$q"
}
# add_client PROJECT NAMED_PERMISSION...: a client holding only those; prints ID:SECRET
add_client() {
	local project=$1 id secret hash q named; shift
	id=cl$RANDOM$RANDOM; secret=s$RANDOM$RANDOM$RANDOM
	hash=$(printf '%s' "$secret" | openssl dgst -sha256 -binary | base64 -w0 | tr '+/' '-_' | tr -d '=')
	q="INSERT INTO clients (id, project_id, name, secret_hash, created_at, updated_at)
	   VALUES ('$id', '$project', 'limited', '$hash', 0, 0);"
	for named in "$@"; do
		q+="INSERT INTO client_permissions SELECT '$id', pm.id FROM permissions pm
		    JOIN resources r ON r.id = pm.resource_id WHERE pm.project_id = '$project'
		    AND r.code = '${named%%:*}' AND pm.code = '${named#*:}';"
	done
	db "$q"
	printf '%s:%s' "$id" "$secret"
}

# A second project, its admin token, and a role of its own.
OTHER=$("$EDGEAUTH" -c "$CONF" project create --name other)
OTHER_ID=$(jq -r .project_id <<<"$OTHER")
OTHER_TOKEN=$(client_token "$(jq -r .client_id <<<"$OTHER")" "$(jq -r .client_secret <<<"$OTHER")")
OP="/api/v1/projects/$OTHER_ID"
add_role role_editor "$PROJECT_ID" "Editor" users:read users:update roles:read
add_role role_empty "$PROJECT_ID" "Nobody"
add_role role_other "$OTHER_ID" "Other editor" users:read
# A project resource's permission shows up too.
db "INSERT INTO resources (id, project_id, name, code, is_default, created_at, updated_at)
     VALUES ('res_orders', '$PROJECT_ID', 'Orders', 'orders', false, 0, 0);
     INSERT INTO permissions (id, resource_id, project_id, name, code, position)
     VALUES ('perm_orders_read', 'res_orders', '$PROJECT_ID', 'Read', 'read', 0);
     INSERT INTO role_permissions VALUES ('role_editor', 'perm_orders_read');"

RECORD_KEYS='["avatar_url","created_at","display_name","email","email_verified","external_user_id","id","is_active","role_id","role_name","second_factors","updated_at"]'

# ---- create: happy paths ----
# issue27: an unknown field is refused; the record's own fields (is_active, id) are ignored
req POST "$P/users" '{"display_name":"Bea Byou","external_user_id":"byou-1","is_active":false,"unknown":[1,{"x":2}]}'
check_err "create: unknown field refused" 400 invalid_params
req POST "$P/users" '{"display_name":"Bea Byou","external_user_id":"byou-1","is_active":false,"id":"mine"}'
check_status "create byou" 201
check_header "create content type" '^Content-Type: application/json$'
check_json "create keys" 'keys|tojson' "$RECORD_KEYS"
check_json "create byou fields" '[.display_name,.external_user_id,.email,.avatar_url,.role_id,.role_name]|tojson' \
	'["Bea Byou","byou-1",null,null,null,null]'
check_json "create ignores is_active" .is_active true
check_json "create timestamps" '(.created_at|test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$")) and .created_at == .updated_at' true
check_json "create id is url-safe" '.id|test("^[A-Za-z0-9_-]{16,64}$")' true
BYOU_ID=$(jq -r .id <<<"$BODY")

PW1='correct horse battery'
req POST "$P/users" '{"display_name":"Fay Managed","email":"Fay@Example.com","password":"'"$PW1"'","avatar_url":"https://img.example.com/fay.png","role_id":"role_editor","external_user_id":null}'
check_status "create managed" 201
check_json "create managed fields" '[.email,.avatar_url,.role_id,.role_name,.external_user_id]|tojson' \
	'["Fay@Example.com","https://img.example.com/fay.png","role_editor","Editor",null]'
check_json "create has no password" '[has("password"), has("password_hash")]|tojson' '[false,false]'
check "create response holds no password" "$(grep -c "$PW1" <<<"$BODY")" 0
FAY_ID=$(jq -r .id <<<"$BODY")
check "password stored as argon2id" "$(db "SELECT substr(password_hash, 1, 10) FROM users WHERE id = '$FAY_ID'")" '$argon2id$'
check "byou user has no password" "$(db "SELECT CAST(password_hash IS NULL AS INTEGER) FROM users WHERE id = '$BYOU_ID'")" 1

req POST "$P/users" '{"display_name":"Both","email":"both@example.com","password":"12345678","external_user_id":"both-1","role_id":"role_empty"}'
check_status "create with email and external id" 201
BOTH_ID=$(jq -r .id <<<"$BODY")
req POST "$P/users" '{"display_name":"Empty optionals","external_user_id":"opt-1","email":"","avatar_url":"","role_id":"","password":""}'
check_status "create: empty optionals are no value" 201
check_json "create: empty optionals null" '[.email,.avatar_url,.role_id]|tojson' '[null,null,null]'
req POST "$P/users" '{"display_name":"Byou pw","external_user_id":"byou-pw","password":"byou-password"}'
check_status "create: password without email" 201
CTYPE='application/json; charset=utf-8' req POST "$P/users" '{"display_name":"Charset","external_user_id":"charset-1"}'
check_status "create: charset in content type" 201

# Limits count code points: 50 x "é" is 100 bytes.
req POST "$P/users" "{\"display_name\":\"$(rep 50 é)\",\"external_user_id\":\"$(rep 100 ü)\"}"
check_status "create: 50-char name, 100-char external id (multi-byte)" 201
req POST "$P/users" "{\"display_name\":\"$(rep 50 x)\",\"external_user_id\":\"$(rep 100 x)\",\"email\":\"$(rep 88 a)@example.com\",\"password\":\"$(rep 1024 p)\",\"avatar_url\":\"https://x.io/$(rep 2035 a)\"}"
check_status "create: every field at its limit" 201
req POST "$P/users" "{\"display_name\":\"Eight é\",\"email\":\"eight@example.com\",\"password\":\"$(rep 8 é)\"}"
check_status "create: 8-char multi-byte password" 201

# ---- create: invalid_params ----
bad_create() { # NAME BODY
	req POST "$P/users" "$2"
	check_err "create invalid: $1" 400 invalid_params
}
bad_create "no display_name" '{"external_user_id":"x1"}'
bad_create "display_name empty" '{"display_name":"","external_user_id":"x1"}'
bad_create "display_name null" '{"display_name":null,"external_user_id":"x1"}'
bad_create "display_name number" '{"display_name":5,"external_user_id":"x1"}'
bad_create "display_name 51 chars" "{\"display_name\":\"$(rep 51 x)\",\"external_user_id\":\"x1\"}"
bad_create "display_name 51 multi-byte chars" "{\"display_name\":\"$(rep 51 é)\",\"external_user_id\":\"x1\"}"
bad_create "neither email nor external id" '{"display_name":"N"}'
bad_create "email empty, no external id" '{"display_name":"N","email":""}'
bad_create "external id empty, no email" '{"display_name":"N","external_user_id":""}'
bad_create "external id null, no email" '{"display_name":"N","external_user_id":null}'
bad_create "external id 101 chars" "{\"display_name\":\"N\",\"external_user_id\":\"$(rep 101 x)\"}"
bad_create "external id number" '{"display_name":"N","external_user_id":42}'
bad_create "email without password" '{"display_name":"N","email":"n@example.com"}'
bad_create "email, password empty" '{"display_name":"N","email":"n@example.com","password":""}'
bad_create "email, password null" '{"display_name":"N","email":"n@example.com","password":null}'
bad_create "password 7 chars" '{"display_name":"N","email":"n@example.com","password":"1234567"}'
bad_create "password 7 multi-byte chars" "{\"display_name\":\"N\",\"email\":\"n@example.com\",\"password\":\"$(rep 7 é)\"}"
bad_create "password 1025 chars" "{\"display_name\":\"N\",\"email\":\"n@example.com\",\"password\":\"$(rep 1025 p)\"}"
bad_create "password number" '{"display_name":"N","email":"n@example.com","password":12345678}'
bad_create "email malformed" '{"display_name":"N","email":"not-an-email","password":"12345678"}'
bad_create "email with space" '{"display_name":"N","email":"a b@example.com","password":"12345678"}'
bad_create "email 101 chars" "{\"display_name\":\"N\",\"email\":\"$(rep 89 a)@example.com\",\"password\":\"12345678\"}"
bad_create "email boolean" '{"display_name":"N","email":true,"password":"12345678","external_user_id":"x1"}'
bad_create "avatar ftp" '{"display_name":"N","external_user_id":"x1","avatar_url":"ftp://x.io/a.png"}'
bad_create "avatar relative" '{"display_name":"N","external_user_id":"x1","avatar_url":"/a.png"}'
bad_create "avatar no host" '{"display_name":"N","external_user_id":"x1","avatar_url":"https://"}'
bad_create "avatar 2049 chars" "{\"display_name\":\"N\",\"external_user_id\":\"x1\",\"avatar_url\":\"https://x.io/$(rep 2036 a)\"}"
bad_create "avatar array" '{"display_name":"N","external_user_id":"x1","avatar_url":[]}'
bad_create "role_id number" '{"display_name":"N","external_user_id":"x1","role_id":7}'
bad_create "role_id 65 chars" "{\"display_name\":\"N\",\"external_user_id\":\"x1\",\"role_id\":\"$(rep 65 r)\"}"
bad_create "U+0000 in display_name" '{"display_name":"a\u0000b","external_user_id":"x1"}'
bad_create "U+0000 in external id" '{"display_name":"N","external_user_id":"x\u0000"}'
bad_create "lone surrogate escape" '{"display_name":"\ud800","external_user_id":"x1"}'
bad_create "malformed JSON" '{"display_name":"N",'
bad_create "top level array" '[{"display_name":"N","external_user_id":"x1"}]'
bad_create "duplicate key" '{"display_name":"N","external_user_id":"x1","external_user_id":"x2"}'
req POST "$P/users" "$(printf '{"display_name":"\xff\xfe","external_user_id":"x1"}')"
check_err "create invalid: invalid UTF-8" 400 invalid_params
CTYPE=text/plain req POST "$P/users" '{"display_name":"N","external_user_id":"x1"}'
check_err "create invalid: text/plain" 400 invalid_params
req POST "$P/users" -H 'Content-Type: application/json'
check_err "create invalid: empty body" 400 invalid_params
check "no invalid create was stored" "$(db "SELECT count(*) FROM users WHERE external_user_id = 'x1' OR display_name = 'N'")" 0

# ---- create: not found and conflicts ----
req POST "$P/users" '{"display_name":"N","external_user_id":"new-1","role_id":"no-such-role"}'
check_err "create: unknown role" 404 role_not_found
req POST "$P/users" '{"display_name":"N","external_user_id":"new-1","role_id":"role_other"}'
check_err "create: role of another project" 404 role_not_found
req POST "$P/users" '{"display_name":"N","external_user_id":"byou-1"}'
check_err "create: external id used" 409 user_external_id_already_used
req POST "$P/users" '{"display_name":"N","email":"fAY@eXAMPLE.COM","password":"12345678"}'
check_err "create: email used (other case)" 409 user_email_already_used
req POST "$P/users" '{"display_name":"N","email":"fay@example.com","password":"12345678","external_user_id":"byou-1"}'
check_err "create: both used, external id first" 409 user_external_id_already_used
req POST "$P/users" '{"display_name":"N","external_user_id":"byou-1","role_id":"no-such-role"}'
check_err "create: role_not_found before conflict" 404 role_not_found
req POST "$P/users" '{"display_name":"","external_user_id":"byou-1","role_id":"no-such-role"}'
check_err "create: invalid_params before role_not_found" 400 invalid_params
req POST "$P/users" '{"display_name":"N","external_user_id":"byou-1","email":"fay@example.com"}'
check_err "create: invalid_params (no password) before conflict" 400 invalid_params
req POST "$P/users" '{"display_name":"Case","external_user_id":"BYOU-1"}'
check_status "create: external ids are case-sensitive" 201
AUTH="Bearer $OTHER_TOKEN" req POST "$OP/users" '{"display_name":"Other Bea","external_user_id":"byou-1","email":"fay@example.com","password":"12345678"}'
check_status "create: same external id and email in another project" 201
OTHER_USER_ID=$(jq -r .id <<<"$BODY")
AUTH="Bearer $OTHER_TOKEN" req POST "$OP/users" '{"display_name":"Only there","external_user_id":"only-other"}'
check_status "create: user only in the other project" 201

# ---- authorization (checked by the router, before the body) ----
AUTH=none req POST "$P/users" '{"display_name":"N","external_user_id":"auth-1"}'
check_err "create: no token" 401 invalid_authorization_token
AUTH="Bearer nope" req GET "$P/users"
check_err "list: bad token" 401 invalid_authorization_token
AUTH="Bearer $OTHER_TOKEN" req POST "$P/users" '{"display_name":"N","external_user_id":"auth-1"}'
check_err "create: token of another project" 403 insufficient_permission
req POST "/api/v1/projects/no-such-project/users" '{"display_name":"N","external_user_id":"auth-1"}'
check_err "create: unknown project" 404 project_not_found
READER=$(add_client "$PROJECT_ID" users:read)
READ_TOKEN=$(client_token "${READER%%:*}" "${READER#*:}")
AUTH="Bearer $READ_TOKEN" req POST "$P/users" '{"display_name":"N","external_user_id":"auth-1"}'
check_err "create: without users:create" 403 insufficient_permission
AUTH="Bearer $READ_TOKEN" req PUT "$P/users/$BYOU_ID" '{"display_name":"N","is_active":true,"external_user_id":"auth-1"}'
check_err "update: without users:update" 403 insufficient_permission
AUTH="Bearer $READ_TOKEN" req GET "$P/users/external/byou-1"
check_status "get external: users:read is enough" 200
AUTH="Bearer $READ_TOKEN" req GET "$P/users"
check_status "list: users:read is enough" 200
WRITER=$(add_client "$PROJECT_ID" users:create users:update)
WRITE_TOKEN=$(client_token "${WRITER%%:*}" "${WRITER#*:}")
AUTH="Bearer $WRITE_TOKEN" req GET "$P/users"
check_err "list: without users:read" 403 insufficient_permission
AUTH="Bearer $WRITE_TOKEN" req GET "$P/users/external/byou-1"
check_err "get external: without users:read" 403 insufficient_permission

# ---- update: happy paths ----
req PUT "$P/users/$FAY_ID" '{"display_name":"Fay Renamed","is_active":false,"email":"fay@example.com"}'
check_status "update: rename, deactivate" 200
check_json "update keys" 'keys|tojson' "$RECORD_KEYS"
check_json "update: omitted fields kept" '[.display_name,.is_active,.email,.avatar_url,.role_id,.role_name,.external_user_id]|tojson' \
	'["Fay Renamed",false,"fay@example.com","https://img.example.com/fay.png","role_editor","Editor",null]'
check_json "update: same id" .id "$FAY_ID"
FAY_CREATED=$(db "SELECT created_at FROM users WHERE id = '$FAY_ID'")
check_json "update: updated_at moves, created_at stays" \
	"(.updated_at > .created_at) and (.created_at == \"$(jq -r .created_at <<<"$BODY")\")" true
check "update: password kept when absent" "$(db "SELECT CAST(password_hash IS NOT NULL AS INTEGER) FROM users WHERE id = '$FAY_ID'")" 1
HASH0=$(db "SELECT password_hash FROM users WHERE id = '$FAY_ID'")
req PUT "$P/users/$FAY_ID" '{"display_name":"Fay","is_active":true,"email":"fay@example.com","password":null}'
check "update: password null keeps" "$(db "SELECT password_hash FROM users WHERE id = '$FAY_ID'")" "$HASH0"
req PUT "$P/users/$FAY_ID" '{"display_name":"Fay","is_active":true,"email":"fay@example.com","password":""}'
check "update: password empty keeps" "$(db "SELECT password_hash FROM users WHERE id = '$FAY_ID'")" "$HASH0"
PW2='another long secret'
req PUT "$P/users/$FAY_ID" '{"display_name":"Fay","is_active":true,"email":"fay@example.com","password":"'"$PW2"'"}'
check_status "update: new password" 200
HASH1=$(db "SELECT password_hash FROM users WHERE id = '$FAY_ID'")
check "update: password changed" "$([ "$HASH1" != "$HASH0" ] && [ "${HASH1:0:10}" == '$argon2id$' ] && echo yes)" yes
check "update response holds no password" "$(grep -c "$PW2" <<<"$BODY")" 0
req PUT "$P/users/$FAY_ID" '{"display_name":"Fay","is_active":true,"email":"FAY@example.com"}'
check_status "update: own email in another case" 200
check_json "update: email case stored as sent" .email FAY@example.com

req PUT "$P/users/$FAY_ID" '{"display_name":"Fay","is_active":true,"email":"fay@example.com","avatar_url":null,"role_id":null,"external_user_id":"fay-ext"}'
check_json "update: null clears avatar and role; sets external id" '[.avatar_url,.role_id,.role_name,.external_user_id]|tojson' '[null,null,null,"fay-ext"]'
req PUT "$P/users/$FAY_ID" '{"display_name":"Fay","is_active":true,"email":null,"external_user_id":"fay-ext","avatar_url":"http://a.example/x","role_id":"role_empty"}'
check_json "update: null clears email; sets avatar and role" '[.email,.avatar_url,.role_id,.role_name]|tojson' '[null,"http://a.example/x","role_empty","Nobody"]'
req PUT "$P/users/$FAY_ID" '{"display_name":"Fay","is_active":true,"email":"fay@example.com","external_user_id":"","avatar_url":"","role_id":""}'
check_json "update: empty string clears" '[.external_user_id,.avatar_url,.role_id,.email]|tojson' '[null,null,null,"fay@example.com"]'
req PUT "$P/users/$BYOU_ID" '{"display_name":"Bea","is_active":true,"external_user_id":"byou-1","email":"bea@example.com"}'
check_status "update: email added without password" 200
check "update: byou user still has no password" "$(db "SELECT CAST(password_hash IS NULL AS INTEGER) FROM users WHERE id = '$BYOU_ID'")" 1
req PUT "$P/users/$BYOU_ID" '{"display_name":"Bea","is_active":true,"external_user_id":"byou-1","unknown":1}'
check_err "update: unknown field refused (issue27)" 400 invalid_params
req PUT "$P/users/$BYOU_ID" '{"display_name":"Bea","is_active":true,"external_user_id":"byou-1"}'
check_json "update: omitted email kept" .email bea@example.com
req PUT "$P/users/$BYOU_ID" '{"display_name":"Bea","is_active":true,"external_user_id":"byou-1","is_active":true}'
check_err "update: duplicate key" 400 invalid_params

# ---- update: invalid_params ----
bad_update() { # NAME BODY
	req PUT "$P/users/$BOTH_ID" "$2"
	check_err "update invalid: $1" 400 invalid_params
}
bad_update "no display_name" '{"is_active":true,"external_user_id":"both-1"}'
bad_update "display_name empty" '{"display_name":"","is_active":true,"external_user_id":"both-1"}'
bad_update "display_name 51 chars" "{\"display_name\":\"$(rep 51 é)\",\"is_active\":true,\"external_user_id\":\"both-1\"}"
bad_update "no is_active" '{"display_name":"B","external_user_id":"both-1"}'
bad_update "is_active null" '{"display_name":"B","is_active":null,"external_user_id":"both-1"}'
bad_update "is_active string" '{"display_name":"B","is_active":"true","external_user_id":"both-1"}'
bad_update "is_active number" '{"display_name":"B","is_active":1,"external_user_id":"both-1"}'
bad_update "rule 1: neither email nor external id" '{"display_name":"B","is_active":true}'
bad_update "rule 1: email null, external id empty" '{"display_name":"B","is_active":true,"email":null,"external_user_id":""}'
bad_update "rule 1: email empty, external id null" '{"display_name":"B","is_active":true,"email":"","external_user_id":null}'
bad_update "password 7 chars" '{"display_name":"B","is_active":true,"email":"both@example.com","password":"1234567"}'
bad_update "password 1025 chars" "{\"display_name\":\"B\",\"is_active\":true,\"email\":\"both@example.com\",\"password\":\"$(rep 1025 p)\"}"
bad_update "password boolean" '{"display_name":"B","is_active":true,"email":"both@example.com","password":true}'
bad_update "email malformed" '{"display_name":"B","is_active":true,"email":"both@","external_user_id":"both-1"}'
bad_update "external id 101 chars" "{\"display_name\":\"B\",\"is_active\":true,\"external_user_id\":\"$(rep 101 e)\"}"
bad_update "avatar not http" '{"display_name":"B","is_active":true,"external_user_id":"both-1","avatar_url":"javascript:alert(1)"}'
bad_update "role_id object" '{"display_name":"B","is_active":true,"external_user_id":"both-1","role_id":{}}'
bad_update "U+0000" '{"display_name":"B\u0000","is_active":true,"external_user_id":"both-1"}'
bad_update "not an object" '"B"'
CTYPE=application/x-www-form-urlencoded req PUT "$P/users/$BOTH_ID" 'display_name=B&is_active=true&external_user_id=both-1'
check_err "update invalid: form body" 400 invalid_params
req GET "/api/v1/projects/$PROJECT_ID/users/external/both-1"
check_json "invalid updates changed nothing" '[.display_name,.is_active,.email,.role_id]|tojson' '["Both",true,"both@example.com","role_empty"]'

# ---- update: not found, conflicts, precedence ----
req PUT "$P/users/no-such-user" '{"display_name":"B","is_active":true,"external_user_id":"zz-1"}'
check_err "update: unknown user" 404 user_not_found
req PUT "$P/users/$OTHER_USER_ID" '{"display_name":"B","is_active":true,"external_user_id":"zz-1"}'
check_err "update: user of another project" 404 user_not_found
req PUT "$P/users/no-such-user" '{"display_name":"B","is_active":"yes","external_user_id":"zz-1"}'
check_err "update: invalid_params before user_not_found" 400 invalid_params
req PUT "$P/users/no-such-user" '{"display_name":"B","is_active":true,"external_user_id":"byou-1","role_id":"no-such-role"}'
check_err "update: user_not_found before role_not_found and conflict" 404 user_not_found
req PUT "$P/users/$BOTH_ID" '{"display_name":"B","is_active":true,"external_user_id":"byou-1","role_id":"no-such-role"}'
check_err "update: unknown role before conflict" 404 role_not_found
req PUT "$P/users/$BOTH_ID" '{"display_name":"B","is_active":true,"external_user_id":"both-1","role_id":"role_other"}'
check_err "update: role of another project" 404 role_not_found
req PUT "$P/users/$BOTH_ID" '{"display_name":"B","is_active":true,"external_user_id":"byou-1"}'
check_err "update: external id of another user" 409 user_external_id_already_used
req PUT "$P/users/$BOTH_ID" '{"display_name":"B","is_active":true,"email":"FAY@EXAMPLE.com"}'
check_err "update: email of another user (other case)" 409 user_email_already_used
req PUT "$P/users/$BOTH_ID" '{"display_name":"B","is_active":true,"email":"fay@example.com","external_user_id":"byou-1"}'
check_err "update: both taken, external id first" 409 user_external_id_already_used
req PUT "$P/users/$BOTH_ID" '{"display_name":"Both","is_active":true,"email":"BOTH@example.com","external_user_id":"both-1"}'
check_status "update: own values are no conflict" 200

# ---- get by external ID ----
req GET "$P/users/external/both-1"
check_status "get external" 200
check_json "get external: record" '[.id,.display_name,.role_id,.role_name,has("permissions")]|tojson' \
	"[\"$BOTH_ID\",\"Both\",\"role_empty\",\"Nobody\",false]"
check_json "get external keys" 'keys|tojson' "$RECORD_KEYS"
req GET "$P/users/external/both-1?include_permissions=false"
check_json "include_permissions=false: no field" 'has("permissions")' false
req GET "$P/users/external/both-1?include_permissions=true"
check_json "include_permissions: role without permissions" '.permissions|tojson' '[]'
req PUT "$P/users/$BOTH_ID" '{"display_name":"Both","is_active":true,"external_user_id":"both-1","role_id":"role_editor"}'
req GET "$P/users/external/both-1?include_permissions=true"
check_json "include_permissions: named forms, sorted" '.permissions|tojson' \
	'["orders:read","roles:read","users:read","users:update"]'
check_json "include_permissions: record too" '[.role_id,.role_name]|tojson' '["role_editor","Editor"]'
# A role's permissions are cached; changes through the API show at once.
req PUT "$P/roles/role_editor" '{"code":"role_editor","name":"Editor","permission_ids":["perm_orders_read"]}'
check_status "role narrowed to orders:read" 200
req GET "$P/users/external/both-1?include_permissions=true"
check_json "include_permissions: after the role's update" '.permissions|tojson' '["orders:read"]'
req PUT "$P/resources/res_orders" '{"name":"Orders","code":"purchases"}'
check_status "resource renamed" 200
req GET "$P/users/external/both-1?include_permissions=true"
check_json "include_permissions: after the resource's rename" '.permissions|tojson' '["purchases:read"]'
# It lists what a token of the user carries: an update may store a resource
# code that a create refuses (docs/api.md §"Resources"), and no token's scope holds its
# permissions (docs/decisions.md "Codes"), so neither does the record.
req PUT "$P/resources/res_orders" '{"name":"Orders","code":"x orders"}'
check_status "resource renamed to a code no scope holds" 200
req GET "$P/users/external/both-1?include_permissions=true"
check_json "include_permissions: only what a token carries" '.permissions|tojson' '[]'
req PUT "$P/resources/res_orders" '{"name":"Orders","code":"orders"}'
req PUT "$P/roles/role_editor" "$(db "SELECT permission_id FROM role_permissions
	WHERE role_id = 'role_editor' UNION SELECT pm.id FROM permissions pm JOIN resources r
	ON r.id = pm.resource_id WHERE pm.project_id = '$PROJECT_ID' AND r.code || ':' || pm.code
	IN ('users:read', 'users:update', 'roles:read')" |
	jq -Rsc '{code: "role_editor", name: "Editor", permission_ids: (split("\n") - [""])}')"
check_status "role restored" 200
req GET "$P/users/external/both-1?include_permissions=true"
check_json "include_permissions: restored" '.permissions|tojson' \
	'["orders:read","roles:read","users:read","users:update"]'
req GET "$P/users/external/opt-1?include_permissions=true"
check_json "include_permissions: user without role" '.permissions|tojson' '[]'
req GET "$P/users/external/both-1?include_permissions=yes"
check_err "include_permissions=yes" 400 invalid_params
req GET "$P/users/external/both-1?include_permissions="
check_err "include_permissions empty" 400 invalid_params
req GET "$P/users/external/both-1?include_permissions=true&include_permissions=false"
check_err "include_permissions twice" 400 invalid_params
req GET "$P/users/external/no-such-ext"
check_err "get external: unknown" 404 user_not_found
req GET "$P/users/external/only-other"
check_err "get external: user of another project" 404 user_not_found
req GET "$P/users/external/byou-1"
check_json "get external: this project's user" .id "$BYOU_ID"
req GET "$P/users/external/Byou-1"
check_err "get external: exact case" 404 user_not_found
req GET "$P/users/external/no-such-ext?include_permissions=maybe"
check_err "get external: invalid_params before user_not_found" 400 invalid_params
req POST "$P/users" '{"display_name":"Odd id","external_user_id":"a/b c?d&e%f#g"}'
check_status "create: external id with URL characters" 201
req GET "$P/users/external/a%2Fb%20c%3Fd%26e%25f%23g"
check_json "get external: percent-encoded external id" .external_user_id 'a/b c?d&e%f#g'
req GET "$P/users/external/$(rep 100 %C3%BC)"
check_json "get external: multi-byte external id" .display_name "$(rep 50 é)"
req GET "$P/users/external/%ff"
check_err "get external: invalid UTF-8 in path" 400 invalid_params
req GET "$P/users/external/%27%20OR%201%3D1%20--"
check_err "get external: SQL-looking id" 404 user_not_found

# ---- deactivation shows in reads ----
req PUT "$P/users/$BOTH_ID" '{"display_name":"Both","is_active":false,"external_user_id":"both-1"}'
check_json "update: deactivate" .is_active false
req GET "$P/users/external/both-1"
check_json "get external: inactive user" .is_active false
req GET "$P/users?is_active=false"
check_json "list: inactive filter" '[.data[].id]|tojson' "[\"$BOTH_ID\"]"

# ---- times read from the store, whatever another tool wrote there ----
# Every read of the record (by external ID, list pages, the answer of a
# write) formats times before 1970 counting back from it, and times RFC 3339
# cannot write (before 0000, after 9999) as the first or last it can.
req POST "$P/users" '{"display_name":"Timeless One","external_user_id":"times-1"}'
T1_ID=$(printf '%s' "$BODY" | jq -r .id)
req POST "$P/users" '{"display_name":"Timeless Two","external_user_id":"times-2"}'
T2_ID=$(printf '%s' "$BODY" | jq -r .id)
db "UPDATE users SET created_at = -1, updated_at = -86400001 WHERE id = '$T1_ID';
	UPDATE users SET created_at = -9223372036854775808, updated_at = 9223372036854775807 WHERE id = '$T2_ID'"
check "times written around the API" "$(db "SELECT count(*) FROM users WHERE id = '$T1_ID'
	AND created_at = -1 OR id = '$T2_ID' AND updated_at = 9223372036854775807")" 2
req GET "$P/users/external/times-1"
check_status "get external: times before 1970" 200
check_json "get external: created_at -1 ms" .created_at 1969-12-31T23:59:59.999Z
check_json "get external: updated_at a day and 1 ms before 1970" .updated_at 1969-12-30T23:59:59.999Z
req GET "$P/users/external/times-2"
check_status "get external: times out of range" 200
check_json "get external: the first time RFC 3339 writes" .created_at 0000-01-01T00:00:00.000Z
check_json "get external: the last time RFC 3339 writes" .updated_at 9999-12-31T23:59:59.999Z
req GET "$P/users?search=timeless&sort_by=display_name&sort_dir=asc"
check_status "list: times from the store" 200
check_json "list: the same times" '[.data[]|.created_at,.updated_at]|join(" ")' \
	"1969-12-31T23:59:59.999Z 1969-12-30T23:59:59.999Z 0000-01-01T00:00:00.000Z 9999-12-31T23:59:59.999Z"
req PUT "$P/users/$T1_ID" '{"display_name":"Timeless One","is_active":true,"external_user_id":"times-1"}'
check_status "update: times before 1970" 200
check_json "update: created_at read back as it is" .created_at 1969-12-31T23:59:59.999Z
req GET "/healthz"
check_status "server still up after the times" 200

# ---- secrets never reach the log ----
check "no password in the server log" "$(grep -c -e "$PW1" -e "$PW2" -e 'argon2' "$TMP/server.log")" 0

finish
