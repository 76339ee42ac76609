# Roles: create, update and list (docs/api.md §"Roles", docs/api.md §"Lists", §"Records").
# Permission IDs are read from the test's own store (lib.sh's db).
# run.sh: early (one of the longest files: started first)
. "$(dirname "$0")/lib.sh"
start_server
keepalive_client   # req over one connection (lib.sh)
R="$P/roles"

mapfile -t PERMS < <(db "select id from permissions where project_id = '$PROJECT_ID' order by id")
check "twelve default permissions" "${#PERMS[@]}" 12
P0=${PERMS[0]}; P1=${PERMS[1]}; P2=${PERMS[2]}

OTHER=$("$EDGEAUTH" -c "$CONF" project create --name other)
OTHER_PID=$(echo "$OTHER" | jq -r .project_id)
OTHER_TOKEN=$(client_token "$(echo "$OTHER" | jq -r .client_id)" "$(echo "$OTHER" | jq -r .client_secret)")
OTHER_PERM=$(db "select id from permissions where project_id = '$OTHER_PID' limit 1")
OR="/api/v1/projects/$OTHER_PID/roles"
TS_RE='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z$'

rep() { local s=""; for ((k = 0; k < $2; k++)); do s+=$1; done; printf '%s' "$s"; }
sorted_json() { printf '%s\n' "$@" | jq -R . | jq -sc 'sort'; }
role_row() { db "select code || '|' || name || '|' || coalesce(description, 'NULL') from roles where id = '$1'"; }

# ---- create: happy paths ----
req POST "$R" "{\"code\":\"admin\",\"name\":\"Admin\",\"description\":\"Runs things\",\"permission_ids\":[\"$P2\",\"$P0\",\"$P2\"]}"
check_status "create" 201
check_json "create code" .code admin
check_json "create name" .name Admin
check_json "create description" .description "Runs things"
check_json "create permission_ids sorted, deduplicated" '.permission_ids|tostring' "$(sorted_json "$P0" "$P2")"
check_json "create id is url-safe" '.id|test("^[A-Za-z0-9_-]{16,64}$")' true
check_json "create created_at" ".created_at|test(\"$TS_RE\")" true
check_json "create updated_at equals created_at" '.updated_at == .created_at' true
check_json "create fields exactly" '[keys_unsorted[]]|join(",")' "id,code,name,description,permission_ids,requires_second_factor,created_at,updated_at"
check_header "create content type" '^Content-Type: application/json$'
ADMIN_ID=$(jq -r .id <<<"$BODY")
ADMIN_CREATED=$(jq -r .created_at <<<"$BODY")
check "create stored" "$(role_row "$ADMIN_ID")" "admin|Admin|Runs things"
check "create stored permissions" "$(db "select count(*) from role_permissions where role_id = '$ADMIN_ID'")" 2

req POST "$R" '{"code":"viewer","name":"Viewer"}'
check_status "create minimal" 201
check_json "minimal description null" '.description == null' true
check_json "minimal permission_ids empty" '.permission_ids|tostring' '[]'
VIEWER_ID=$(jq -r .id <<<"$BODY")

req POST "$R" '{"code":"empty-opt","name":"E","description":"","permission_ids":null}'
check_status "create with empty optionals" 201
check_json "empty description is null" '.description == null' true
check_json "null permission_ids is empty" '.permission_ids|length' 0

# issue27: an unknown field is refused, never dropped (docs/api.md §"Conventions")
req POST "$R" '{"code":"empty-arr","name":"E","description":null,"permission_ids":[],"extra":{"x":[1]}}'
check_err "unknown field refused" 400 invalid_params
req POST "$R" '{"code":"empty-arr","name":"E","description":null,"permission_ids":[]}'
check_status "create with null description, empty permission_ids" 201

CTYPE='application/json; charset=utf-8' req POST "$R" '{"code":"charset","name":"C"}'
check_status "charset in content type" 201

