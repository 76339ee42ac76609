# Clients: create, update, list, secret rotation, and what they mean at the
# token endpoint and for bearer tokens (docs/api.md §"Clients",
# docs/api.md §"Conventions", §"Records"; docs/tokens.md §"Bearer check"). Permission IDs come straight from the database, as the
# resources endpoints are not ours to rely on.
. "$(dirname "$0")/lib.sh"
start_server
keepalive_client   # req over one connection (lib.sh)

SECRETS=()   # every client secret an answer showed: none may leak anywhere else

# PERM[resources:read]=ID for the project (or any project, by project ID)
declare -A PERM
load_perms() { # load_perms PROJECT_ID ARRAY_NAME
	local -n map=$2
	while IFS='|' read -r id named; do map[$named]=$id; done < <(db \
		"select p.id, r.code||':'||p.code from permissions p join resources r on r.id=p.resource_id where p.project_id='$1'")
}
load_perms "$PROJECT_ID" PERM
check "twelve permissions in the db" "${#PERM[@]}" 12

# tok_cc ID SECRET: client_credentials; sets STATUS, BODY, HDRS
tok_cc() {
	STATUS=$(curl -s -D "$TMP/h" -o "$TMP/b" -w '%{http_code}' -u "$1:$2" \
		-d grant_type=client_credentials "$BASE/api/v1/tokens")
	BODY=$(cat "$TMP/b"); HDRS=$(cat "$TMP/h")
}
# sha256 base64url, as the store keeps a secret
secret_hash() { printf '%s' "$1" | openssl dgst -sha256 -binary | base64 -w0 | tr '+/' '-_' | tr -d '='; }
rep() { printf "%${2}s" '' | sed "s/ /$1/g"; }   # rep STRING N
TS_RE='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'
RECORD_KEYS='allowed_role_ids,backchannel_logout_uri,consent_required,created_at,description,device_flow,forward_auth_urls,id,id_token_signed_response_alg,is_active,name,permission_ids,post_logout_redirect_uris,redirect_uris,token_endpoint_auth_method,updated_at'
# docs/api.md §"Records"'s key order, the secret last in a create's answer
KEY_ORDER='id,name,description,is_active,permission_ids,redirect_uris,post_logout_redirect_uris,backchannel_logout_uri,token_endpoint_auth_method,id_token_signed_response_alg,forward_auth_urls,device_flow,allowed_role_ids,consent_required,created_at,updated_at'

########## create ##########
CR="${PERM[clients:read]}"; UR="${PERM[users:read]}"; RC="${PERM[roles:create]}"
req POST "$P/clients" "{\"name\":\"Billing\",\"description\":\"Bills things\",
	\"permission_ids\":[\"$UR\",\"$CR\",\"$UR\"],
	\"redirect_uris\":[\"https://app.example/cb\",\"http://127.0.0.1:8000/cb?x=1\",\"https://app.example/cb\"]}"
check_status "create" 201
check_json "create keys" 'del(.client_secret)|keys|join(",")' "$RECORD_KEYS"
check_json "create key order" 'keys_unsorted|join(",")' "$KEY_ORDER,client_secret"
check_json "create name" .name Billing
check_json "create description" .description "Bills things"
check_json "create is active" .is_active true
check_json "create permission_ids deduplicated, sorted" '.permission_ids|join(",")' \
	"$(printf '%s\n' "$CR" "$UR" | sort | paste -sd,)"
check_json "create redirect_uris deduplicated, in order" '.redirect_uris|join(" ")' \
	"https://app.example/cb http://127.0.0.1:8000/cb?x=1"
check_json "create created_at format" ".created_at|test(\"$TS_RE\")" true
check_json "create updated_at = created_at" '.updated_at == .created_at' true
check_json "create id is url-safe" '.id|test("^[A-Za-z0-9_-]{16,64}$")' true
check_json "create secret is 32 bytes base64url" '.client_secret|test("^[A-Za-z0-9_-]{43}$")' true
check_header "create answer is not cached" '^Cache-Control: no-store'
C1=$(jq -r .id <<<"$BODY"); C1_SECRET=$(jq -r .client_secret <<<"$BODY"); SECRETS+=("$C1_SECRET")
C1_CREATED=$(jq -r .created_at <<<"$BODY")
check "secret stored only as its hash" "$(db "select secret_hash from clients where id='$C1'")" \
	"$(secret_hash "$C1_SECRET")"
check "secret not stored in clear" "$(db "select count(*) from clients where secret_hash='$C1_SECRET' or CAST(redirect_uris AS TEXT) like '%$C1_SECRET%'")" 0

