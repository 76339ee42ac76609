# Resources and their permissions: create, update, list (docs/api.md §"Resources",
# docs/api.md §"Permissions and default resources", §"Which error wins", §"Records"), every error each can give, precedence, the
# default resources, cascades to roles and clients, and paging over a few
# thousand records.
# run.sh: early (one of the longest files: started first)
. "$(dirname "$0")/lib.sh"
start_server
keepalive_client   # req over one connection (lib.sh)
RES="$P/resources"

s50=$(printf 'a%.0s' $(seq 50)); s51=${s50}a
e50=$(printf 'é%.0s' $(seq 50)); e51=${e50}é
x200=$(printf 'd%.0s' $(seq 200)); x201=${x200}d
TS_RE='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z$'

# mk NAME CODE [PERMISSIONS_JSON]: creates a resource, sets RID
mk() {
	req POST "$RES" "{\"name\":\"$1\",\"code\":\"$2\",\"permissions\":${3:-[]}}"
	RID=$(printf '%s' "$BODY" | jq -r .id)
}
# list_all QUERY: every page (size 100) of the list, concatenated, into $TMP/all.json
list_all() {
	local n=1 out="$TMP/all.json"
	echo '[]' > "$out"
	while :; do
		req GET "$RES?page_size=100&page_num=$n$1"
		[ "$STATUS" = 200 ] || { fail "list_all page $n: $STATUS"; return; }
		jq -s '.[0] + .[1].data' "$out" <(printf '%s' "$BODY") > "$out.new" && mv "$out.new" "$out"
		[ "$(printf '%s' "$BODY" | jq '.data|length')" -lt 100 ] && break
		n=$((n + 1))
	done
	ALL_TOTAL=$(printf '%s' "$BODY" | jq .total)
}

# ---------------------------------------------------------------- defaults
req GET "$RES?is_default=true"
check_status "defaults list" 200
check_json "four defaults" .total 4
check_json "default codes" '[.data[].code]|sort|join(",")' "clients,resources,roles,users"
check_json "defaults flagged" '[.data[].is_default]|all' true
check_json "default permissions" '[.data[]|[.permissions[].code]|join(",")]|unique|join(";")' "create,update,read"
check_json "default permission shape" '[.data[].permissions[]|keys|join(",")]|unique|join(";")' "code,description,id,name"
check_json "record keys" '.data[0]|keys|join(",")' "code,created_at,description,id,is_default,name,permissions,updated_at"
DEF_USERS=$(printf '%s' "$BODY" | jq -r '.data[]|select(.code=="users")|.id')
DEF_USERS_READ=$(printf '%s' "$BODY" | jq -r '.data[]|select(.code=="users")|.permissions[]|select(.code=="read")|.id')
RES_READ=$(printf '%s' "$BODY" | jq -r '.data[]|select(.code=="resources")|.permissions[]|select(.code=="read")|.id')
for id in $(printf '%s' "$BODY" | jq -r '.data[].id'); do
	req PUT "$RES/$id" '{"name":"X","code":"x"}'
	check_err "default resource cannot be updated" 400 invalid_params
done
req PUT "$RES/$DEF_USERS" '{"name":"Users","code":"users"}'
check_err "default resource, same values" 400 invalid_params
req GET "$RES?is_default=false"
check_json "no custom resources yet" .total 0

# ---------------------------------------------------------------- create
req POST "$RES" '{"name":"Orders","code":"orders","description":"Shop orders","permissions":[{"name":"Read","code":"read","description":"Read orders"},{"name":"Write","code":"write"},{"name":"Ship","code":"ship-it_2","description":""}]}'
check_status "create" 201
check_header "create content type" '^Content-Type: application/json$'
check_json "create name" .name Orders
check_json "create code" .code orders
check_json "create description" .description "Shop orders"
check_json "create is_default" .is_default false
check_json "create permission order" '[.permissions[].code]|join(",")' "read,write,ship-it_2"
check_json "create permission descriptions" '[.permissions[].description|tostring]|join(",")' "Read orders,null,null"
check_json "create permission ids distinct" '[.permissions[].id]|unique|length' 3
check_json "create created_at format" ".created_at|test(\"$TS_RE\")" true
check_json "create updated_at = created_at" '.updated_at == .created_at' true
check_json "create id length" '.id|length <= 64 and length >= 16' true
ORDERS=$(printf '%s' "$BODY" | jq -r .id)
ORDERS_REC=$BODY
P_READ=$(printf '%s' "$BODY" | jq -r '.permissions[0].id')
P_WRITE=$(printf '%s' "$BODY" | jq -r '.permissions[1].id')
P_SHIP=$(printf '%s' "$BODY" | jq -r '.permissions[2].id')