req POST "$R" "{\"code\":\"$(rep a 50)\",\"name\":\"$(rep é 50)\",\"description\":\"$(rep 😀 200)\"}"
check_status "limits in code points" 201
check_json "multi-byte name kept" '.name|length' 50
check_json "multi-byte description kept" '.description|length' 200

SQLNAME="x'); DROP TABLE roles; --"
req POST "$R" "$(jq -nc --arg n "$SQLNAME" '{code:"sqlish",name:$n,description:"%_\\"}')"
check_status "SQL-looking name" 201
check_json "SQL-looking name stored verbatim" .name "$SQLNAME"
SQLISH_ID=$(jq -r .id <<<"$BODY")

# ---- create: invalid_params ----
bad_create() { # NAME BODY
	req POST "$R" "$2"
	check_err "create: $1" 400 invalid_params
}
bad_create "missing code" '{"name":"N"}'
bad_create "empty code" '{"code":"","name":"N"}'
bad_create "null code" '{"code":null,"name":"N"}'
bad_create "numeric code" '{"code":5,"name":"N"}'
bad_create "code with space" '{"code":"a b","name":"N"}'
bad_create "code with dot" '{"code":"a.b","name":"N"}'
bad_create "code with non-ASCII" '{"code":"é","name":"N"}'
bad_create "code of 51" "{\"code\":\"$(rep a 51)\",\"name\":\"N\"}"
bad_create "SQL in code" "{\"code\":\"a'; DROP TABLE roles;--\",\"name\":\"N\"}"
bad_create "missing name" '{"code":"c"}'
bad_create "empty name" '{"code":"c","name":""}'
bad_create "name array" '{"code":"c","name":["N"]}'
bad_create "name of 51 code points" "{\"code\":\"c\",\"name\":\"$(rep é 51)\"}"
bad_create "description of 201" "{\"code\":\"c\",\"name\":\"N\",\"description\":\"$(rep 😀 201)\"}"
bad_create "description number" '{"code":"c","name":"N","description":5}'
bad_create "description bool" '{"code":"c","name":"N","description":true}'
bad_create "NUL in name" '{"code":"c","name":"a\u0000b"}'
bad_create "NUL in description" '{"code":"c","name":"N","description":"\u0000"}'
bad_create "invalid UTF-8" $'{"code":"c","name":"\xff\xfe"}'
bad_create "overlong UTF-8" $'{"code":"c","name":"\xc0\xaf"}'
bad_create "permission_ids string" "{\"code\":\"c\",\"name\":\"N\",\"permission_ids\":\"$P0\"}"
bad_create "permission_ids object" '{"code":"c","name":"N","permission_ids":{}}'
bad_create "permission_ids of numbers" '{"code":"c","name":"N","permission_ids":[1]}'
bad_create "permission_ids with null" '{"code":"c","name":"N","permission_ids":[null]}'
bad_create "permission_ids with empty" '{"code":"c","name":"N","permission_ids":[""]}'
bad_create "permission id of 65" "{\"code\":\"c\",\"name\":\"N\",\"permission_ids\":[\"$(rep a 65)\"]}"
bad_create "too many permission_ids" "{\"code\":\"c\",\"name\":\"N\",\"permission_ids\":$(seq 1 1001 | jq -R . | jq -sc .)}"
req POST "$R" "{\"code\":\"c\",\"name\":\"N\",\"permission_ids\":$(seq 1 1000 | jq -R . | jq -sc .)}"
check_err "create: 1000 unknown IDs pass validation" 404 some_permissions_not_found
bad_create "body is an array" '[]'
bad_create "body is a string" '"x"'
bad_create "malformed JSON" '{"code":"c",'
bad_create "trailing data" '{"code":"c","name":"N"} x'
bad_create "duplicate key" '{"code":"c","code":"d","name":"N"}'
CTYPE=text/plain req POST "$R" '{"code":"c","name":"N"}'
check_err "create: not JSON content type" 400 invalid_params
req POST "$R" -H 'Content-Type: application/json'
check_err "create: empty body" 400 invalid_params
check "nothing created by bad bodies" "$(db "select count(*) from roles where code = 'c'")" 0

