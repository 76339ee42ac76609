# The same records through both backends (issue25.6): one server on SQLite,
# then one on PostgreSQL, each given the same writes (a resource with
# permissions, a role, a user with every field, a client with every field,
# a sign-in, updates, deletes), and each answer's raw body kept as the API
# sent it. What must differ (IDs, secrets, tokens, times) is replaced by
# the same placeholder on both sides, as plain text (sed), so that
# everything else, key order and spacing included, is compared byte for
# byte. So are `edgeauth events`, `edgeauth project list` and the [audit]
# file. Arrays sorted by ID (permission_ids) hold random IDs: each side is
# checked to be in byte order, then the placeholders are sorted to compare.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../signin_lib.sh"
postgres_only
OUT=$TMP/same
REDIRECT="http://127.0.0.1:9/cb"
PW="ann's password"

# keep NAME: the last answer's status and raw body, as $D/NAME
keep() { { echo "$STATUS"; cat "$TMP/body"; } > "$D/$1"; }
# named ID NAME: the placeholder <NAME> stands for ID in this run's answers
named() { [ -n "$1" ] && [ "$1" != null ] && printf '%s <%s>\n' "$1" "$2" >> "$D/ids"; }
# named_resources: every resource and permission of the project, by code
named_resources() {
	load_resources
	jq -r '.data[]|(.id + " <resource:" + .code + ">"),
		(.code as $r|.permissions[]|(.id + " <permission:" + $r + ":" + .code + ">"))' \
		<<<"$RESOURCES" >> "$D/ids"
}