req POST "$RES" '{"name":"Bare","code":"bare"}'
check_status "create without optional fields" 201
check_json "no description is null" .description null
check_json "no permissions is []" '.permissions|length' 0
req POST "$RES" '{"name":"Nulls","code":"nulls","description":null,"permissions":null}'
check_status "create with nulls" 201
check_json "null description" .description null
check_json "null permissions" '.permissions|length' 0
req POST "$RES" '{"name":"Empty","code":"empty-desc","description":"","permissions":[],"unknown":{"x":1}}'
check_err "create with an unknown field refused (issue27)" 400 invalid_params
req POST "$RES" '{"name":"Empty","code":"empty-desc","description":"","permissions":[]}'
check_status "create with empty description" 201
check_json "empty description is null" .description null
req POST "$RES" "{\"name\":\"$s50\",\"code\":\"$s50\",\"description\":\"$x200\"}"
check_status "create at the length limits" 201
req POST "$RES" "{\"name\":\"$e50\",\"code\":\"multibyte\"}"
check_status "50 two-byte characters" 201
check_json "multibyte name kept" .name "$e50"
req POST "$RES" "{\"name\":\"$(printf '😀%.0s' $(seq 50))\",\"code\":\"emoji\"}"
check_status "50 four-byte characters" 201
req POST "$RES" '{"name":"Ids ignored","code":"ids-ignored","permissions":[{"id":"whatever","name":"A","code":"a"}]}'
check_status "create ignores an item id" 201
check_json "create item gets a new id" '.permissions[0].id != "whatever"' true
ITEMS100=$(jq -cn '[range(100)|{name:"P\(.)",code:"p\(.)"}]')
req POST "$RES" "{\"name\":\"Hundred\",\"code\":\"hundred\",\"permissions\":$ITEMS100}"
check_status "100 permissions" 201
check_json "100 permissions in order" '[.permissions[].code]==[range(100)|"p\(.)"]' true
req POST "$RES" '{"name":"Same codes","code":"same","permissions":[{"name":"Read","code":"read"}]}'
check_status "permission codes are per resource" 201

# create: invalid_params
bad_create() { # NAME BODY
	req POST "$RES" "$2"
	check_err "create: $1" 400 invalid_params
}
bad_create "no name" '{"code":"c1"}'
bad_create "empty name" '{"name":"","code":"c1"}'
bad_create "null name" '{"name":null,"code":"c1"}'
bad_create "number name" '{"name":5,"code":"c1"}'
bad_create "array name" '{"name":["a"],"code":"c1"}'
bad_create "name 51" "{\"name\":\"$s51\",\"code\":\"c1\"}"
bad_create "name 51 two-byte" "{\"name\":\"$e51\",\"code\":\"c1\"}"
bad_create "no code" '{"name":"n"}'
bad_create "empty code" '{"name":"n","code":""}'
bad_create "number code" '{"name":"n","code":12}'
bad_create "code with space" '{"name":"n","code":"a b"}'
bad_create "code with colon" '{"name":"n","code":"a:b"}'
bad_create "code with dot" '{"name":"n","code":"a.b"}'
bad_create "code non-ascii" '{"name":"n","code":"café"}'
bad_create "code 51" "{\"name\":\"n\",\"code\":\"$s51\"}"
bad_create "description 201" "{\"name\":\"n\",\"code\":\"c1\",\"description\":\"$x201\"}"
bad_create "description number" '{"name":"n","code":"c1","description":1}'
bad_create "description object" '{"name":"n","code":"c1","description":{}}'
bad_create "permissions object" '{"name":"n","code":"c1","permissions":{}}'
bad_create "permissions string" '{"name":"n","code":"c1","permissions":"read"}'
bad_create "permissions true" '{"name":"n","code":"c1","permissions":true}'
bad_create "permission item string" '{"name":"n","code":"c1","permissions":["read"]}'
bad_create "permission item null" '{"name":"n","code":"c1","permissions":[null]}'
bad_create "permission item array" '{"name":"n","code":"c1","permissions":[[]]}'
bad_create "permission no name" '{"name":"n","code":"c1","permissions":[{"code":"r"}]}'
bad_create "permission empty name" '{"name":"n","code":"c1","permissions":[{"name":"","code":"r"}]}'
bad_create "permission name 51" "{\"name\":\"n\",\"code\":\"c1\",\"permissions\":[{\"name\":\"$s51\",\"code\":\"r\"}]}"
bad_create "permission no code" '{"name":"n","code":"c1","permissions":[{"name":"R"}]}'
bad_create "permission code bad" '{"name":"n","code":"c1","permissions":[{"name":"R","code":"r w"}]}'
bad_create "permission code colon" '{"name":"n","code":"c1","permissions":[{"name":"R","code":"r:w"}]}'
bad_create "permission code 51" "{\"name\":\"n\",\"code\":\"c1\",\"permissions\":[{\"name\":\"R\",\"code\":\"$s51\"}]}"
bad_create "permission code number" '{"name":"n","code":"c1","permissions":[{"name":"R","code":1}]}'
bad_create "permission description 201" "{\"name\":\"n\",\"code\":\"c1\",\"permissions\":[{\"name\":\"R\",\"code\":\"r\",\"description\":\"$x201\"}]}"
bad_create "permission description number" '{"name":"n","code":"c1","permissions":[{"name":"R","code":"r","description":2}]}'
bad_create "duplicate permission code" '{"name":"n","code":"c1","permissions":[{"name":"R","code":"r"},{"name":"R2","code":"w"},{"name":"R3","code":"r"}]}'
ITEMS101=$(jq -cn '[range(101)|{name:"P\(.)",code:"p\(.)"}]')
bad_create "101 permissions" "{\"name\":\"n\",\"code\":\"c1\",\"permissions\":$ITEMS101}"
bad_create "NUL in name" '{"name":"a\u0000b","code":"c1"}'
bad_create "NUL in permission name" '{"name":"n","code":"c1","permissions":[{"name":"a\u0000","code":"r"}]}'
bad_create "top-level array" '[{"name":"n","code":"c1"}]'
bad_create "top-level string" '"x"'
bad_create "malformed JSON" '{"name":"n","code":"c1"'
bad_create "trailing garbage" '{"name":"n","code":"c1"} x'
bad_create "duplicate key" '{"name":"n","code":"c1","code":"c2"}'
printf '{"name":"\xff\xfe","code":"c1"}' > "$TMP/badutf8.json"
req POST "$RES" -H 'Content-Type: application/json' --data-binary @"$TMP/badutf8.json"
check_err "create: invalid UTF-8" 400 invalid_params
printf '{"name":"\xc3\xa9\xed\xa0\x80","code":"c1"}' > "$TMP/surrogate.json"
req POST "$RES" -H 'Content-Type: application/json' --data-binary @"$TMP/surrogate.json"
check_err "create: UTF-8 surrogate" 400 invalid_params
CTYPE=text/plain req POST "$RES" '{"name":"n","code":"c1"}'
check_err "create: text/plain" 400 invalid_params
CTYPE="application/json; charset=utf-8" req POST "$RES" '{"name":"Charset","code":"charset"}'
check_status "create: json with charset" 201
req POST "$RES" -H 'Content-Type: application/json'
check_err "create: empty body" 400 invalid_params
req GET "$RES?search=c1"
check_json "no failed create was stored" .total 0