req POST "$P/clients" '{"name":"Minimal"}'
check_status "create minimal" 201
check_json "minimal description null" .description null
check_json "minimal permission_ids empty" '.permission_ids|length' 0
check_json "minimal redirect_uris empty" '.redirect_uris|length' 0
SECRETS+=("$(jq -r .client_secret <<<"$BODY")")
MIN_ID=$(jq -r .id <<<"$BODY")

req POST "$P/clients" '{"name":"Nulls","description":null,"permission_ids":null,"redirect_uris":null}'
check_status "create with nulls" 201
check_json "null description" .description null
check_json "null permission_ids" '.permission_ids|length' 0
check_json "null redirect_uris" '.redirect_uris|length' 0
SECRETS+=("$(jq -r .client_secret <<<"$BODY")")
req POST "$P/clients" '{"name":"Empties","description":"","permission_ids":[],"redirect_uris":[],"extra":{"x":1}}'
check_err "create with an unknown field refused (issue27)" 400 invalid_params
req POST "$P/clients" '{"name":"Empties","description":"","permission_ids":[],"redirect_uris":[]}'
check_status "create with empties" 201
check_json "empty description is null" .description null
SECRETS+=("$(jq -r .client_secret <<<"$BODY")")
req POST "$P/clients" '{"name":"Born active","is_active":false}'
check_status "create ignores is_active" 201
check_json "new clients are active" .is_active true
SECRETS+=("$(jq -r .client_secret <<<"$BODY")")
req POST "$P/clients" '{"name":"Other","description":"x"}'
S_A=$(jq -r .client_secret <<<"$BODY"); SECRETS+=("$S_A")
check "two creates, two secrets" "$([ "$S_A" != "$C1_SECRET" ] && echo different)" different