# scenario: the writes and reads, on the server of $BACKEND, into $OUT/$BACKEND
scenario() {
	D=$OUT/$BACKEND
	mkdir -p "$D"
	start_server "audit.file=$D/audit.log"
	named "$PROJECT_ID" project; named "$CLIENT_ID" admin-client; named "$CLIENT_SECRET" admin-secret
	named_resources

	req POST "$P/resources" '{"name":"Orders","code":"orders","description":"What was bought","permissions":[{"name":"Read","code":"read","description":"See them"},{"name":"Ship","code":"ship"}]}'
	keep resource.create
	local res; res=$(jq -r .id <<<"$BODY")
	named_resources
	req PUT "$P/resources/$res" "{\"name\":\"Orders 2\",\"code\":\"orders\",\"description\":\"Bought\",\"permissions\":[{\"id\":\"$(pid orders:read)\",\"name\":\"Read all\",\"code\":\"read\"},{\"name\":\"Pack\",\"code\":\"pack\",\"description\":\"Box them\"}]}"
	keep resource.update
	named_resources
	req GET "$P/resources/$res"; keep resource.get
	req GET "$P/resources?search=orders"; keep resource.list
	req GET "$P/resources/$(jq -r '.data[]|select(.code=="users")|.id' <<<"$RESOURCES")"
	keep resource.get_default

	req POST "$P/roles" "{\"code\":\"clerk\",\"name\":\"Clerk\",\"description\":\"Counts\",\"permission_ids\":$(ids orders:read orders:pack users:read)}"
	keep role.create
	local role; role=$(jq -r .id <<<"$BODY"); named "$role" role:clerk
	req PUT "$P/roles/$role" "{\"code\":\"clerk\",\"name\":\"Clerk 2\",\"description\":\"Counts more\",\"permission_ids\":$(ids orders:read orders:pack users:read users:update)}"
	keep role.update
	req POST "$P/roles" '{"code":"temp","name":"Temp"}'
	keep role.create_bare
	local temp; temp=$(jq -r .id <<<"$BODY"); named "$temp" role:temp
	req GET "$P/roles/$role"; keep role.get
	req GET "$P/roles?sort_by=code&sort_dir=asc&page_size=100"; keep role.list

	req POST "$P/users" "$(jq -cn --arg p "$PW" --arg r "$role" '{display_name:"Ann Example",email:"Ann@Example.com",password:$p,avatar_url:"https://img.example.com/ann.png",role_id:$r,external_user_id:"ann-1"}')"
	keep user.create
	local ann; ann=$(jq -r .id <<<"$BODY"); named "$ann" user:ann
	req POST "$P/users" '{"display_name":"Bo","external_user_id":"bo-1"}'
	keep user.create_byou
	local bo; bo=$(jq -r .id <<<"$BODY"); named "$bo" user:bo
	req PUT "$P/users/$bo" "{\"display_name\":\"Bo 2\",\"external_user_id\":\"bo-1\",\"is_active\":false,\"role_id\":\"$temp\",\"avatar_url\":\"https://img.example.com/bo.png\"}"
	keep user.update
	req GET "$P/users/$ann"; keep user.get
	req GET "$P/users/external/ann-1?include_permissions=true"; keep user.external_permissions
	req GET "$P/users/external/bo-1"; keep user.external
	req GET "$P/users?sort_by=display_name&sort_dir=asc&page_size=100"; keep user.list
	req GET "$P/users?search=ann"; keep user.search

	req POST "$P/clients" "{\"name\":\"Shop\",\"description\":\"The shop\",\"permission_ids\":$(ids orders:read users:read),\"redirect_uris\":[\"$REDIRECT\",\"http://127.0.0.1:9/other\"],\"post_logout_redirect_uris\":[\"http://127.0.0.1:9/bye\"],\"backchannel_logout_uri\":\"http://127.0.0.1:9/bc\",\"token_endpoint_auth_method\":\"client_secret_post\",\"id_token_signed_response_alg\":\"ES256\"}"
	keep client.create
	local shop; shop=$(jq -r .id <<<"$BODY"); named "$shop" client:shop
	named "$(jq -r .client_secret <<<"$BODY")" secret:shop
	req POST "$P/clients" "{\"name\":\"Spa\",\"redirect_uris\":[\"$REDIRECT\"]}"
	keep client.create_public
	local spa; spa=$(jq -r .id <<<"$BODY"); named "$spa" client:spa
	named "$(jq -r .client_secret <<<"$BODY")" secret:spa
	req PUT "$P/clients/$shop" "{\"name\":\"Shop 2\",\"is_active\":true,\"description\":\"New\",\"permission_ids\":$(ids orders:read orders:pack),\"redirect_uris\":[\"$REDIRECT\"]}"
	keep client.update
	req POST "$P/clients/$shop/secret"
	keep client.rotate_secret
	local shop_secret; shop_secret=$(jq -r .client_secret <<<"$BODY"); named "$shop_secret" secret:shop2
	req GET "$P/clients/$shop"; keep client.get
	req GET "$P/clients?sort_by=name&sort_dir=asc&page_size=100"; keep client.list

	# an OpenID sign-in of Ann at the public client, and what her tokens read
	new_pkce
	authorize_post "$spa" "$REDIRECT" "Ann@Example.com" "$PW" st-1 "scope=openid profile email roles"
	CODE=$(query_value "$LOCATION" code)
	named "$CODE" code
	exchange "$spa" "$REDIRECT" "$CODE" "$VERIFIER"
	keep token.authorization_code
	named "$ACCESS" access; named "$REFRESH" refresh
	named "$(jq -r '.id_token // empty' <<<"$BODY")" id-token
	AUTH="Bearer $ACCESS" req GET /api/v1/userinfo; keep userinfo
	AUTH="Bearer $ACCESS" req GET /api/v1/users/current; keep user.current
	refresh "$spa" "$REFRESH"
	keep token.refresh
	named "$ACCESS" access2; named "$REFRESH" refresh2
	named "$(jq -r '.id_token // empty' <<<"$BODY")" id-token2
	# what the shop (client_secret_post) reads of Ann's token and of its own
	named "$BASE" issuer; named "$(jwt_claim "$ACCESS" jti)" jti2
	ENDPOINT=/api/v1/tokens/introspect token_req "token=$ACCESS" "client_id=$shop" "client_secret=$shop_secret"
	keep introspect.user
	token_req grant_type=client_credentials "client_id=$shop" "client_secret=$shop_secret"
	keep token.client_credentials
	local cc; cc=$(jq -r .access_token <<<"$BODY"); named "$cc" access3; named "$(jwt_claim "$cc" jti)" jti3
	ENDPOINT=/api/v1/tokens/introspect token_req "token=$cc" "client_id=$shop" "client_secret=$shop_secret"
	keep introspect.client
	ENDPOINT=/api/v1/tokens/revoke token_req "token=$REFRESH" "client_id=$spa"
	keep token.revoke
	refresh "$spa" "$REFRESH"
	keep token.refresh_revoked

	req DELETE "$P/roles/$temp"; keep role.delete
	req GET "$P/users/$bo"; keep user.get_roleless
	req DELETE "$P/users/$bo"; keep user.delete
	req DELETE "$P/clients/$spa"; keep client.delete
	req DELETE "$P/resources/$res"; keep resource.delete
	req GET "$P/roles/$role"; keep role.get_after
	req GET "$P/resources/$res"; keep resource.get_gone

	"$EDGEAUTH" -c "$CONF" events --project "$PROJECT_ID" > "$D/events"
	"$EDGEAUTH" -c "$CONF" project list > "$D/projects"
	stop_server
}