# create: conflicts and precedence
req POST "$RES" '{"name":"Again","code":"orders"}'
check_err "create: code used" 409 resource_code_already_used
req POST "$RES" '{"name":"Shadow users","code":"users"}'
check_err "create: code of a default resource" 409 resource_code_already_used
req POST "$RES" '{"name":"","code":"orders"}'
check_err "create: invalid beats conflict" 400 invalid_params
req POST "$RES" '{"name":"n","code":"orders","permissions":[{"name":"R","code":"r"},{"name":"R","code":"r"}]}'
check_err "create: duplicate permission code beats conflict" 400 invalid_params
req POST "$RES" '{"name":"Upper","code":"Orders"}'
check_status "create: codes are case-sensitive" 201
req GET "$RES?search=again"
check_json "conflicting create left nothing" .total 0

# auth and project checks (the router's, on these routes)
AUTH=none req POST "$RES" '{"name":"n","code":"c2"}'
check_err "create: no token" 401 invalid_authorization_token
AUTH=none req GET "$RES"
check_err "list: no token" 401 invalid_authorization_token
req GET "/api/v1/projects/nope/resources"
check_err "list: unknown project" 404 project_not_found
req PUT "/api/v1/projects/nope/resources/$ORDERS" '{"name":"n","code":"c"}'
check_err "update: unknown project" 404 project_not_found
# a client that holds only resources:read, written straight into the store
RO_ID=readonly-client-1; RO_SECRET=readonly-secret-0123456789
RO_HASH=$(printf '%s' "$RO_SECRET" | openssl dgst -sha256 -binary | base64 -w0 | tr '+/' '-_' | tr -d '=')
db "INSERT INTO clients (id, project_id, name, secret_hash, created_at, updated_at) VALUES ('$RO_ID', '$PROJECT_ID', 'ro', '$RO_HASH', 0, 0); INSERT INTO client_permissions VALUES ('$RO_ID', '$RES_READ');"
RO_TOKEN=$(client_token "$RO_ID" "$RO_SECRET")
AUTH="Bearer $RO_TOKEN" req GET "$RES"
check_status "list with resources:read only" 200
AUTH="Bearer $RO_TOKEN" req POST "$RES" '{"name":"n","code":"c2"}'
check_err "create without resources:create" 403 insufficient_permission
AUTH="Bearer $RO_TOKEN" req PUT "$RES/$ORDERS" '{"name":"n","code":"c2"}'
check_err "update without resources:update" 403 insufficient_permission
OTHER=$("$EDGEAUTH" -c "$CONF" project create --name other)
OTHER_PID=$(printf '%s' "$OTHER" | jq -r .project_id)
OTHER_TOKEN=$(client_token "$(printf '%s' "$OTHER" | jq -r .client_id)" "$(printf '%s' "$OTHER" | jq -r .client_secret)")
AUTH="Bearer $OTHER_TOKEN" req GET "$RES"
check_err "list with another project's token" 403 insufficient_permission
AUTH="Bearer $OTHER_TOKEN" req PUT "/api/v1/projects/$OTHER_PID/resources/$ORDERS" '{"name":"n","code":"n"}'
check_err "update: resource of another project" 404 resource_not_found
AUTH="Bearer $OTHER_TOKEN" req POST "/api/v1/projects/$OTHER_PID/resources" '{"name":"Orders","code":"orders"}'
check_status "codes are per project" 201
AUTH="Bearer $OTHER_TOKEN" req GET "/api/v1/projects/$OTHER_PID/resources?is_default=false"
check_json "other project sees only its own" '[.data[].code]|join(",")' orders