# ---- create: references and conflicts ----
req POST "$R" '{"code":"c","name":"N","permission_ids":["nope"]}'
check_err "create: unknown permission" 404 some_permissions_not_found
req POST "$R" "{\"code\":\"c\",\"name\":\"N\",\"permission_ids\":[\"$P0\",\"nope\"]}"
check_err "create: one unknown permission" 404 some_permissions_not_found
req POST "$R" "{\"code\":\"c\",\"name\":\"N\",\"permission_ids\":[\"$OTHER_PERM\"]}"
check_err "create: another project's permission" 404 some_permissions_not_found
req POST "$R" "{\"code\":\"c\",\"name\":\"N\",\"permission_ids\":[\"$P0\",\"$(rep a 64)\"]}"
check_err "create: 64-char unknown ID" 404 some_permissions_not_found
req POST "$R" '{"code":"admin","name":"Again"}'
check_err "create: code taken" 409 role_code_already_used
req POST "$R" '{"code":"Admin","name":"Case"}'
check_status "create: codes are case-sensitive" 201
ADMIN2_ID=$(jq -r .id <<<"$BODY")
req POST "$R" '{"code":"admin","name":"N","description":5,"permission_ids":["nope"]}'
check_err "create: invalid_params beats not_found" 400 invalid_params
req POST "$R" '{"code":"admin","name":"N","permission_ids":["nope"]}'
check_err "create: not_found beats conflict" 404 some_permissions_not_found
check "failed creates wrote nothing" "$(db "select count(*) from roles where code = 'c'")" 0
AUTH="Bearer $OTHER_TOKEN" req POST "$OR" '{"code":"admin","name":"Other admin"}'
check_status "create: same code in another project" 201
OTHER_ROLE=$(jq -r .id <<<"$BODY")
AUTH="Bearer $OTHER_TOKEN" req POST "$OR" "{\"code\":\"p\",\"name\":\"N\",\"permission_ids\":[\"$P0\"]}"
check_err "create: this project's permission in another" 404 some_permissions_not_found

