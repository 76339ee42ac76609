# Users search with terms of 3 characters or more, which read the suffix
# index (schema/005_users_suffixes.sql; on PostgreSQL the pg_trgm indexes of
# schema/postgres/003): the same answers as the scan that shorter terms use
# (docs/api.md §"Field values": a substring of display name or email, ASCII case ignored,
# % _ \ " literal), after creates and updates, and with the other filters,
# sorts and pages.
. "$(dirname "$0")/lib.sh"
start_server
keepalive_client

# add NAME [EMAIL]: a user whose external ID is its position (u1, u2...); one
# with an email also gets a password, as create requires
N=0
add() {
	N=$((N + 1))
	local body
	body=$(jq -cn --arg n "$1" --arg e "${2:-}" --arg x "u$N" \
		'{display_name: $n, external_user_id: $x}
		 + (if $e == "" then {} else {email: $e, password: "password-\($x)"} end)')
	req POST "$P/users" "$body"
	[ "$STATUS" == 201 ] || fail "create $1: $STATUS $BODY"
}
add "Alice Smith" "alice@Example.com"      # u1
add "ALICE_x"                              # u2
add "Trace X" "trace@example.org"          # u3  ("e X": would match e_x if _ were a wildcard)
add "Bob 100%sure"                         # u4
add "Bob 100 percent sure"                 # u5  (would match 0%s if % were a wildcard)
add 'say "hi" there'                       # u6
add "Émile"                                # u7
add "émile"                                # u8
add 'back\slash'                           # u9
add "x' OR 1=1 --"                         # u10
add "Carol" "CAROL.ALICE@corp.example"     # u11

# found TERM [QUERY]: the external IDs the search finds, by external ID, one line
found() {
	local t
	t=$(jq -rn --arg t "$1" '$t|@uri')
	req GET "$P/users?search=$t&page_size=100&sort_by=external_user_id&sort_dir=asc${2:+&$2}"
	printf '%s' "$BODY" | jq -r '[.data[].external_user_id]|sort_by(.[1:]|tonumber)|join(" ")'
}
total() {
	local t
	t=$(jq -rn --arg t "$1" '$t|@uri')
	req GET "$P/users?search=$t&page_size=1${2:+&$2}"
	printf '%s' "$BODY" | jq -r .total
}

check "mixed case finds every case" "$(found aLiCe)" "u1 u2 u11"
check "upper case" "$(found 'SMITH')" "u1"
check "email, any case" "$(found '@EXAMPLE.')" "u1 u3"
check "name or email" "$(found 'alice@')" "u1 u11"
check "_ is literal" "$(found 'e_X')" "u2"
check "_ literal, 2 characters (scan)" "$(found 'e_')" "u2"
check "% is literal" "$(found '0%S')" "u4"
check "% alone, 3 characters" "$(found '00%')" "u4"
check "%% does not match everything" "$(found '%%%')" ""
check "___ does not match everything" "$(found '___')" ""
check "double quotes" "$(found '"hi"')" "u6"
check "one double quote" "$(found 'y "h')" "u6"
check "backslash" "$(found 'k\s')" "u9"
check "SQL-looking" "$(found "' OR 1")" "u10"
check "non-ASCII: exact" "$(found 'Émile')" "u7"
check "non-ASCII: other case is another letter" "$(found 'ÉMILE')" "u7"
check "non-ASCII: lower" "$(found 'émi')" "u8"
check "ASCII part of non-ASCII names" "$(found 'MILE')" "u7 u8"
check "two characters with a multibyte one (scan)" "$(found 'Ém')" "u7"
check "no match" "$(found 'zzz')" ""
check "total: mixed case" "$(total ALICE)" 3
check "total: email" "$(total example)" 3
check "total: no match" "$(total qqq)" 0

# Other filters, sorts and pages with a search.
uid() { curl -s -H "Authorization: Bearer $TOKEN" "$BASE$P/users/external/$1" | jq -r .id; }
req PUT "$P/users/$(uid u2)" '{"display_name":"ALICE_x","external_user_id":"u2","is_active":false}'
check_status "deactivate u2" 200
check "search and is_active=true" "$(found alice is_active=true)" "u1 u11"
check "search and is_active=false" "$(found alice is_active=false)" "u2"
check "total: search and is_active" "$(total alice is_active=true)" 2
req GET "$P/users?search=ALI&sort_by=display_name&sort_dir=desc&page_size=2&page_num=2"
check_json "page 2 of a search, by name desc" '[.total, (.data|map(.external_user_id)|join(" "))]|tojson' '[3,"u1"]'

# Writes move a user in and out of the index.
U1=$(uid u1)
req PUT "$P/users/$U1" '{"display_name":"Alicia Jones","external_user_id":"u1","email":"aj@Elsewhere.net","is_active":true}'
check_status "rename u1" 200
check "old name gone" "$(found smith)" ""
check "old email gone" "$(found 'alice@example')" ""
check "new name found" "$(found 'IA JON')" "u1"
check "new email found" "$(found 'ELSEWHERE')" "u1"
req PUT "$P/users/$U1" '{"display_name":"Alicia Jones","external_user_id":"u1","email":null,"is_active":true}'
check_status "clear u1's email" 200
check "cleared email gone" "$(found 'elsewhere')" ""
check "name kept" "$(found 'alicia')" "u1"
add "Smith Again" "smith@new.example"      # u12
check "a new user is found at once" "$(found 'SMITH')" "u12"

# Another project's users stay out.
OTHER=$("$EDGEAUTH" -c "$CONF" project create --name other)
OTOKEN=$(client_token "$(jq -r .client_id <<<"$OTHER")" "$(jq -r .client_secret <<<"$OTHER")")
AUTH="Bearer $OTOKEN" req POST "/api/v1/projects/$(jq -r .project_id <<<"$OTHER")/users" \
	'{"display_name":"Smith Elsewhere","external_user_id":"o1"}'
check_status "a Smith in the other project" 201
check "other projects' users are not found" "$(found 'smith')" "u12"

# Every sort of an indexed search orders its page as the scan orders the
# whole list: text keys ignore ASCII case, ties go by ID. The names differ in
# case only where it matters for NOCASE (bali, Bali, BALI_z).
add "bali" "Zeta.BALI@x.example"           # u13
add "Bali" "alpha.bali@x.example"          # u14
add "BALI_z"                               # u15
for key in display_name email external_user_id role_name is_active created_at updated_at; do
	for dir in asc desc; do
		req GET "$P/users?page_size=100&sort_by=$key&sort_dir=$dir"
		want=$(printf '%s' "$BODY" | jq -r '[.data[] | select(((.display_name // "") + " " +
			(.email // "")) | ascii_downcase | contains("bal")) | .external_user_id] | join(" ")')
		req GET "$P/users?search=BaL&page_size=100&sort_by=$key&sort_dir=$dir"
		check "search sorted by $key $dir as the list is" \
			"$(printf '%s' "$BODY" | jq -r '[.data[].external_user_id] | join(" ")')" "$want"
	done
done
req GET "$P/users?search=bal&sort_by=display_name&sort_dir=asc&page_size=2&page_num=2"
check_json "page 2 by name, case ignored" '[.total, (.data|map(.display_name)|join(" "))]|tojson' \
	'[3,"BALI_z"]'

# The total comes with the page; a page past the end still knows it.
req GET "$P/users?search=smith&page_size=1"
check_json "indexed total on page 1" .total 1
req GET "$P/users?search=smith&page_size=1&page_num=5"
check_json "page past the end is empty" '.data|length' 0
check_json "page past the end keeps the total" .total 1
req GET "$P/users?search=zzzzzz&page_size=1"
check_json "no match: total 0" .total 0

# SQLite: new users wait for their search keys (schema/012), which the
# server writes and then moves into the index while idle; a search scans the
# waiting users meanwhile. Once all are written and moved, every search
# answers as before.
if [ "$BACKEND" != postgres ]; then
	terms=(alice SMITH @example. e_X 0%S %%% '"hi"' 'k\s' BaL "Émile" zzzzzz)
	answers() {
		local t
		for t in "${terms[@]}"; do printf '%s=%s;' "$t" "$(found "$t")"; done
	}
	# The mover runs only when a 50 ms tick saw no request: one curl sends
	# /healthz back to back over one connection meanwhile, so the server is
	# never idle for a tick however slow the machine is between the test's
	# own requests. An attempt counts if its users were still pending after
	# its searches (a descheduled curl could leave a gap: more attempts).
	urls=(); for _ in $(seq 20000); do urls+=("$BASE/healthz"); done
	curl -s "${urls[@]}" > /dev/null & busy=$!
	ids="" seen=0
	for attempt in 1 2 3 4 5 6; do
		add "Pending Pat $attempt" "pat.$attempt@wait.example"
		add "pending quinn $attempt"
		ids="${ids:+$ids }u$((N - 1)) u$N"
		got="$(found "pending") / $(found "T.$attempt@WAIT") / $(total "ending q")"
		want="$ids / u$((N - 1)) / $attempt"
		if [ "$(db "SELECT count(*) FROM user_suffixes_pending WHERE user_rowid IN
			(SELECT rowid FROM users WHERE display_name LIKE 'pending%$attempt')")" = 2 ]; then
			seen=1
			break
		fi
	done
	kill "$busy" 2>/dev/null; wait "$busy" 2>/dev/null
	check "an attempt searched while its users were pending" "$seen" 1
	check "users found while they wait for their keys" "$got" "$want"
	before=$(answers)
	for _ in $(seq 200); do
		[ "$(db "SELECT (SELECT count(*) FROM user_suffixes_pending)
			+ (SELECT count(*) FROM user_suffixes_recent)")" = 0 ] && break
		sleep 0.1
	done
	check "every key written and moved while idle" \
		"$(db "SELECT (SELECT count(*) FROM user_suffixes_pending)
			+ (SELECT count(*) FROM user_suffixes_recent)")" 0
	check "the same answers from the index" "$(answers)" "$before"
fi

finish