# ---------------------------------------------------------------- update
sleep 0.01
req PUT "$RES/$ORDERS" '{"name":"Orders 2","code":"orders"}'
check_status "update name only" 200
check_json "update name" .name "Orders 2"
check_json "absent description kept" .description "Shop orders"
check_json "absent permissions kept" '[.permissions[].id]|join(",")' "$P_READ,$P_WRITE,$P_SHIP"
check_json "created_at unchanged" .created_at "$(printf '%s' "$ORDERS_REC" | jq -r .created_at)"
check_json "updated_at moved" ".updated_at > \"$(printf '%s' "$ORDERS_REC" | jq -r .updated_at)\"" true
check_json "updated_at format" ".updated_at|test(\"$TS_RE\")" true
req PUT "$RES/$ORDERS" '{"name":"Orders","code":"orders","description":null}'
check_json "null clears description" .description null
req PUT "$RES/$ORDERS" '{"name":"Orders","code":"orders","description":"back"}'
check_json "description set" .description back
req PUT "$RES/$ORDERS" '{"name":"Orders","code":"orders","description":""}'
check_json "empty string clears description" .description null
req PUT "$RES/$ORDERS" '{"name":"Orders","code":"has space:and colon"}'
check_status "update: code only length-checked (docs/api.md, Resources)" 200
check_json "update: code stored" .code "has space:and colon"
# ... but a code that is no valid create code never reaches a token's scope:
# "x users" + ":read" would read as the scope tokens "x" and "users:read".
req PUT "$RES/$ORDERS" '{"name":"Orders","code":"x users"}'
check_status "update: code with a space" 200
db "INSERT INTO clients (id, project_id, name, secret_hash, created_at, updated_at) VALUES ('sp-client', '$PROJECT_ID', 'sp', '$RO_HASH', 0, 0); INSERT INTO client_permissions VALUES ('sp-client', '$P_READ');"
SP_SCOPE=$(curl -s -u "sp-client:$RO_SECRET" -d grant_type=client_credentials "$BASE/api/v1/tokens" | jq -r ".scope // \"\"")
check "scope leaves out a permission whose resource code has a space" "$SP_SCOPE" ""
AUTH="Bearer $(client_token sp-client "$RO_SECRET")" req GET "/api/v1/projects/$PROJECT_ID/users"
check_err "no users:read smuggled in by a resource code" 403 insufficient_permission
req PUT "$RES/$ORDERS" '{"name":"Orders","code":"orders"}'
SP_SCOPE=$(curl -s -u "sp-client:$RO_SECRET" -d grant_type=client_credentials "$BASE/api/v1/tokens" | jq -r ".scope // \"\"")
check "a valid code is in the scope again" "$SP_SCOPE" "orders:$(db "SELECT code FROM permissions WHERE id = '$P_READ'")"
# A permission code the API never accepts, written into the store by another
# tool, is left out the same way; the token is still issued (the answer,
# written without escaping, once asserted on it and took the server down).
P_READ_CODE=$(db "SELECT code FROM permissions WHERE id = '$P_READ'")
db "UPDATE permissions SET code = 'say \"hi\"' WHERE id = '$P_READ'"
SP_STATUS=$(curl -s -o "$TMP/sp.json" -w '%{http_code}' -u "sp-client:$RO_SECRET" -d grant_type=client_credentials "$BASE/api/v1/tokens")
check "a token despite a stored permission code with a quote" "$SP_STATUS" 200
check "scope leaves out a permission whose code has a quote" "$(jq -r '.scope // ""' "$TMP/sp.json")" ""
db "UPDATE permissions SET code = '$P_READ_CODE' WHERE id = '$P_READ'"
db "DELETE FROM client_permissions WHERE client_id = 'sp-client'; DELETE FROM clients WHERE id = 'sp-client';"
req PUT "$RES/$ORDERS" "{\"name\":\"Orders\",\"code\":\"$e50\"}"
check_status "update: code of 50 two-byte characters" 200
req PUT "$RES/$ORDERS" "{\"name\":\"Orders\",\"code\":\"$e51\"}"
check_err "update: code of 51 characters" 400 invalid_params
req PUT "$RES/$ORDERS" '{"name":"Orders","code":"orders"}'
check_status "update: code back" 200