# ---- auth: the router's checks, as seen on these routes ----
AUTH=none req POST "$R" '{"code":"z","name":"Z"}'
check_err "create: no token" 401 invalid_authorization_token
req POST "/api/v1/projects/nope/roles" '{"code":"z","name":"Z"}'
check_err "create: unknown project" 404 project_not_found
req POST "$OR" '{"code":"z","name":"Z"}'
check_err "create: token of another project" 403 insufficient_permission
# a client holding only roles:read (written straight into the store)
RO_ID=readonly-client; RO_SECRET=readonly-secret-0123456789
RO_HASH=$(printf '%s' "$RO_SECRET" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=')
db "insert into clients (id, project_id, name, secret_hash, created_at, updated_at) values ('$RO_ID', '$PROJECT_ID', 'ro', '$RO_HASH', 0, 0);
	insert into client_permissions select '$RO_ID', p.id from permissions p join resources r on r.id = p.resource_id
	where p.project_id = '$PROJECT_ID' and r.code = 'roles' and p.code = 'read'"
RO_TOKEN=$(client_token "$RO_ID" "$RO_SECRET")
AUTH="Bearer $RO_TOKEN" req POST "$R" '{"code":"z","name":"Z"}'
check_err "create: without roles:create" 403 insufficient_permission
AUTH="Bearer $RO_TOKEN" req PUT "$R/$VIEWER_ID" '{"code":"z","name":"Z"}'
check_err "update: without roles:update" 403 insufficient_permission
AUTH="Bearer $RO_TOKEN" req GET "$R"
check_status "list: with roles:read" 200

# ---- update ----
req PUT "$R/$ADMIN_ID" "{\"code\":\"admin2\",\"name\":\"Admin 2\",\"description\":\"New\",\"permission_ids\":[\"$P1\",\"$P1\"]}"
check_status "update" 200
check_json "update id kept" .id "$ADMIN_ID"
check_json "update code" .code admin2
check_json "update name" .name "Admin 2"
check_json "update description" .description New
check_json "update permission_ids replaced" '.permission_ids|tostring' "$(sorted_json "$P1")"
check_json "update created_at kept" .created_at "$ADMIN_CREATED"
check_json "update updated_at" ".updated_at|test(\"$TS_RE\")" true
check_json "update updated_at not before created_at" '.updated_at >= .created_at' true
check_json "update fields exactly" '[keys_unsorted[]]|join(",")' "id,code,name,description,permission_ids,requires_second_factor,created_at,updated_at"

req PUT "$R/$ADMIN_ID" '{"code":"admin2","name":"Admin 3"}'
check_status "update keeping own code" 200
check_json "omitted description kept" .description New
check_json "omitted permission_ids kept" '.permission_ids|tostring' "$(sorted_json "$P1")"
req PUT "$R/$ADMIN_ID" '{"code":"admin2","name":"Admin 3","description":null,"permission_ids":[]}'
check_json "null description clears" '.description == null' true
check_json "[] clears permission_ids" '.permission_ids|length' 0
req PUT "$R/$ADMIN_ID" "{\"code\":\"admin2\",\"name\":\"A\",\"description\":\"D\",\"permission_ids\":[\"$P0\",\"$P1\",\"$P2\"]}"
check_json "permissions set again" '.permission_ids|length' 3
req PUT "$R/$ADMIN_ID" '{"code":"admin2","name":"A","description":"","permission_ids":null}'
check_json "empty description clears" '.description == null' true
check_json "null permission_ids clears" '.permission_ids|length' 0
check "cleared in the store" "$(db "select count(*) from role_permissions where role_id = '$ADMIN_ID'")" 0

bad_update() { # NAME BODY
	req PUT "$R/$ADMIN_ID" "$2"
	check_err "update: $1" 400 invalid_params
}
bad_update "missing code" '{"name":"N"}'
bad_update "missing name" '{"code":"admin2"}'
bad_update "null name" '{"code":"admin2","name":null}'
bad_update "bad code" '{"code":"a/b","name":"N"}'
bad_update "code of 51" "{\"code\":\"$(rep b 51)\",\"name\":\"N\"}"
bad_update "name of 51" "{\"code\":\"admin2\",\"name\":\"$(rep ü 51)\"}"
bad_update "description of 201" "{\"code\":\"admin2\",\"name\":\"N\",\"description\":\"$(rep x 201)\"}"
bad_update "description array" '{"code":"admin2","name":"N","description":[]}'
bad_update "permission_ids string" '{"code":"admin2","name":"N","permission_ids":"x"}'
bad_update "permission_ids number" '{"code":"admin2","name":"N","permission_ids":3}'
bad_update "NUL" '{"code":"admin2","name":"\u0000"}'
bad_update "invalid UTF-8" $'{"code":"admin2","name":"\xe2\x82"}'
bad_update "not an object" '[{"code":"admin2","name":"N"}]'
CTYPE=text/plain req PUT "$R/$ADMIN_ID" '{"code":"admin2","name":"N"}'
check_err "update: not JSON content type" 400 invalid_params
check "failed updates changed nothing" "$(role_row "$ADMIN_ID")" "admin2|A|NULL"

req PUT "$R/nope" '{"code":"x","name":"N"}'
check_err "update: unknown role" 404 role_not_found
req PUT "$R/$OTHER_ROLE" '{"code":"x","name":"N"}'
check_err "update: role of another project" 404 role_not_found
req PUT "$R/%2E%2E%2Fx%27%3B" '{"code":"x","name":"N"}'
check_err "update: escaped role id" 404 role_not_found
req PUT "$R/$ADMIN_ID" '{"code":"x","name":"N","permission_ids":["nope"]}'
check_err "update: unknown permission" 404 some_permissions_not_found
req PUT "$R/$ADMIN_ID" "{\"code\":\"x\",\"name\":\"N\",\"permission_ids\":[\"$OTHER_PERM\"]}"
check_err "update: another project's permission" 404 some_permissions_not_found
req PUT "$R/$ADMIN_ID" '{"code":"viewer","name":"N"}'
check_err "update: code taken" 409 role_code_already_used
req PUT "$R/nope" '{"code":"viewer","name":"N","description":7}'
check_err "update: invalid_params beats role_not_found" 400 invalid_params
req PUT "$R/nope" '{"name":"N"}'
check_err "update: missing code beats role_not_found" 400 invalid_params
req PUT "$R/nope" '{"code":"x","name":"N","permission_ids":["nope"]}'
check_err "update: role_not_found beats permissions" 404 role_not_found
req PUT "$R/nope" '{"code":"viewer","name":"N"}'
check_err "update: role_not_found beats conflict" 404 role_not_found
req PUT "$R/$ADMIN_ID" '{"code":"viewer","name":"N","permission_ids":["nope"]}'
check_err "update: permissions beat conflict" 404 some_permissions_not_found
check "failed updates changed nothing (2)" "$(role_row "$ADMIN_ID")" "admin2|A|NULL"
req PUT "$R/$ADMIN2_ID" '{"code":"ADMIN2","name":"Case"}'
check_status "update: case-different code is free" 200
AUTH="Bearer $OTHER_TOKEN" req PUT "$OR/$OTHER_ROLE" '{"code":"viewer","name":"Other"}'
check_status "update: code of another project's role is free" 200
AUTH="Bearer $OTHER_TOKEN" req PUT "$OR/$ADMIN_ID" '{"code":"q","name":"Other"}'
check_err "update: via another project" 404 role_not_found
AUTH=none req PUT "$R/$ADMIN_ID" '{"code":"q","name":"Q"}'
check_err "update: no token" 401 invalid_authorization_token

# ---- list: parameters ----
req GET "$R"
check_status "list" 200
check_json "list envelope" '[keys[]]|join(",")' "data,page_num,page_size,total"
check_json "list defaults" '"\(.page_num) \(.page_size)"' "1 10"
check_json "list total" .total 8
check_json "list record fields" '.data[0]|[keys_unsorted[]]|join(",")' "id,code,name,description,permission_ids,requires_second_factor,created_at,updated_at"
check_json "list default newest first" '.data[0].code' ADMIN2
check_json "list carries permission_ids" "[.data[]|select(.id == \"$ADMIN2_ID\")][0].permission_ids|tostring" '[]'
req PUT "$R/$VIEWER_ID" "{\"code\":\"viewer\",\"name\":\"Viewer\",\"permission_ids\":[\"$P2\",\"$P1\"]}"
req GET "$R?search=viewer"
check_json "list permission_ids of a role" '.data[0].permission_ids|tostring' "$(sorted_json "$P1" "$P2")"
req GET "$R?page_num=2&page_size=100"
check_json "page past the end is empty" '.data|length' 0
check_json "page past the end keeps total" .total 8
bad_list() { # NAME QUERY
	req GET "$R?$2"
	check_err "list: $1" 400 invalid_params
}
bad_list "page_num 0" page_num=0
bad_list "page_num negative" page_num=-1
bad_list "page_num not a number" page_num=abc
bad_list "page_num with sign" page_num=+1
bad_list "page_num huge" page_num=99999999999999999999999
bad_list "page_size 0" page_size=0
bad_list "page_size 101" page_size=101
bad_list "page_size empty" page_size=
bad_list "sort_by unknown" sort_by=description
bad_list "sort_by SQL" "sort_by=name%3B%20DROP%20TABLE%20roles"
bad_list "sort_by case" sort_by=Name
bad_list "sort_dir unknown" sort_dir=up
bad_list "sort_dir SQL" "sort_dir=asc%2C%20id"
bad_list "page_num twice" "page_num=1&page_num=2"
bad_list "search twice" "search=a&search=b"
bad_list "bad escape" "search=%zz"
bad_list "invalid UTF-8 search" "search=%ff"
req GET "$R?page_size=100&page_num=1&sort_by=code&sort_dir=asc&unknown=1"
check_err "list: unknown query parameter refused (issue27)" 400 invalid_params
req GET "$R?search=%27%20OR%201%3D1%20--"
check_json "list: SQL-looking search matches nothing" .total 0
req GET "$R?search=%25"
check_json "list: % is literal" '[.data[].code]|join(",")' sqlish
req GET "$R?search=_"
check_json "list: _ is literal" '[.data[].code]|join(",")' sqlish
req GET "$R?search=%5C"
check_json "list: backslash is literal" '[.data[].code]|join(",")' sqlish
req GET "$R?search=ADMIN&sort_by=code&sort_dir=asc"
check_json "list: search ignores case" '[.data[].code]|sort|join(",")' "ADMIN2,admin2"
req GET "$R?search=drop+table"
check_json "list: search in name" '[.data[].code]|join(",")' sqlish
req GET "$R?search=runs"
check_json "list: cleared description no longer matches" .total 0
req GET "$R?search="
check_json "list: empty search is no filter" .total 8
AUTH="Bearer $OTHER_TOKEN" req GET "$OR"
check_json "list: other project sees its own" '[.data[].code]|join(",")' viewer
AUTH=none req GET "$R"
check_err "list: no token" 401 invalid_authorization_token

# ---- lists on a few thousand roles ----
N=3000
SEED=$TMP/seed.curl
: > "$SEED"
for ((i = 1; i <= N; i++)); do
	case $((i % 4)) in
	0) code="code_$i" ;; 1) code="Code-$i" ;; 2) code="C$i" ;; 3) code="c$i" ;;
	esac
	case $((i % 5)) in
	0) name="Role $((i % 97))" ;; 1) name="role $((i % 97))" ;; 2) name="ROLE $((i % 89))" ;;
	3) name="Été $((i % 7))" ;; 4) name="zeta_$((i % 13))%" ;;
	esac
	case $((i % 3)) in
	0) desc=",\"description\":\"Desc $i\"" ;; 1) desc="" ;; 2) desc=",\"description\":\"under_score 100% $((i % 11))\"" ;;
	esac
	printf 'url = "%s"\nrequest = "POST"\nheader = "Authorization: Bearer %s"\nheader = "Content-Type: application/json"\ndata-binary = "{\\"code\\":\\"%s\\",\\"name\\":\\"%s\\"%s}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\nnext\n' \
		"$BASE$R" "$TOKEN" "$code" "$name" "${desc//\"/\\\"}" >> "$SEED"