# lengths count code points
for n in 50:201 51:400; do
	len=${n%%:*} want=${n##*:}
	req POST "$P/clients" "{\"name\":\"$(rep a "$len")\"}"; check_status "name of $len ascii" "$want"
	[ "$STATUS" = 201 ] && SECRETS+=("$(jq -r .client_secret <<<"$BODY")")
	req POST "$P/clients" "{\"name\":\"$(rep é "$len")\"}"; check_status "name of $len two-byte" "$want"
	[ "$STATUS" = 201 ] && SECRETS+=("$(jq -r .client_secret <<<"$BODY")")
	req POST "$P/clients" "{\"name\":\"$(rep 😀 "$len")\"}"; check_status "name of $len four-byte" "$want"
	[ "$STATUS" = 201 ] && SECRETS+=("$(jq -r .client_secret <<<"$BODY")") &&
		check_json "four-byte name kept" '.name|length' 50
done
req POST "$P/clients" "{\"name\":\"d\",\"description\":\"$(rep ü 200)\"}"
check_status "description of 200" 201; SECRETS+=("$(jq -r .client_secret <<<"$BODY")")
req POST "$P/clients" "{\"name\":\"d\",\"description\":\"$(rep ü 201)\"}"
check_err "description of 201" 400 invalid_params

# invalid_params
bad_create() { # bad_create NAME BODY
	req POST "$P/clients" "$2"; check_err "create: $1" 400 invalid_params
}
bad_create "no name" '{"description":"x"}'
bad_create "null name" '{"name":null}'
bad_create "empty name" '{"name":""}'
bad_create "numeric name" '{"name":12}'
bad_create "array name" '{"name":["a"]}'
bad_create "object name" '{"name":{}}'
bad_create "boolean name" '{"name":true}'
bad_create "numeric description" '{"name":"a","description":5}'
bad_create "NUL in name" '{"name":"a\u0000b"}'
bad_create "NUL in description" '{"name":"a","description":"\u0000"}'
bad_create "invalid UTF-8" $'{"name":"a\xff\xfeb"}'
bad_create "overlong UTF-8" $'{"name":"\xc0\xaf"}'
bad_create "lone surrogate escape" '{"name":"\ud800"}'
bad_create "malformed JSON" '{"name":"a",}'
bad_create "top-level array" '[{"name":"a"}]'
bad_create "top-level string" '"a"'
bad_create "duplicate key" '{"name":"a","name":"b"}'
bad_create "permission_ids a string" "{\"name\":\"a\",\"permission_ids\":\"$CR\"}"
bad_create "permission_ids an object" '{"name":"a","permission_ids":{}}'
bad_create "permission_ids of numbers" '{"name":"a","permission_ids":[1]}'
bad_create "permission_ids with null" '{"name":"a","permission_ids":[null]}'
bad_create "permission_ids with empty" '{"name":"a","permission_ids":[""]}'
bad_create "permission_ids with 65-char ID" "{\"name\":\"a\",\"permission_ids\":[\"$(rep x 65)\"]}"
bad_create "redirect_uris a string" '{"name":"a","redirect_uris":"https://a.example/cb"}'
bad_create "redirect_uris an object" '{"name":"a","redirect_uris":{"u":"https://a.example/"}}'
bad_create "redirect_uris of numbers" '{"name":"a","redirect_uris":[1]}'
bad_create "redirect_uris with null" '{"name":"a","redirect_uris":[null]}'
bad_create "redirect_uris with empty" '{"name":"a","redirect_uris":[""]}'
bad_create "redirect_uri relative" '{"name":"a","redirect_uris":["/cb"]}'
bad_create "redirect_uri ftp" '{"name":"a","redirect_uris":["ftp://a.example/cb"]}'
bad_create "redirect_uri custom scheme" '{"name":"a","redirect_uris":["com.example.app:/cb"]}'
bad_create "redirect_uri no host" '{"name":"a","redirect_uris":["https:///cb"]}'
bad_create "redirect_uri with a space" '{"name":"a","redirect_uris":["https://a.example/c b"]}'
bad_create "redirect_uri with a fragment" '{"name":"a","redirect_uris":["https://a.example/cb#x"]}'
bad_create "redirect_uri with an empty fragment" '{"name":"a","redirect_uris":["https://a.example/cb#"]}'
bad_create "redirect_uri non-ASCII" '{"name":"a","redirect_uris":["https://é.example/cb"]}'
bad_create "redirect_uri with NUL" '{"name":"a","redirect_uris":["https://a.example/\u0000"]}'
bad_create "second redirect_uri bad" '{"name":"a","redirect_uris":["https://a.example/","javascript:alert(1)"]}'
U2048="https://a.example/$(rep x $((2048 - 18)))"
req POST "$P/clients" "{\"name\":\"long uri\",\"redirect_uris\":[\"$U2048\"]}"
check_status "redirect_uri of 2048" 201; SECRETS+=("$(jq -r .client_secret <<<"$BODY")")
check_json "redirect_uri of 2048 kept" '.redirect_uris[0]|length' 2048
bad_create "redirect_uri of 2049" "{\"name\":\"a\",\"redirect_uris\":[\"${U2048}x\"]}"
URIS20=$(seq 1 20 | sed 's|.*|"https://a.example/&"|' | paste -sd,)
req POST "$P/clients" "{\"name\":\"twenty\",\"redirect_uris\":[$URIS20,$URIS20]}"
check_status "20 redirect URIs, each twice" 201; SECRETS+=("$(jq -r .client_secret <<<"$BODY")")
check_json "20 redirect URIs kept once" '.redirect_uris|length' 20
bad_create "21 redirect URIs" "{\"name\":\"a\",\"redirect_uris\":[$URIS20,\"https://b.example/\"]}"
CTYPE=text/plain req POST "$P/clients" '{"name":"a"}'
check_err "create: text/plain" 400 invalid_params
CTYPE='application/json; charset=utf-8' req POST "$P/clients" '{"name":"charset ok"}'
check_status "create: json with charset" 201; SECRETS+=("$(jq -r .client_secret <<<"$BODY")")
req POST "$P/clients" -H 'Content-Type: application/json'
check_err "create: empty body" 400 invalid_params

# some_permissions_not_found, and precedence
req POST "$P/clients" '{"name":"a","permission_ids":["nope"]}'
check_err "create: unknown permission" 404 some_permissions_not_found
check_header "create: an error is not cached either" '^Cache-Control: no-store'
req POST "$P/clients" "{\"name\":\"a\",\"permission_ids\":[\"$CR\",\"nope\"]}"
check_err "create: one unknown permission" 404 some_permissions_not_found
req POST "$P/clients" '{"name":"","permission_ids":["nope"]}'
check_err "create: invalid_params beats some_permissions_not_found" 400 invalid_params
OTHER=$("$EDGEAUTH" -c "$CONF" project create --name other)
O_PID=$(jq -r .project_id <<<"$OTHER"); O_CID=$(jq -r .client_id <<<"$OTHER")
BEFORE=$(db "select count(*) from clients")
O_SECRET=$(jq -r .client_secret <<<"$OTHER"); O_TOKEN=$(client_token "$O_CID" "$O_SECRET")
declare -A OPERM; load_perms "$O_PID" OPERM
req POST "$P/clients" "{\"name\":\"a\",\"permission_ids\":[\"$CR\",\"${OPERM[clients:read]}\"]}"
check_err "create: another project's permission" 404 some_permissions_not_found
check "failed creates wrote nothing" "$(db "select count(*) from clients")" "$BEFORE"

# the router's checks on these routes
AUTH=none req POST "$P/clients" '{"name":"a"}'
check_err "create without a token" 401 invalid_authorization_token
req POST "/api/v1/projects/nope/clients" '{"name":"a"}'
check_err "create in an unknown project" 404 project_not_found
AUTH="Bearer $O_TOKEN" req POST "$P/clients" '{"name":"a"}'
check_err "create with another project's token" 403 insufficient_permission

########## the token endpoint ##########
tok_cc "$C1" "$C1_SECRET"
check_status "new client gets a token" 200
check_json "scope = named permission_ids" .scope \
	"$(db "select r.code||':'||p.code n from client_permissions cp join permissions p on p.id=cp.permission_id join resources r on r.id=p.resource_id where cp.client_id='$C1' order by n" | paste -sd' ')"
check_json "scope is clients:read users:read" .scope "clients:read users:read"
C1_TOKEN=$(jq -r .access_token <<<"$BODY")
AUTH="Bearer $C1_TOKEN" req GET "$P/clients"
check_status "clients:read token lists" 200
AUTH="Bearer $C1_TOKEN" req POST "$P/clients" '{"name":"a"}'
check_err "clients:read token cannot create" 403 insufficient_permission
AUTH="Bearer $C1_TOKEN" req PUT "$P/clients/$C1" '{"name":"a","is_active":true}'
check_err "clients:read token cannot update" 403 insufficient_permission
AUTH="Bearer $C1_TOKEN" req POST "$P/clients/$C1/secret"
check_err "clients:read token cannot rotate" 403 insufficient_permission
tok_cc "$MIN_ID" "${SECRETS[1]}"
check_status "client without permissions gets a token" 200
check_json "its token has no scope" 'has("scope")' false
AUTH="Bearer $(jq -r .access_token <<<"$BODY")" req GET "$P/clients"
check_err "scope-less token cannot list" 403 insufficient_permission
tok_cc "$C1" "$O_SECRET"
check_err "wrong secret" 401 invalid_client_credentials

########## update ##########
sleep 0.01
req PUT "$P/clients/$C1" "{\"name\":\"Billing 2\",\"is_active\":true,\"description\":\"New\",
	\"permission_ids\":[\"$RC\"],\"redirect_uris\":[\"https://new.example/cb\"]}"
check_status "update" 200
check_json "update keys: no secret" 'keys|join(",")' "$RECORD_KEYS"
check_json "update key order" 'keys_unsorted|join(",")' "$KEY_ORDER"
check_json "update name" .name "Billing 2"
check_json "update description" .description New
check_json "update permission_ids" '.permission_ids|join(",")' "$RC"
check_json "update redirect_uris" '.redirect_uris|join(",")' "https://new.example/cb"
check_json "update keeps created_at" .created_at "$C1_CREATED"
check_json "update moves updated_at" '.updated_at > .created_at' true
tok_cc "$C1" "$C1_SECRET"
check_json "scope follows the update" .scope "roles:create"

req PUT "$P/clients/$C1" '{"name":"Billing 3","is_active":true}'
check_status "update with only required fields" 200
check_json "omitted description kept" .description New
check_json "omitted permission_ids kept" '.permission_ids|join(",")' "$RC"
check_json "omitted redirect_uris kept" '.redirect_uris|join(",")' "https://new.example/cb"
req PUT "$P/clients/$C1" "{\"name\":\"Billing\",\"is_active\":true,\"description\":null,\"permission_ids\":null,\"redirect_uris\":null}"
check_status "update with nulls" 200
check_json "null clears description" .description null
check_json "null clears permission_ids" '.permission_ids|length' 0
check_json "null clears redirect_uris" '.redirect_uris|length' 0
req PUT "$P/clients/$C1" "{\"name\":\"Billing\",\"is_active\":true,\"description\":\"d\",\"permission_ids\":[\"$CR\",\"$UR\",\"$CR\"],\"redirect_uris\":[\"https://x.example/\"]}"
check_json "update sets again, duplicates once" '.permission_ids|length' 2
req PUT "$P/clients/$C1" '{"name":"Billing","is_active":true,"description":"","permission_ids":[],"redirect_uris":[]}'
check_json "empty string clears description" .description null
check_json "[] clears permission_ids" '.permission_ids|length' 0
check_json "[] clears redirect_uris" '.redirect_uris|length' 0
req PUT "$P/clients/$C1" "{\"name\":\"Billing\",\"is_active\":true,\"permission_ids\":[\"$CR\",\"$UR\"]}"
check_json "restore permissions" '.permission_ids|length' 2

bad_update() { # bad_update NAME BODY [CLIENT_ID]
	req PUT "$P/clients/${3:-$C1}" "$2"; check_err "update: $1" 400 invalid_params
}
bad_update "no name" '{"is_active":true}'
bad_update "empty name" '{"name":"","is_active":true}'
bad_update "null name" '{"name":null,"is_active":true}'
bad_update "name of 51" "{\"name\":\"$(rep é 51)\",\"is_active\":true}"
bad_update "no is_active" '{"name":"a"}'
bad_update "null is_active" '{"name":"a","is_active":null}'
bad_update "string is_active" '{"name":"a","is_active":"true"}'
bad_update "numeric is_active" '{"name":"a","is_active":1}'
bad_update "description of 201" "{\"name\":\"a\",\"is_active\":true,\"description\":\"$(rep x 201)\"}"
bad_update "description array" '{"name":"a","is_active":true,"description":["x"]}'
bad_update "permission_ids a string" '{"name":"a","is_active":true,"permission_ids":"x"}'
bad_update "redirect_uris a string" '{"name":"a","is_active":true,"redirect_uris":"https://a.example/"}'
bad_update "redirect_uri with a fragment" '{"name":"a","is_active":true,"redirect_uris":["https://a.example/#f"]}'
bad_update "NUL in name" '{"name":"\u0000","is_active":true}'
bad_update "invalid UTF-8" $'{"name":"\xe2\x82","is_active":true}'
bad_update "not an object" '[]'
bad_update "invalid body beats unknown client" '{"name":""}' nope
CTYPE=application/x-www-form-urlencoded req PUT "$P/clients/$C1" 'name=a&is_active=true'
check_err "update: form body" 400 invalid_params
req GET "$P/clients?search=Billing"
check_json "failed updates changed nothing" '[.data[]|select(.id=="'"$C1"'")][0]|.name+"/"+(.permission_ids|length|tostring)' "Billing/2"

req PUT "$P/clients/nope" '{"name":"a","is_active":true}'
check_err "update: unknown client" 404 client_not_found
req PUT "$P/clients/$(rep x 300)" '{"name":"a","is_active":true}'
check_err "update: over-long client ID" 404 client_not_found
req PUT "$P/clients/%27%20OR%201%3D1%20--" '{"name":"a","is_active":true}'
check_err "update: SQL-looking client ID" 404 client_not_found
req PUT "$P/clients/$O_CID" '{"name":"hijack","is_active":false}'
check_err "update: another project's client" 404 client_not_found
check "other project's client untouched" "$(db "select name||CAST(is_active AS INTEGER) from clients where id='$O_CID'")" admin1
req PUT "$P/clients/nope" '{"name":"a","is_active":true,"permission_ids":["nope"]}'
check_err "client_not_found beats some_permissions_not_found" 404 client_not_found
req PUT "$P/clients/$C1" '{"name":"renamed","is_active":false,"permission_ids":["nope"]}'
check_err "update: unknown permission" 404 some_permissions_not_found
req PUT "$P/clients/$C1" "{\"name\":\"renamed\",\"is_active\":false,\"permission_ids\":[\"${OPERM[users:read]}\"]}"
check_err "update: another project's permission" 404 some_permissions_not_found
check "failed update rolled back" "$(db "select name||CAST(is_active AS INTEGER)||(select count(*) from client_permissions where client_id='$C1') from clients where id='$C1'")" Billing12
AUTH=none req PUT "$P/clients/$C1" '{"name":"a","is_active":true}'
check_err "update without a token" 401 invalid_authorization_token
req PUT "/api/v1/projects/nope/clients/$C1" '{"name":"a","is_active":true}'
check_err "update in an unknown project" 404 project_not_found

########## deactivation invalidates tokens at once ##########
tok_cc "$C1" "$C1_SECRET"
C1_TOKEN=$(jq -r .access_token <<<"$BODY")
AUTH="Bearer $C1_TOKEN" req GET "$P/clients?page_size=1"
check_status "token works while active" 200
req PUT "$P/clients/$C1" '{"name":"Billing","is_active":false}'
check_json "deactivated" .is_active false
AUTH="Bearer $C1_TOKEN" req GET "$P/clients?page_size=1"
check_err "deactivated client's token refused" 401 invalid_authorization_token
check_header "with invalid_token" '^WWW-Authenticate: Bearer error="invalid_token"'
tok_cc "$C1" "$C1_SECRET"
check_err "inactive client at the token endpoint" 400 client_not_active
tok_cc "$C1" "$O_SECRET"
check_err "inactive client, wrong secret" 401 invalid_client_credentials
req PUT "$P/clients/$C1" '{"name":"Billing","is_active":true}'
check_json "reactivated" .is_active true
AUTH="Bearer $C1_TOKEN" req GET "$P/clients?page_size=1"
check_err "a token from before the deactivation stays dead" 401 invalid_authorization_token
next_second   # a token of the deactivation's own second counts as before it
tok_cc "$C1" "$C1_SECRET"
check_status "token endpoint again after reactivation" 200
AUTH="Bearer $(jq -r .access_token <<<"$BODY")" req GET "$P/clients?page_size=1"
check_status "a new token works after reactivation" 200

########## secret rotation ##########
sleep 0.01
req POST "$P/clients/$C1/secret"
check_status "rotate" 200
check_json "rotate answers only the secret" 'keys|join(",")' client_secret
check_json "new secret is 32 bytes base64url" '.client_secret|test("^[A-Za-z0-9_-]{43}$")' true
check_header "rotate answer is not cached" '^Cache-Control: no-store'
C1_NEW=$(jq -r .client_secret <<<"$BODY"); SECRETS+=("$C1_NEW")
check "new secret differs" "$([ "$C1_NEW" != "$C1_SECRET" ] && echo yes)" yes
check "new secret stored as its hash" "$(db "select secret_hash from clients where id='$C1'")" \
	"$(secret_hash "$C1_NEW")"
tok_cc "$C1" "$C1_SECRET"
check_err "old secret refused" 401 invalid_client_credentials
tok_cc "$C1" "$C1_NEW"
check_status "new secret works" 200
req POST "$P/clients/$C1/secret" '{"ignored":true}'
check_status "rotate ignores a body" 200; SECRETS+=("$(jq -r .client_secret <<<"$BODY")")
tok_cc "$C1" "$C1_NEW"
check_err "previous secret refused after a second rotation" 401 invalid_client_credentials
req POST "$P/clients/nope/secret"
check_err "rotate: unknown client" 404 client_not_found
check_header "rotate: an error is not cached either" '^Cache-Control: no-store'
req POST "$P/clients/$O_CID/secret"
check_err "rotate: another project's client" 404 client_not_found
tok_cc "$O_CID" "$O_SECRET"
check_status "other project's secret unchanged" 200
AUTH=none req POST "$P/clients/$C1/secret"
check_err "rotate without a token" 401 invalid_authorization_token
req POST "/api/v1/projects/nope/clients/$C1/secret"
check_err "rotate in an unknown project" 404 project_not_found
req GET "$P/clients/$C1/secret"
check_err "GET on the secret route" 405 method_not_allowed

########## list: parameters ##########
bad_list() { req GET "$P/clients?$2"; check_err "list: $1" 400 invalid_params; }
bad_list "page_num 0" page_num=0
bad_list "page_num negative" page_num=-1
bad_list "page_num text" page_num=abc
bad_list "page_num with a sign" page_num=+1
bad_list "page_num empty" page_num=
bad_list "page_num overflow" page_num=99999999999999999999999
bad_list "page_size 0" page_size=0
bad_list "page_size 101" page_size=101
bad_list "page_num twice" 'page_num=1&page_num=2'
bad_list "sort_by a column we do not sort by" sort_by=secret_hash
bad_list "sort_by SQL" 'sort_by=name%3B%20DROP%20TABLE%20clients'
bad_list "sort_by wrong case" sort_by=Name
bad_list "sort_by empty" sort_by=
bad_list "sort_dir" sort_dir=up
bad_list "sort_dir upper case" sort_dir=ASC
bad_list "is_active yes" is_active=yes
bad_list "is_active TRUE" is_active=TRUE
bad_list "is_active 1" is_active=1
bad_list "search invalid UTF-8" 'search=%FF'
bad_list "bad escape" 'search=%zz'
req GET "$P/clients?page_size=100&unknown=1"
check_err "list refuses unknown parameters (issue27)" 400 invalid_params
req GET "$P/clients?page_size=100"
check_status "list" 200
check_json "list keys" 'keys|join(",")' "data,page_num,page_size,total"
check_json "list records have no secret" '[.data[]|has("client_secret") or has("secret_hash")]|any' false
check_json "list record keys" '[.data[]|keys|join(",")]|unique|join(" ")' "$RECORD_KEYS"
check_json "list record key order" '[.data[]|keys_unsorted|join(",")]|unique|join(" ")' "$KEY_ORDER"
req GET "$P/clients?search=%27%20OR%201%3D1%20--"
check_json "SQL-looking search matches nothing" .total 0
AUTH=none req GET "$P/clients"
check_err "list without a token" 401 invalid_authorization_token
req GET "/api/v1/projects/nope/clients"
check_err "list in an unknown project" 404 project_not_found
AUTH="Bearer $O_TOKEN" req GET "$P/clients"
check_err "list with another project's token" 403 insufficient_permission
AUTH="Bearer $O_TOKEN" req GET "/api/v1/projects/$O_PID/clients"
check_json "another project sees only its own client" '[.total, .data[0].id]|join(",")' "1,$O_CID"

########## list: a couple of thousand clients ##########
N_SEED=2000
# Names with case-only differences, exact ties, LIKE metacharacters, a
# backslash and non-ASCII; every 7th has a description that search must ignore.
jq -rn --arg url "$BASE$P/clients" --arg auth "Authorization: Bearer $TOKEN" --argjson n $N_SEED '
	def names: ["Alpha", "alpha", "ALPHA", "beta", "Beta_1", "beta%2", "back\\slash", "Zeta",
		"zeta", "émile", "Émile", "[x]", "_under", "100% done", "a_b", "aXb", "needle"];
	range(0; $n) as $i
	| (names | .[$i % length]) as $fixed
	| (if $i % 3 == 0 then $fixed elif $i % 3 == 1 then "client \($i % 97)" else "Client \($i)" end) as $name
	| {name: $name} + (if $i % 7 == 0 then {description: "descneedle \($i)"} else {} end)
	| "url = \($url|tojson)\nrequest = \"POST\"\nheader = \($auth|tojson)\n" +
	  "header = \"Content-Type: application/json\"\ndata-binary = \(tojson|tojson)\n" +
	  "output = \"/dev/null\"\nwrite-out = \"%{http_code}\\n\"\nnext"' | sed '$d' > "$TMP/seed.curl"
SEED_START=$(date +%s.%N)
curl -s -K "$TMP/seed.curl" > "$TMP/seed.out"
check "seed: every create 201" "$(sort "$TMP/seed.out" | uniq -c | awk '{print $2":"$1}' | paste -sd,)" "201:$N_SEED"

# fetch_all QUERY PAGE_SIZE: every page in one curl process; FULL = the
# concatenated data, PAGES = the number of pages, TOTAL = the first total
fetch_all() {
	local q=$1 size=$2 total pages i
	req GET "$P/clients?$q&page_size=$size&page_num=1"
	total=$(jq .total <<<"$BODY")
	pages=$(( (total + size - 1) / size )); [ "$pages" -eq 0 ] && pages=1
	{
		for i in $(seq 1 "$pages"); do
			printf 'url = "%s"\nheader = "Authorization: Bearer %s"\noutput = "%s"\nnext\n' \
				"$BASE$P/clients?$q&page_size=$size&page_num=$i" "$TOKEN" "$TMP/page.$i"
		done
	} | sed '$d' > "$TMP/pages.curl"
	curl -s -K "$TMP/pages.curl"
	local files=()   # one jq, not a cat a page
	for ((i = 1; i <= pages; i++)); do files+=("$TMP/page.$i"); done
	FULL=$(jq -cs --argjson t "$total" 'if all(.total == $t) then [.[].data[]] else "totals differ" end' "${files[@]}")
	rm -f "$TMP"/page.*
	TOTAL=$total PAGES=$pages
}

# every client of the project, by the default sort
fetch_all "" 100
ALL=$FULL
ALL_N=$(db "select count(*) from clients where project_id='$PROJECT_ID'")
check "list total = rows in the db" "$TOTAL" "$ALL_N"
check "default pages cover every client once" "$(jq '[.[].id]|unique|length' <<<"$ALL")" "$ALL_N"
check "default pages hold the db's IDs" "$(jq -r '.[].id' <<<"$ALL" | sort | md5sum)" \
	"$(db "select id from clients where project_id='$PROJECT_ID'" | sort | md5sum)"
check "default sort is created_at desc" "$(jq -c '[.[].id]' <<<"$ALL")" \
	"$(jq -c 'sort_by([.created_at, .id])|reverse|[.[].id]' <<<"$ALL")"
req GET "$P/clients"
check_json "default page_size 10" '[.page_num, .page_size, (.data|length)]|join(",")' "1,10,10"

# deactivate every third seeded client (one curl process), so is_active and
# updated_at have something to sort
jq -r --arg base "$BASE$P/clients/" --arg auth "Authorization: Bearer $TOKEN" '
	[.[] | select(.name != "admin")] | to_entries[] | select(.key % 3 == 1) | .value
	| "url = \(($base + .id)|tojson)\nrequest = \"PUT\"\nheader = \($auth|tojson)\n" +
	  "header = \"Content-Type: application/json\"\n" +
	  "data-binary = \({name: .name, is_active: false}|tojson|tojson)\n" +
	  "output = \"/dev/null\"\nwrite-out = \"%{http_code}\\n\"\nnext"' <<<"$ALL" | sed '$d' > "$TMP/deact.curl"
curl -s -K "$TMP/deact.curl" > "$TMP/deact.out"
N_DEACT=$(grep -c . "$TMP/deact.out")
check "deactivations all 200" "$(grep -c '^200$' "$TMP/deact.out")" "$N_DEACT"
fetch_all "sort_by=created_at&sort_dir=asc" 100
ALL=$FULL
check "inactive count" "$(jq '[.[]|select(.is_active|not)]|length' <<<"$ALL")" \
	"$(db "select count(*) from clients where project_id='$PROJECT_ID' and not is_active")"

# every sort_by x sort_dir against jq's own sort; text ignores ASCII case; ties by id
declare -A KEY=([created_at]='.created_at' [updated_at]='.updated_at' [name]='.name|ascii_downcase' [is_active]='.is_active')
for by in created_at updated_at name is_active; do
	want_asc=$(jq -c "sort_by([(${KEY[$by]}), .id])|[.[].id]" <<<"$ALL")
	want_desc=$(jq -c 'reverse' <<<"$want_asc")
	for dir in asc desc; do
		size=100; [ "$by" = name ] && [ "$dir" = asc ] && size=7
		fetch_all "sort_by=$by&sort_dir=$dir" "$size"
		check "sort $by $dir: total" "$TOTAL" "$ALL_N"
		check "sort $by $dir: no overlap" "$(jq '[.[].id]|unique|length' <<<"$FULL")" "$ALL_N"
		if [ "$dir" = asc ]; then want=$want_asc; else want=$want_desc; fi
		check "sort $by $dir: order (page_size $size)" "$(jq -c '[.[].id]' <<<"$FULL")" "$want"
	done
done
fetch_all "sort_by=name" 100
check "sort_dir defaults to desc" "$(jq -c '[.[].id]' <<<"$FULL")" \
	"$(jq -c 'sort_by([(.name|ascii_downcase), .id])|reverse|[.[].id]' <<<"$ALL")"

# search (name only, case-insensitive, % _ \ literal) and is_active, with totals
# search_check TERM_URLENCODED JQ_TERM [is_active]
search_check() {
	local q="search=$1&sort_by=name&sort_dir=asc" sel="(.name|ascii_downcase|contains(\$t|ascii_downcase))"
	[ -n "${3:-}" ] && q+="&is_active=$3" && sel+=" and .is_active == $3"
	fetch_all "$q" 100
	local want
	want=$(jq -c --arg t "$2" "[.[]|select($sel)]|sort_by([(.name|ascii_downcase), .id])|[.[].id]" <<<"$ALL")
	check "search '$2' ${3:-}: total" "$TOTAL" "$(jq length <<<"$want")"
	check "search '$2' ${3:-}: rows" "$(jq -c '[.[].id]' <<<"$FULL")" "$want"
}
search_check "%25" "%"
search_check "_" "_"
search_check "a_b" "a_b"
search_check "100%25%20d" "100% d"
search_check "%5C" '\'
search_check "back%5Cs" 'back\s'
search_check "ALPHA" "alpha"
search_check "ALPHA" "alpha" true
search_check "ALPHA" "alpha" false
search_check "client%201" "client 1"
search_check "client%201" "client 1" false
search_check "%C3%A9mile" "émile"
search_check "%5Bx%5D" "[x]"
search_check "needle" "needle"
search_check "descneedle" "descneedle"
check "search ignores descriptions" "$TOTAL" 0
search_check "%27%20OR%20%271%27%3D%271" "' OR '1'='1"
for f in true false; do
	fetch_all "is_active=$f" 100
	check "is_active=$f total" "$TOTAL" "$(jq "[.[]|select(.is_active == $f)]|length" <<<"$ALL")"
	check "is_active=$f rows" "$(jq -c '[.[].id]|sort' <<<"$FULL")" \
		"$(jq -c "[.[]|select(.is_active == $f)|.id]|sort" <<<"$ALL")"
done
req GET "$P/clients?page_size=100&page_num=1000"
check_json "page past the end is empty" '[(.data|length), .total, .page_num]|join(",")' "0,$ALL_N,1000"
req GET "$P/clients?page_size=100&page_num=92233720368547758"
check_json "largest page_num is empty" '.data|length' 0

########## no secret anywhere else ##########
req GET "$P/clients?page_size=100"
LISTS="$BODY"
fetch_all "sort_by=updated_at" 100
LISTS+="$FULL"
leaks=0
for s in "${SECRETS[@]}" "$C1_SECRET"; do
	grep -qF -- "$s" "$TMP/server.log" && leaks=$((leaks + 1))
	grep -qF -- "$s" <<<"$LISTS" && leaks=$((leaks + 1))
done
check "no issued secret in the log or a list (${#SECRETS[@]} secrets)" "$leaks" 0
check "log has one line per request, no bodies" "$(grep -c 'client_secret' "$TMP/server.log")" 0

echo "seed and list checks took $(awk -v a="$SEED_START" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}') s" >&2
finish