# permissions: keep by id (rename, reorder, swap codes), add, drop
req PUT "$RES/$ORDERS" "{\"name\":\"Orders\",\"code\":\"orders\",\"permissions\":[{\"id\":\"$P_WRITE\",\"name\":\"Read\",\"code\":\"read\"},{\"id\":\"$P_READ\",\"name\":\"Write\",\"code\":\"write\",\"description\":\"now write\"},{\"id\":\"$P_SHIP\",\"name\":\"Ship\",\"code\":\"ship-it_2\"}]}"
check_status "swap two permission codes" 200
check_json "swap keeps ids in order sent" '[.permissions[].id]|join(",")' "$P_WRITE,$P_READ,$P_SHIP"
check_json "swap codes" '[.permissions[].code]|join(",")' "read,write,ship-it_2"
check_json "item description set" '.permissions[1].description' "now write"
check_json "item description absent keeps stored" '.permissions[2].description' null
req PUT "$RES/$ORDERS" "{\"name\":\"Orders\",\"code\":\"orders\",\"permissions\":[{\"id\":\"$P_SHIP\",\"name\":\"A\",\"code\":\"read\"},{\"id\":\"$P_WRITE\",\"name\":\"B\",\"code\":\"write\"},{\"id\":\"$P_READ\",\"name\":\"C\",\"code\":\"ship-it_2\"}]}"
check_status "rotate three codes" 200
check_json "rotate" '[.permissions[]|.id+"="+.code]|join(",")' "$P_SHIP=read,$P_WRITE=write,$P_READ=ship-it_2"
req PUT "$RES/$ORDERS" "{\"name\":\"Orders\",\"code\":\"orders\",\"permissions\":[{\"name\":\"New\",\"code\":\"new\"},{\"id\":\"$P_READ\",\"name\":\"Read\",\"code\":\"read\",\"description\":null},{\"id\":\"$P_WRITE\",\"name\":\"Write\",\"code\":\"write\",\"description\":\"\"},{\"id\":null,\"name\":\"Other\",\"code\":\"ship-it_2\"}]}"
check_status "add, drop, reuse a dropped code" 200
check_json "add/drop codes" '[.permissions[].code]|join(",")' "new,read,write,ship-it_2"
check_json "add/drop kept ids" "[.permissions[1].id,.permissions[2].id]|join(\",\")" "$P_READ,$P_WRITE"
check_json "dropped id gone" "[.permissions[].id]|index(\"$P_SHIP\")" null
check_json "null and empty item description clear" '[.permissions[1].description,.permissions[2].description]|map(tostring)|join(",")' "null,null"
check_json "reused code got a new id" ".permissions[3].id != \"$P_SHIP\"" true
P_NEW=$(printf '%s' "$BODY" | jq -r '.permissions[0].id')
P_OTHER=$(printf '%s' "$BODY" | jq -r '.permissions[3].id')
req GET "$RES?search=orders&is_default=false"
check_json "list shows the update" '[.data[]|select(.id=="'"$ORDERS"'")|.permissions[].code]|join(",")' "new,read,write,ship-it_2"

# update: invalid_params
bad_update() { # NAME BODY
	req PUT "$RES/$ORDERS" "$2"
	check_err "update: $1" 400 invalid_params
}
bad_update "no name" '{"code":"orders"}'
bad_update "no code" '{"name":"Orders"}'
bad_update "empty code" '{"name":"Orders","code":""}'
bad_update "null code" '{"name":"Orders","code":null}'
bad_update "name 51" "{\"name\":\"$s51\",\"code\":\"orders\"}"
bad_update "code number" '{"name":"Orders","code":7}'
bad_update "description 201" "{\"name\":\"Orders\",\"code\":\"orders\",\"description\":\"$x201\"}"
bad_update "description bool" '{"name":"Orders","code":"orders","description":false}'
bad_update "permissions object" '{"name":"Orders","code":"orders","permissions":{"a":1}}'
bad_update "permission bad code" '{"name":"Orders","code":"orders","permissions":[{"name":"R","code":"r w"}]}'
bad_update "permission id number" '{"name":"Orders","code":"orders","permissions":[{"id":5,"name":"R","code":"r"}]}'
bad_update "permission id empty" '{"name":"Orders","code":"orders","permissions":[{"id":"","name":"R","code":"r"}]}'
bad_update "permission id too long" "{\"name\":\"Orders\",\"code\":\"orders\",\"permissions\":[{\"id\":\"$(printf 'i%.0s' $(seq 65))\",\"name\":\"R\",\"code\":\"r\"}]}"
bad_update "permission unknown id" '{"name":"Orders","code":"orders","permissions":[{"id":"no-such-permission","name":"R","code":"r"}]}'
bad_update "permission id of another resource" "{\"name\":\"Orders\",\"code\":\"orders\",\"permissions\":[{\"id\":\"$DEF_USERS_READ\",\"name\":\"R\",\"code\":\"r\"}]}"
bad_update "same id twice" "{\"name\":\"Orders\",\"code\":\"orders\",\"permissions\":[{\"id\":\"$P_READ\",\"name\":\"R\",\"code\":\"r\"},{\"id\":\"$P_READ\",\"name\":\"R\",\"code\":\"r2\"}]}"
bad_update "duplicate codes" "{\"name\":\"Orders\",\"code\":\"orders\",\"permissions\":[{\"id\":\"$P_READ\",\"name\":\"R\",\"code\":\"read\"},{\"name\":\"R\",\"code\":\"read\"}]}"
bad_update "101 permissions" "{\"name\":\"Orders\",\"code\":\"orders\",\"permissions\":$ITEMS101}"
bad_update "NUL in code" '{"name":"Orders","code":"or\u0000ders"}'
bad_update "top-level array" '[]'
req PUT "$RES/$ORDERS" -H 'Content-Type: application/json' --data-binary @"$TMP/badutf8.json"
check_err "update: invalid UTF-8" 400 invalid_params
req GET "$RES?search=orders&is_default=false"
check_json "failed updates changed nothing" '[.data[]|select(.id=="'"$ORDERS"'")|.permissions[].id]|join(",")' "$P_NEW,$P_READ,$P_WRITE,$P_OTHER"