done
# codes that differ only in case: ties under NOCASE, broken by id
for ((i = 1; i <= 40; i++)); do
	for code in "tie$i" "TIE$i" "Tie$i"; do
		printf 'url = "%s"\nrequest = "POST"\nheader = "Authorization: Bearer %s"\nheader = "Content-Type: application/json"\ndata-binary = "{\\"code\\":\\"%s\\",\\"name\\":\\"Tie\\"}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\nnext\n' \
			"$BASE$R" "$TOKEN" "$code" >> "$SEED"
	done
done
sed -i '$d' "$SEED"   # no "next" after the last block
CODES=$(curl -s -K "$SEED" | sort | uniq -c | awk '{print $2 "x" $1}' | paste -sd,)
check "seeded roles" "$CODES" "201x$((N + 120))"
TOTAL=$((N + 120 + 8))

# updates of some seeded roles, so that updated_at differs from created_at
UPD=$TMP/update.curl
: > "$UPD"
mapfile -t SOME < <(db "select id || ' ' || code from roles where project_id = '$PROJECT_ID' and code like 'c%' order by random() limit 150")
for row in "${SOME[@]}"; do
	printf 'url = "%s/%s"\nrequest = "PUT"\nheader = "Authorization: Bearer %s"\nheader = "Content-Type: application/json"\ndata-binary = "{\\"code\\":\\"%s\\",\\"name\\":\\"Updated\\"}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\nnext\n' \
		"$BASE$R" "${row%% *}" "$TOKEN" "${row#* }" >> "$UPD"
