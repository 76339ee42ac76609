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

# A role deleted while users are created with it: each create is created,
# a conflict, or role_not_found, never a failure of the store
for round in 1 2 3; do
	req POST "$P/roles" "{\"code\":\"gone-$round\",\"name\":\"G\"}"
	GONE=$(jq -r .id <<<"$BODY")
	curl -s -o /dev/null -X DELETE -H "Authorization: Bearer $TOKEN" "$BASE$P/roles/$GONE" &
	deleting=$!
	got=$(fire "$P/users" "{\"display_name\":\"G\",\"external_user_id\":\"gone-$round\",\"role_id\":\"$GONE\"}")
	wait "$deleting"
	check "creates with a role deleted meanwhile, round $round" \
		"$(tr ' ' '\n' <<<"$got" | grep -cvE '^(201x1|409x[0-9]+|404x[0-9]+)$')" 0
	check "their errors, round $round" "$(grep -cvE '^(user_external_id_already_used|role_not_found)$' "$TMP/codes")" 0
done
check "no user holds a deleted role" "$(db "select count(*) from users u where role_id is not null
	and not exists (select 1 from roles r where r.id = u.role_id)")" 0

# On PostgreSQL, deterministically: a row whose delete has not committed yet
# when a write gives it. The write waits for the delete and answers the
# area's not found (not a foreign key's failure, which would abort the batch
# of writes it shares): a role given to a user, a permission to a client.
if [ "$BACKEND" = postgres ]; then
	# held_write TABLE ID WANT_STATUS WANT_ERROR NAME METHOD PATH BODY: the
	# write while a transaction holds the delete of ID from TABLE for 2 s
	held_write() {
		db "BEGIN; DELETE FROM $1 WHERE id = '$2'; SELECT pg_sleep(2); COMMIT" > /dev/null &
		local deleting=$!
		sleep 1
		req "$6" "$7" "$8"
		wait "$deleting"
		check_err "$5" "$3" "$4"
	}
	for write in create update; do
		req POST "$P/roles" "{\"code\":\"held-$write\",\"name\":\"H\"}"
		HELD=$(jq -r .id <<<"$BODY")
		if [ $write = create ]; then
			held_write roles "$HELD" 404 role_not_found "create with a role being deleted" \
				POST "$P/users" "{\"display_name\":\"H\",\"external_user_id\":\"held\",\"role_id\":\"$HELD\"}"
		else
			held_write roles "$HELD" 404 role_not_found "update with a role being deleted" \
				PUT "${UPDATED[0]}" "{\"display_name\":\"H\",\"is_active\":true,\"external_user_id\":\"upd-1\",\"role_id\":\"$HELD\"}"
		fi
		req POST "$P/resources" "{\"name\":\"Held\",\"code\":\"held-$write\",\"permissions\":[{\"name\":\"R\",\"code\":\"read\"}]}"
		HELD=$(jq -r '.permissions[0].id' <<<"$BODY")
		if [ $write = create ]; then
			held_write permissions "$HELD" 404 some_permissions_not_found \
				"client create with a permission being deleted" \
				POST "$P/clients" "{\"name\":\"H\",\"permission_ids\":[\"$HELD\"]}"
		else
			held_write permissions "$HELD" 404 some_permissions_not_found \
				"client update with a permission being deleted" \
				PUT "$P/clients/$CLIENT_ID" "{\"name\":\"admin\",\"is_active\":true,\"permission_ids\":[\"$HELD\"]}"
		fi
	done
fi

req GET "$P/users?search=race&page_size=100"
check_json "exactly one user per email" '[.data[].email|select(.!=null)|ascii_downcase]|length == (unique|length)' true
finish