# update: not found, conflicts, precedence
req PUT "$RES/no-such-resource" '{"name":"n","code":"n"}'
check_err "update: unknown resource" 404 resource_not_found
req PUT "$RES/$ORDERS" '{"name":"Orders","code":"bare"}'
check_err "update: code of another resource" 409 resource_code_already_used
req PUT "$RES/$ORDERS" '{"name":"Orders","code":"users"}'
check_err "update: code of a default resource" 409 resource_code_already_used
req PUT "$RES/$ORDERS" '{"name":"Orders","code":"orders"}'
check_status "update: own code is no conflict" 200
req PUT "$RES/no-such-resource" '{"name":"","code":"bare"}'
check_err "update: invalid beats not found" 400 invalid_params
req PUT "$RES/no-such-resource" '{"name":"n","code":"bare"}'
check_err "update: not found beats conflict" 404 resource_not_found
req PUT "$RES/$DEF_USERS" '{"name":"n","code":"bare"}'
check_err "update: default beats conflict" 400 invalid_params
req PUT "$RES/$DEF_USERS" '{"code":"users"}'
check_err "update: invalid body on default" 400 invalid_params
req PUT "$RES/$ORDERS" "{\"name\":\"Orders\",\"code\":\"bare\",\"permissions\":[{\"id\":\"$DEF_USERS_READ\",\"name\":\"R\",\"code\":\"r\"}]}"
check_err "update: foreign permission id beats conflict" 400 invalid_params
req PUT "$RES/no-such-resource" "{\"name\":\"n\",\"code\":\"n\",\"permissions\":[{\"id\":\"$P_READ\",\"name\":\"R\",\"code\":\"r\"}]}"
check_err "update: not found beats foreign id" 404 resource_not_found

# ---------------------------------------------------------------- cascades
# A role and a client that hold orders:read (P_READ) and orders:write
# (P_WRITE), written straight into the store (the roles and clients APIs are
# not this file's); the admin client holds them too, so its tokens show them.
db "INSERT INTO roles (id, project_id, code, name, created_at, updated_at) VALUES ('role-1', '$PROJECT_ID', 'r1', 'R1', 0, 0);
     INSERT INTO role_permissions VALUES ('role-1', '$P_READ'), ('role-1', '$P_WRITE'), ('role-1', '$DEF_USERS_READ');
     INSERT INTO client_permissions VALUES ('$RO_ID', '$P_READ'), ('$RO_ID', '$P_WRITE');
     INSERT INTO client_permissions VALUES ('$CLIENT_ID', '$P_READ'), ('$CLIENT_ID', '$P_WRITE');"
scope_of() { curl -s -u "$1:$2" -d grant_type=client_credentials "$BASE/api/v1/tokens" | jq -r .scope | tr ' ' '\n' | grep '^orders:' | sort | paste -sd, -; }
check "admin scope holds orders permissions" "$(scope_of "$CLIENT_ID" "$CLIENT_SECRET")" "orders:read,orders:write"
req PUT "$RES/$ORDERS" "{\"name\":\"Orders\",\"code\":\"orders\",\"permissions\":[{\"id\":\"$P_READ\",\"name\":\"View\",\"code\":\"view\"}]}"
check_status "drop write, rename read" 200
check "role keeps the renamed permission" "$(db "SELECT count(*) FROM role_permissions WHERE role_id='role-1' AND permission_id IN ('$P_READ', '$DEF_USERS_READ')")/$(db "SELECT count(*) FROM role_permissions WHERE role_id='role-1'")" "2/2"
check "role lost the dropped permission" "$(db "SELECT count(*) FROM role_permissions WHERE permission_id='$P_WRITE'")" 0
check "client lost the dropped permission" "$(db "SELECT count(*) FROM client_permissions WHERE permission_id='$P_WRITE'")" 0
check "client kept the renamed permission" "$(db "SELECT count(*) FROM client_permissions WHERE permission_id='$P_READ'")" 2
check "new admin token scope follows" "$(scope_of "$CLIENT_ID" "$CLIENT_SECRET")" "orders:view"
check "read-only client scope follows" "$(scope_of "$RO_ID" "$RO_SECRET")" "orders:view"
req PUT "$RES/$ORDERS" '{"name":"Orders","code":"shop-orders"}'
check_status "rename the resource" 200
check "scope carries the new resource code" "$(curl -s -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials "$BASE/api/v1/tokens" | jq -r .scope | tr ' ' '\n' | grep -c '^shop-orders:view$')" 1
req PUT "$RES/$ORDERS" '{"name":"Orders","code":"orders","permissions":[]}'
check_status "permissions [] drops all" 200
check_json "no permissions left" '.permissions|length' 0
check "role lost every orders permission" "$(db "SELECT permission_id FROM role_permissions WHERE role_id='role-1'")" "$DEF_USERS_READ"
check "clients lost every orders permission" "$(db "SELECT count(*) FROM client_permissions WHERE permission_id='$P_READ'")" 0
check "no orders permission rows" "$(db "SELECT count(*) FROM permissions WHERE resource_id='$ORDERS'")" 0
check "admin scope lost orders" "$(scope_of "$CLIENT_ID" "$CLIENT_SECRET")" ""
req PUT "$RES/$ORDERS" '{"name":"Orders","code":"orders","permissions":[{"name":"R","code":"r"},{"name":"W","code":"w"}]}'
check_json "permissions re-added" '.permissions|length' 2
req PUT "$RES/$ORDERS" '{"name":"Orders","code":"orders","permissions":null}'
check_json "permissions null drops all" '.permissions|length' 0
check "admin token still manages resources" "$(curl -s -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials "$BASE/api/v1/tokens" | jq -r .scope | tr ' ' '\n' | grep -c '^resources:')" 3