done
sed -i '$d' "$UPD"
check "updated roles" "$(curl -s -K "$UPD" | sort | uniq -c | awk '{print $2 "x" $1}')" "200x150"

# fetch_all SORT_BY SORT_DIR PAGE_SIZE PAGES [SEARCH]: pages 1..PAGES, in order,
# as one JSON array of list answers in $TMP/all.json
fetch_all() {
	local dir=$TMP/pages
	rm -rf "$dir"; mkdir -p "$dir"
	# --parallel: several connections, so that one slow answer does not hold up the rest
	curl -s --no-progress-meter --parallel --parallel-max 8 -H "Authorization: Bearer $TOKEN" \
		"$BASE$R?sort_by=$1&sort_dir=$2&page_size=$3&page_num=[1-$4]${5:+&search=$5}" -o "$dir/#1.json"
	local pages=() k
	for ((k = 1; k <= $4; k++)); do pages+=("$dir/$k.json"); done
	jq -sc '.' "${pages[@]}" > "$TMP/all.json"   # one jq, not a cat a page
}
# pages_for COUNT SIZE: enough pages to hold COUNT, and one past the end
pages_for() { echo $(( ($1 + $2 - 1) / $2 + 1 )); }
# check_pages NAME WANT_IDS_FILE SIZE TOTAL: $TMP/all.json holds, in order,
# exactly the IDs of WANT_IDS_FILE (a JSON array), every answer tells TOTAL,
# every page but the last non-empty one is full, no ID comes twice, and
# page_num is echoed.
check_pages() {
	check "$1" "$(jq -r --slurpfile want "$2" --argjson size "$3" --argjson total "$4" '
		[.[].data[].id] as $got
		| "order=\($got == $want[0]) total=\([.[].total]|unique == [$total])"
		+ " full=\([.[].data|length]|map(select(. != $size and . != 0))|length <= 1)"
		+ " unique=\($got|length == (unique|length))"
		+ " page_num=\([.[].page_num] == [range(1; length + 1)])"' "$TMP/all.json")" \
		"order=true total=true full=true unique=true page_num=true"
}
# the jq key each order sorts on; name and code ignore ASCII case, ties by id
# (in the same direction, so desc is asc reversed)
declare -A KEY=([created_at]='[.created_at, .id]' [updated_at]='[.updated_at, .id]'
	[name]='[(.name|ascii_downcase), .id]' [code]='[(.code|ascii_downcase), .id]')

