# Users list on a store of a few thousand users: every sort_by x sort_dir
# against an independent sort (jq), NULL placement, pages that never overlap,
# totals with search / is_active / role_id filters, and bad parameters.
. "$(dirname "$0")/lib.sh"
start_server
keepalive_client   # req over one connection (lib.sh)

N=3000
db "INSERT INTO roles (id, project_id, code, name, created_at, updated_at) VALUES
     ('role_a', '$PROJECT_ID', 'a', 'admin', 0, 0),
     ('role_b', '$PROJECT_ID', 'b', 'Editor', 0, 0),
     ('role_c', '$PROJECT_ID', 'c', 'viewer', 0, 0);"

# Seed: one curl process, keep-alive, one --next block per user. Names repeat
# in mixed case (ties), some hold % _ ' \ ; some users have no email, some no
# external ID (those have an email and a password), a quarter no role.
jq -n -r --arg url "$BASE$P/users" --arg auth "Authorization: Bearer $TOKEN" --argjson n "$N" '
	["alice", "Alice", "ALICE_x", "bob", "Bob%", "carol", "Dave_", "eve'"'"'s", "Zed",
	 "émile", "Émile", "100% sure", "under_score", "back\\slash", "x'"'"' OR 1=1 --"] as $names |
	["role_a", "role_b", "role_c"] as $roles |
	range(0; $n) as $i |
	($i % 50 != 0) as $has_ext |
	{display_name: ($names[$i % ($names|length)] + (if $i % 3 == 0 then "" else " \($i % 13)" end))}
	+ (if $has_ext then {external_user_id: ((if $i % 2 == 0 then "EXT-" else "ext-" end) + "\($i)")} else {} end)
	+ (if $i % 3 != 0 or ($has_ext | not) then
		{email: ((if $i % 2 == 0 then "User" else "user" end) + "\($i)@Example.com"), password: "password-\($i)"}
	   else {} end)
	+ (if $i % 4 == 0 then {} else {role_id: $roles[$i % 4 - 1]} end)
	+ (if $i % 5 == 0 then {avatar_url: "https://img.example.com/\($i).png"} else {} end)
	| "url = \($url | tojson)\nrequest = \"POST\"\nheader = \($auth | tojson)\n"
	+ "header = \"Content-Type: application/json\"\ndata-binary = \(tojson | tojson)\n"
	+ "output = \"/dev/null\"\nwrite-out = \"%{http_code}\\n\"\nnext"
' | sed '$d' > "$TMP/seed.curl"   # no "next" after the last block
curl -s -K "$TMP/seed.curl" > "$TMP/seed.out"
check "seed: every create answered 201" "$(grep -c '^201$' "$TMP/seed.out")" "$N"

# Deactivate a fifth and spread updated_at, behind the API's back (o.n: a
# user's place in creation order; SQL both backends read alike).
db "CREATE TEMP TABLE o (id TEXT PRIMARY KEY, n INTEGER NOT NULL);
    INSERT INTO o SELECT id, row_number() OVER (ORDER BY created_at, id) FROM users;
    UPDATE users SET is_active = false WHERE id IN (SELECT id FROM o WHERE n % 5 = 2);
    UPDATE users SET updated_at = updated_at + ((SELECT n FROM o WHERE o.id = users.id) * 7919) % 100000
    WHERE id IN (SELECT id FROM o WHERE n % 3 = 1);"

PAGES=$(( (N + 99) / 100 ))
# fetch QUERY: every page of size 100, concatenated into one JSON array of records.
# A connection per page: on a reused one each large answer stalls ~40 ms
# (the server does not set TCP_NODELAY; Nagle meets delayed ACK).
fetch() {
	curl -s -H 'Connection: close' -H "Authorization: Bearer $TOKEN" \
		"$BASE$P/users?page_size=100&page_num=[1-$PAGES]&$1" |
		jq -s '[.[].data[]]'
}

fetch "sort_by=created_at" > "$TMP/all.json"
check "full set: size" "$(jq length "$TMP/all.json")" "$N"
check "full set: distinct ids" "$(jq '[.[].id]|unique|length' "$TMP/all.json")" "$N"
check "full set: no password fields" "$(jq '[.[]|select(has("password") or has("password_hash"))]|length' "$TMP/all.json")" 0

# Each sort key as jq computes it: text without regard to ASCII case (as SQLite's
# NOCASE), null before everything (SQLite's NULL order ascending).
declare -A KEY=(
	[created_at]='.created_at'
	[updated_at]='.updated_at'
	[display_name]='(.display_name|ascii_downcase)'
	[email]='(.email|if . == null then null else ascii_downcase end)'
	[is_active]='.is_active'
	[external_user_id]='(.external_user_id|if . == null then null else ascii_downcase end)'
	[role_name]='(.role_name|if . == null then null else ascii_downcase end)'
)
for by in created_at updated_at display_name email is_active external_user_id role_name; do
	asc=$(jq -c "sort_by([${KEY[$by]}, .id])|map(.id)" "$TMP/all.json")
	for dir in asc desc; do
		want=$asc
		[ $dir == desc ] && want=$(jq -c reverse <<<"$asc")
		got=$(fetch "sort_by=$by&sort_dir=$dir" | jq -c 'map(.id)')
		check "sort $by $dir" "$got" "$want"
	done
done
got=$(fetch "" | jq -c 'map(.id)')
check "default sort: created_at desc" "$got" "$(jq -c 'sort_by([.created_at, .id])|reverse|map(.id)' "$TMP/all.json")"

# NULL placement, seen on the first and last pages.
req GET "$P/users?sort_by=email&sort_dir=asc&page_size=5"
check_json "email asc: NULLs first" '[.data[].email]|unique|tojson' '[null]'
req GET "$P/users?sort_by=email&sort_dir=desc&page_size=5"
check_json "email desc: NULLs last" '[.data[].email|select(. == null)]|length' 0
req GET "$P/users?sort_by=external_user_id&sort_dir=asc&page_size=5"
check_json "external_user_id asc: NULLs first" '[.data[].external_user_id]|unique|tojson' '[null]'
req GET "$P/users?sort_by=role_name&sort_dir=desc&page_num=$PAGES&page_size=100"
check_json "role_name desc: NULLs last" '.data[-1].role_name' null

# Pages: sizes, a page past the end, totals.
req GET "$P/users?page_size=7&page_num=3&sort_by=display_name&sort_dir=asc"
check_json "page envelope" '[.page_num,.page_size,.total,(.data|length)]|tojson' "[3,7,$N,7]"
check_json "page 3 of 7 is the third slice" '[.data[].id]|tojson' \
	"$(jq -c 'sort_by([(.display_name|ascii_downcase), .id])|.[14:21]|map(.id)' "$TMP/all.json")"
req GET "$P/users"
check_json "defaults: page 1, size 10" '[.page_num,.page_size,(.data|length)]|tojson' '[1,10,10]'
req GET "$P/users?page_num=$((PAGES + 1))&page_size=100"
check_json "page past the end" '[(.data|length),.total]|tojson' "[0,$N]"
req GET "$P/users?page_num=92233720368547758&page_size=100"
check_json "huge page_num is empty" '.data|length' 0

# count FILTER: the number of records of the full set that pass a jq filter
count() { jq "[.[]|select($1)]|length" "$TMP/all.json"; }
total() { req GET "$P/users?page_size=1&$1"; jq -r .total <<<"$BODY"; }
lc='ascii_downcase'
has() { echo "((.display_name|$lc|contains(\"$1\")) or ((.email // \"\")|$lc|contains(\"$1\")))"; }
check "total: is_active=true" "$(total is_active=true)" "$(count '.is_active')"
check "total: is_active=false" "$(total is_active=false)" "$(count '.is_active|not')"
check "total: role_id" "$(total role_id=role_b)" "$(count '.role_id == "role_b"')"
check "total: unknown role_id" "$(total role_id=no-such-role)" 0
check "total: empty role_id is no filter" "$(total role_id=)" "$N"
check "total: search alice (any case)" "$(total search=aLiCe)" "$(count "$(has alice)")"
check "total: search email domain" "$(total search=EXAMPLE.COM)" "$(count '.email != null')"
check "total: search %" "$(total search=%25)" "$(count "$(has %)")"
check "total: search _" "$(total search=_)" "$(count "$(has _)")"
check "total: search 0% s (literal %)" "$(total 'search=0%25%20s')" "$(count "$(has '0% s')")"
check "total: search e_s (literal _)" "$(total search=e_s)" "$(count "$(has e_s)")"
check "total: search backslash" "$(total 'search=%5C')" "$(count "$(has '\\')")"
check "total: search SQL-looking" "$(total "search=x'%20OR%201%3D1%20--")" "$(count "$(has "x' or 1=1 --")")"
check "total: search quote" "$(total "search='")" "$(count "$(has "'")")"
check "total: search no match" "$(total "search=%27%29%3B%20DROP%20TABLE%20users%3B--")" 0
check "total: search empty is no filter" "$(total search=)" "$N"
F='is_active=true&role_id=role_a&search=bob'
check "total: filters combined" "$(total "$F")" "$(count ".is_active and .role_id == \"role_a\" and $(has bob)")"
got=$(fetch "$F&sort_by=email&sort_dir=asc" | jq -c 'map(.id)')
check "filtered and sorted" "$got" "$(jq -c "[.[]|select(.is_active and .role_id == \"role_a\" and $(has bob))]|sort_by([${KEY[email]}, .id])|map(.id)" "$TMP/all.json")"
req GET "$P/users?search=%C3%A9mile&page_size=100"
check_json "search: non-ASCII" .total "$(count "$(has émile)")"
check "the table survived" "$(db 'SELECT count(*) FROM users')" "$N"

# Bad parameters: invalid_params.
bad_list() { req GET "$P/users?$2"; check_err "list invalid: $1" 400 invalid_params; }
bad_list "sort_by=password" sort_by=password
bad_list "sort_by SQL" "sort_by=created_at%3B%20DROP%20TABLE%20users"
bad_list "sort_by case" sort_by=Email
bad_list "sort_by empty" sort_by=
bad_list "sort_by twice" "sort_by=email&sort_by=email"
bad_list "sort_dir" sort_dir=up
bad_list "sort_dir upper" sort_dir=ASC
bad_list "is_active=maybe" is_active=maybe
bad_list "is_active=1" is_active=1
bad_list "is_active empty" is_active=
bad_list "page_num 0" page_num=0
bad_list "page_num negative" page_num=-1
bad_list "page_num text" page_num=two
bad_list "page_size 0" page_size=0
bad_list "page_size 101" page_size=101
bad_list "bad escape" search=%zz
bad_list "invalid UTF-8" search=%ff
bad_list "U+0000" search=a%00b
req GET "$P/users?role_id=no-such&is_active=maybe"
check_err "list: invalid_params over a filter that matches nothing" 400 invalid_params

finish