# ---------------------------------------------------------------- list
req GET "$RES?page_num=0"; check_err "list: page_num 0" 400 invalid_params
req GET "$RES?page_num=-1"; check_err "list: page_num -1" 400 invalid_params
req GET "$RES?page_num=abc"; check_err "list: page_num abc" 400 invalid_params
req GET "$RES?page_num=1.5"; check_err "list: page_num 1.5" 400 invalid_params
req GET "$RES?page_size=0"; check_err "list: page_size 0" 400 invalid_params
req GET "$RES?page_size=101"; check_err "list: page_size 101" 400 invalid_params
req GET "$RES?page_size="; check_err "list: page_size empty" 400 invalid_params
req GET "$RES?page_size=10&page_size=20"; check_err "list: page_size twice" 400 invalid_params
req GET "$RES?is_default=yes"; check_err "list: is_default yes" 400 invalid_params
req GET "$RES?is_default=TRUE"; check_err "list: is_default TRUE" 400 invalid_params
req GET "$RES?is_default=1"; check_err "list: is_default 1" 400 invalid_params
req GET "$RES?search=%ff"; check_err "list: search not UTF-8" 400 invalid_params
req GET "$RES?page_size=100"
check_status "list: page_size 100" 200
check_json "list: envelope" '[.page_num,.page_size]|join(",")' "1,100"
req GET "$RES"
check_json "list: default page size" '[.page_size, (.data|length)]|join(",")' "10,10"
# issue27: resources have no sort, so sort parameters are unknown ones
req GET "$RES?sort_by=name&sort_dir=asc"
check_err "list: sort params refused" 400 invalid_params
req GET "$RES?sort_by=name%3B%20DROP%20TABLE%20resources--&sort_dir=x"
check_err "list: SQL in sort_by refused" 400 invalid_params
req GET "$RES?search=%27%20OR%201%3D1%20--"
check_json "list: SQL in search matches nothing" .total 0
req GET "$RES?search=%27)%3B%20DELETE%20FROM%20resources%3B--"
check_json "list: SQL in search harmless" .total 0
req GET "$RES?search=ORDER"
check_json "list: search ignores case (code)" '[.data[].code]|sort|join(",")' "Orders,orders"

# search over every text field, % and _ literal
mk "Alpha" "alpha" '[{"name":"Zebra stripes","code":"z","description":"Needle in permission"}]'
mk "Beta" "beta_x" '[{"name":"B","code":"perm-code-k9"}]'
mk "Gamma" "betaxx"
mk "100% done" "pct" ; mk "1000 done" "pct2"
req POST "$RES" '{"name":"Delta","code":"delta","description":"Resource needle here"}'
req GET "$RES?search=needle"
check_json "search: resource and permission description" '[.data[].code]|join(",")' "alpha,delta"
req GET "$RES?search=ZEBRA"
check_json "search: permission name" '[.data[].code]|join(",")' alpha
req GET "$RES?search=code-K9"
check_json "search: permission code" '[.data[].code]|join(",")' beta_x
req GET "$RES?search=beta_"
check_json "search: _ is literal" '[.data[].code]|join(",")' beta_x
req GET "$RES?search=100%25"
check_json "search: % is literal" '[.data[].code]|join(",")' pct
req GET "$RES?search=%5C"
check_json "search: backslash matches nothing" .total 0
req GET "$RES?search=cr%C3%A9"
check_json "search: non-ASCII, no match" .total 0
req GET "$RES?search=$(printf '%s' "$e50" | jq -sRr @uri)"
check_json "search: non-ASCII match" '[.data[].code]|join(",")' multibyte
req GET "$RES?search=read&is_default=true"
check_json "search + is_default" .total 4
req GET "$RES?search=read&is_default=false"
check_json "search + is_default=false" '[.data[].code]|join(",")' "same"

# simultaneous creates of one code: exactly one wins
for i in $(seq 20); do
	printf 'url = "%s"\nrequest = "POST"\nheader = "Authorization: Bearer %s"\nheader = "Content-Type: application/json"\ndata-binary = "{\\"name\\":\\"Race %s\\",\\"code\\":\\"race\\"}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\nnext\n' "$BASE$RES" "$TOKEN" "$i"
done | sed '$d' > "$TMP/race.cfg"
curl -s -Z --parallel-max 20 -K "$TMP/race.cfg" > "$TMP/race.out" 2>/dev/null
check "race: one 201, the rest 409" "$(sort "$TMP/race.out" | uniq -c | awk '{printf "%sx%s ", $2, $1}')" "201x1 409x19 "
req GET "$RES?search=race"
check_json "race: one stored" .total 1
# simultaneous updates of 20 resources to one code: exactly one wins
for i in $(seq 20); do
	mk "Upd $i" "upd-$i"
	printf 'url = "%s/%s"\nrequest = "PUT"\nheader = "Authorization: Bearer %s"\nheader = "Content-Type: application/json"\ndata-binary = "{\\"name\\":\\"Upd %s\\",\\"code\\":\\"race-upd\\"}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\nnext\n' "$BASE$RES" "$RID" "$TOKEN" "$i"