# normal FILE: FILE with this run's IDs, secrets and tokens named, its
# times and event IDs made placeholders, and the members of each
# permission_ids array sorted
normal() {
	local dir; dir=$(dirname "$1")
	awk '{ gsub(/[.]/, "[.]", $1); printf "s|%s|%s|g\n", $1, $2 }' "$dir/ids" > "$dir/ids.sed"
	sed -f "$dir/ids.sed" "$1" |
		sed -E 's/"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z"/"<time>"/g
			s/"(exp|iat|nbf|auth_time|updated_at)":[0-9]+/"\1":"<s>"/g
			s/\{"id":[0-9]+,"time"/{"id":"<n>","time"/g' |
		python3 -c 'import re, sys; sys.stdout.write(re.sub(r"(\"permission_ids\":\[)([^]]*)]",
			lambda m: m[1] + ",".join(sorted(m[2].split(","))) + "]", sys.stdin.read()))'
}

BACKEND=sqlite scenario
BACKEND=postgres scenario

# each side's permission_ids in byte order of the real IDs
for b in sqlite postgres; do
	for f in "$OUT/$b"/role.* "$OUT/$b"/client.*; do
		tail -n +2 "$f" | jq -e '[.. | objects | select(has("permission_ids")) | .permission_ids == (.permission_ids|sort)] | all' > /dev/null 2>&1 ||
			[ -z "$(tail -n +2 "$f")" ] || fail "issue25.6: $b's $(basename "$f") permission_ids not in byte order"
	done
done
for f in "$OUT"/sqlite/*; do
	name=$(basename "$f")
	case $name in ids | ids.sed) continue ;; esac
	if [ ! -s "$f" ]; then fail "issue25.6: $name is empty on SQLite"; continue; fi
	a=$(normal "$f"); b=$(normal "$OUT/postgres/$name")
	if [ "$a" == "$b" ]; then pass
	else fail "issue25.6: $name differs between SQLite (-) and PostgreSQL (+): $(diff <(echo "$a") <(echo "$b") | head -20)"; fi
done
# no value left that looks like an ID (22 characters) or a secret (43) of
# one run only, which would differ by chance
left=$(for f in "$OUT"/sqlite/*; do case $f in */ids | */ids.sed) ;; *) normal "$f" ;; esac; done |
	grep -oE '"([A-Za-z0-9_-]{22}|[A-Za-z0-9_-]{43})"[],}]' | sort -u | head -5)
check "issue25.6: every ID is named (none left to differ by chance)" "$left" ""
finish