fetch_all created_at asc 100 "$(pages_for "$TOTAL" 100)"
jq -c '[.[].data[]]' "$TMP/all.json" > "$TMP/full.json"
check "full set size" "$(jq length "$TMP/full.json")" "$TOTAL"
check "full set unique" "$(jq '[.[].id]|unique|length' "$TMP/full.json")" "$TOTAL"
check "full set is the store" "$(jq -r '[.[].id]|sort|.[]' "$TMP/full.json" | md5sum)" \
	"$(db "select id from roles where project_id = '$PROJECT_ID'" | LC_ALL=C sort | md5sum)"
check "store's permission sets" "$(jq -r '[.[]|select(.permission_ids|length > 0)]|length' "$TMP/full.json")" \
	"$(db "select count(distinct role_id) from role_permissions rp join roles r on r.id = rp.role_id where r.project_id = '$PROJECT_ID'")"

for by in created_at updated_at name code; do
	jq -c "sort_by(${KEY[$by]})|[.[].id]" "$TMP/full.json" > "$TMP/want_asc.json"
	jq -c 'reverse' "$TMP/want_asc.json" > "$TMP/want_desc.json"
	for dir in asc desc; do
		for size in 100 37; do
			[ "$size" = 37 ] && [ "$by" != name ] && [ "$by" != code ] && continue
			fetch_all "$by" "$dir" "$size" "$(pages_for "$TOTAL" "$size")"
			check_pages "list sort_by=$by sort_dir=$dir page_size=$size" "$TMP/want_$dir.json" "$size" "$TOTAL"
		done
	done