done | sed '$d' > "$TMP/race.cfg"
curl -s -Z --parallel-max 20 -K "$TMP/race.cfg" > "$TMP/race.out" 2>/dev/null
check "update race: one 200, the rest 409" "$(sort "$TMP/race.out" | uniq -c | awk '{printf "%sx%s ", $2, $1}')" "200x1 409x19 "
req GET "$RES?search=race-upd"
check_json "update race: one has the code" .total 1

# ---------------------------------------------------------------- many records
# 2400 resources through one curl process (keep-alive), each with a
# permission; one in 7 has "group-N" in a permission description.
N=2400
python3 - "$N" "$BASE$RES" "$TOKEN" > "$TMP/seed.cfg" <<'PY'
import json, sys
n, url, token = int(sys.argv[1]), sys.argv[2], sys.argv[3]
for i in range(1, n + 1):
    desc = "in Group-%d" % (i % 3) if i % 7 == 3 else None
    body = {"name": "Bulk %04d" % i, "code": "bulk-%04d" % i,
            "permissions": [{"name": "P", "code": "p%d" % (i % 5), "description": desc}]}
    if i > 1:
        print("next")
    print("url = " + json.dumps(url))
    print('request = "POST"')
    print("header = " + json.dumps("Authorization: Bearer " + token))
    print('header = "Content-Type: application/json"')
    print("data-binary = " + json.dumps(json.dumps(body)))
    print('output = "/dev/null"')
    print('write-out = "%{http_code}\\n"')
PY
curl -s -K "$TMP/seed.cfg" > "$TMP/seed.out"
check "seed: every create 201" "$(sort "$TMP/seed.out" | uniq -c | awk '{print $2"x"$1}')" "201x$N"

req GET "$RES?page_size=1"
TOTAL=$(printf '%s' "$BODY" | jq .total)
check "total counts everything" "$(db "SELECT count(*) FROM resources WHERE project_id='$PROJECT_ID'")" "$TOTAL"
list_all ""
check "all pages: count = total" "$(jq length "$TMP/all.json")" "$TOTAL"
check "all pages: total field" "$ALL_TOTAL" "$TOTAL"
check "all pages: no overlap" "$(jq '[.[].id]|unique|length' "$TMP/all.json")" "$TOTAL"
check "all pages: oldest first, ties by id" "$(jq '. == sort_by([.created_at, .id])' "$TMP/all.json")" true
check "all pages: defaults first" "$(jq -r '[.[0:4][].is_default]|all' "$TMP/all.json")" true
check "all pages: every seeded code" "$(jq '[.[].code|select(startswith("bulk-"))]|length' "$TMP/all.json")" "$N"
check "all pages: permissions attached" "$(jq '[.[]|select(.code|startswith("bulk-"))|.permissions|length]|unique|join(",")' "$TMP/all.json")" '"1"'
cp "$TMP/all.json" "$TMP/full.json"
# odd page sizes: each page equals the matching slice of the full list
for ps in 7 33; do
	for pn in 1 2 50 $(( (TOTAL + ps - 1) / ps )); do
		req GET "$RES?page_size=$ps&page_num=$pn"
		check "page $pn of size $ps" "$(printf '%s' "$BODY" | jq -c '[.data[].id]')" \
			"$(jq -c "[.[$(( (pn - 1) * ps )):$(( pn * ps ))][].id]" "$TMP/full.json")"
	done
done
req GET "$RES?page_size=100&page_num=1000"
check_json "page past the end is empty" '.data|length' 0
check_json "page past the end keeps total" .total "$TOTAL"
req GET "$RES?page_size=100&page_num=92233720368547758"
check_status "huge page_num" 200
check_json "huge page_num is empty" '.data|length' 0

# filters against the full list, computed with jq
matches() { # TERM: expected codes, in list order
	jq -c --arg t "$1" '[.[]|select(([.name,.code,.description] + (.permissions|map(.name,.code,.description)))
		|map(select(. != null)|ascii_downcase)|any(contains($t|ascii_downcase)))|.id]' "$TMP/full.json"
}
for term in "GROUP-1" "group-" "bulk-00" "p3" "Bulk 2399"; do
	list_all "&search=$(printf '%s' "$term" | jq -sRr @uri)"
	check "search '$term': pages equal the filtered full list" "$(jq -c '[.[].id]' "$TMP/all.json")" "$(matches "$term")"
	check "search '$term': total" "$ALL_TOTAL" "$(matches "$term" | jq length)"
done
list_all "&is_default=false"
check "is_default=false: pages" "$(jq -c '[.[].id]' "$TMP/all.json")" "$(jq -c '[.[]|select(.is_default|not)|.id]' "$TMP/full.json")"
check "is_default=false: total" "$ALL_TOTAL" $((TOTAL - 4))
list_all "&is_default=true&search=bulk"
check "is_default=true + search: none" "$ALL_TOTAL" 0

# a rename is visible in the list at once and keeps the position
MID=$(jq -r '.[1000].id' "$TMP/full.json")
req PUT "$RES/$MID" '{"name":"Renamed","code":"renamed-mid"}'
check_status "update a seeded resource" 200
req GET "$RES?page_size=100&page_num=11"
check_json "renamed resource keeps its place" '.data[0].code' renamed-mid

finish
