# Races: N simultaneous requests at one point of contention; exactly one wins,
# every time, and the rest get the spec's conflict code.
. "$(dirname "$0")/lib.sh"
start_server
N=24

# fire_at BODY PATH...: one simultaneous request (METHOD, default POST) of BODY
# to each PATH; prints "STATUSxCOUNT ..." sorted, and the error codes of the
# losers in $TMP/codes
fire_at() {
	local body=$1 pids=() i=0 path; shift
	rm -f "$TMP"/fire.*
	for path in "$@"; do
		i=$((i + 1))
		curl -s -X "${METHOD:-POST}" -o "$TMP/fire.body.$i" -w '%{http_code}\n' \
			-H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
			--data "$body" "$BASE$path" > "$TMP/fire.status.$i" &
		pids+=($!)
	done
	wait "${pids[@]}"
	cat "$TMP"/fire.body.* | jq -r '.error // empty' | sort -u > "$TMP/codes"
	cat "$TMP"/fire.status.* | sort | uniq -c | awk '{print $2 "x" $1}' | paste -sd' '
}
# fire PATH BODY: N simultaneous POSTs of BODY to PATH
fire() {
	local paths=() i
	for i in $(seq 1 $N); do paths+=("$1"); done
	fire_at "$2" "${paths[@]}"
}

for round in 1 2 3; do
	check "same email, round $round" "$(fire "$P/users" "{\"display_name\":\"R\",\"email\":\"race$round@example.com\",\"password\":\"password $round\"}")" "201x1 409x$((N - 1))"
	check "losers: user_email_already_used" "$(cat "$TMP/codes")" user_email_already_used
	check "same external ID, round $round" "$(fire "$P/users" "{\"display_name\":\"R\",\"external_user_id\":\"race-$round\"}")" "201x1 409x$((N - 1))"
	check "losers: user_external_id_already_used" "$(cat "$TMP/codes")" user_external_id_already_used
	check "same role code, round $round" "$(fire "$P/roles" "{\"code\":\"race-$round\",\"name\":\"R\"}")" "201x1 409x$((N - 1))"
	check "losers: role_code_already_used" "$(cat "$TMP/codes")" role_code_already_used
	check "same resource code, round $round" "$(fire "$P/resources" "{\"code\":\"race-$round\",\"name\":\"R\"}")" "201x1 409x$((N - 1))"
	check "losers: resource_code_already_used" "$(cat "$TMP/codes")" resource_code_already_used
done
# emails differing only in case race too
check "same email in other case" "$(fire "$P/users" '{"display_name":"R","email":"RACE1@example.com","password":"password x"}')" "409x$N"

# N users updated at once to one email, or one external ID: one wins
UPDATED=()
for i in $(seq 1 $N); do
	req POST "$P/users" "{\"display_name\":\"U\",\"external_user_id\":\"upd-$i\"}"
	UPDATED+=("$P/users/$(jq -r .id <<<"$BODY")")
done
check "updates to one email" "$(METHOD=PUT fire_at \
	'{"display_name":"U","is_active":true,"email":"Race-Upd@example.com"}' "${UPDATED[@]}")" \
	"200x1 409x$((N - 1))"
check "losers: user_email_already_used" "$(cat "$TMP/codes")" user_email_already_used
check "updates to one external ID" "$(METHOD=PUT fire_at \
	'{"display_name":"U","is_active":true,"external_user_id":"race-upd"}' "${UPDATED[@]}")" \
	"200x1 409x$((N - 1))"
check "losers: user_external_id_already_used" "$(cat "$TMP/codes")" user_external_id_already_used

req GET "$P/users?search=race&page_size=100"
check_json "exactly one user per email" '[.data[].email|select(.!=null)|ascii_downcase]|length == (unique|length)' true
finish