done

# searches: totals and members against the full set filtered by jq
for term in tie 'été' 'Été' '100%' '%' '_' 'zeta_1' 'ROLE 4' 'desc 1' 'updated' 'code-' 'no-such'; do
	enc=$(jq -rn --arg t "$term" '$t|@uri')
	jq -c --arg t "$term" '[.[]|select([.code, .name, .description // ""]|map(ascii_downcase)|any(contains($t|ascii_downcase)))]|sort_by([(.name|ascii_downcase), .id])|[.[].id]' "$TMP/full.json" > "$TMP/want.json"
	n=$(jq length "$TMP/want.json")
	fetch_all name asc 100 "$(pages_for "$n" 100)" "$enc"
	check_pages "search '$term' ($n)" "$TMP/want.json" 100 "$n"
done

# combined with a deep page and a sort
req GET "$R?search=tie&sort_by=code&sort_dir=desc&page_size=7&page_num=3"
check_json "search page 3 size" '.data|length' 7
check_json "search page 3 total" .total 120
check_json "search page 3 codes sorted" '[.data[].code|ascii_downcase] == ([.data[].code|ascii_downcase]|sort|reverse)' true

# ---- simultaneous updates of 20 roles to one code: exactly one wins ----
for i in $(seq 20); do
	req POST "$R" "{\"code\":\"upd-$i\",\"name\":\"Upd\"}"
	printf 'url = "%s/%s"\nrequest = "PUT"\nheader = "Authorization: Bearer %s"\nheader = "Content-Type: application/json"\ndata-binary = "{\\"code\\":\\"race-upd\\",\\"name\\":\\"Upd\\"}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\nnext\n' \
		"$BASE$R" "$(jq -r .id <<<"$BODY")" "$TOKEN"
done | sed '$d' > "$TMP/race.curl"
check "update race: one 200, the rest 409" \
	"$(curl --no-progress-meter -Z --parallel-max 20 -K "$TMP/race.curl" | sort | uniq -c | awk '{print $2 "x" $1}' | paste -sd,)" \
	"200x1,409x19"
req GET "$R?search=race-upd"
check_json "update race: one has the code" .total 1

# ---- a role held by 3,000 users is deleted: one savepoint whose journal
# (every page of those users) outgrows any spill; it failed with a 500 when
# SQLite wrote it out in pieces the unix VFS could not take ----
req POST "$R" '{"code":"crowd","name":"Crowd"}'
CROWD=$(jq -r .id <<<"$BODY")
for i in $(seq 3000); do
	printf 'url = "%s"\nheader = "Authorization: Bearer %s"\nheader = "Content-Type: application/json"\ndata-binary = "{\\"display_name\\":\\"Crowd member %s of the deleted role\\",\\"external_user_id\\":\\"crowd-%s\\",\\"role_id\\":\\"%s\\"}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\nnext\n' \
		"$BASE$P/users" "$TOKEN" "$i" "$i" "$CROWD"
done | sed '$d' > "$TMP/crowd.curl"
check "3,000 users with the role" "$(curl --no-progress-meter -Z --parallel-max 8 -K "$TMP/crowd.curl" | sort | uniq -c | awk '{print $2 "x" $1}')" "201x3000"
req DELETE "$R/$CROWD"
check_status "the role held by 3,000 users is deleted" 204
check "its users hold no role now" "$(db "select count(*) from users where external_user_id like 'crowd-%' and role_id is null")" 3000

finish
