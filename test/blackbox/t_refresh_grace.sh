# The refresh grace (docs/tokens.md §"Refresh grace", [tokens] refresh_reuse_grace_s):
# within the window the client may use a rotated refresh token once more
# while its successor is unused, and gets a new pair while the unused one
# is revoked; a second repeat, a repeat after the successor was used, one
# after the window, or with grace 0 revokes the sign-in. Simultaneous uses:
# with grace 0 exactly one wins; with grace on, at most the rotation and
# one repeat win and never two pairs stay valid, also with two server
# processes on one store.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
GRACE=2
start_server tokens.refresh_reuse_grace_s=$GRACE
keepalive_client
REDIRECT="http://127.0.0.1:9/cb"
REUSED="400 refresh_token_already_used"

req POST "$P/clients" "{\"name\":\"tablet app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(jq -r .id <<<"$BODY")
req POST "$P/clients" "{\"name\":\"other app\",\"redirect_uris\":[\"$REDIRECT\"]}"
OTHER=$(jq -r .id <<<"$BODY")
req POST "$P/users" '{"display_name":"Ann","external_user_id":"ann"}'

# signed_in: a new sign-in of Ann at APP; sets T0 (its refresh token)
signed_in() {
	byou_code ann "$APP" "$REDIRECT"
	exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
	T0=$REFRESH
}
# use TOKEN WANT NAME: a refresh with TOKEN answers WANT (a status, or
# "status error"); sets ACCESS and REFRESH
use() {
	refresh "$APP" "$1"
	if [ "${2#* }" != "$2" ]; then check_err "$3" "${2%% *}" "${2#* }"; else check_status "$3" "$2"; fi
}
# works ACCESS WANT NAME: the access token on an endpoint answers WANT
works() { expect "Bearer $1" "$2" "$3" GET /api/v1/users/current; }

# --- a repeat within the window works once, and takes the successor back ---
signed_in
use "$T0" 200 "rotation"; T1=$REFRESH; A1=$ACCESS
use "$T0" 200 "a repeat within the window"; T2=$REFRESH; A2=$ACCESS
check "a new pair" "$([ "$T2" != "$T1" ] && [ -n "$T2" ] && echo new)" new
use "$T1" "400 invalid_refresh_token" "the unused successor is revoked"
works "$A1" "401 invalid_authorization_token" "its access token too"
works "$A2" 200 "the new access token works"
use "$T0" "$REUSED" "a second repeat is reuse detection"
use "$T2" "400 invalid_refresh_token" "it revokes the sign-in"
works "$A2" "401 invalid_authorization_token" "its access tokens too"

# --- a repeat after the successor was used ---
signed_in
use "$T0" 200 "rotation"; T1=$REFRESH
use "$T1" 200 "the successor is used"; T2=$REFRESH; A2=$ACCESS
use "$T0" "$REUSED" "a repeat after the successor was used"
use "$T2" "400 invalid_refresh_token" "revokes the sign-in"
works "$A2" "401 invalid_authorization_token" "and its access tokens"

# --- a repeat after the window ---
signed_in
use "$T0" 200 "rotation"; T1=$REFRESH
sleep "$GRACE.3"
use "$T0" "$REUSED" "a repeat after the window"
use "$T1" "400 invalid_refresh_token" "revokes the sign-in"

# --- a repeat by another client: not its token ---
signed_in
use "$T0" 200 "rotation"; T1=$REFRESH
refresh "$OTHER" "$T0"
check_err "another client's repeat" 400 invalid_refresh_token
use "$T1" 200 "changes nothing"

# --- a repeat of the repeat's own successor works once too ---
signed_in
use "$T0" 200 "rotation"; T1=$REFRESH
use "$T0" 200 "a repeat"; T2=$REFRESH
use "$T2" 200 "its pair is used"; T3=$REFRESH
use "$T2" 200 "and repeated within the window"; T4=$REFRESH
use "$T3" "400 invalid_refresh_token" "the unused successor of that is revoked"
use "$T4" 200 "the last pair goes on"

# --- simultaneous uses ---
# race FILE N [PORT...]: N token requests of FILE's form at once, spread
# over the ports (default: the server's); bodies in $TMP/race.I; prints
# the sorted statuses as "200xA 400xB"
race() {
	local file=$1 n=$2; shift 2
	local ports=("$@"); [ ${#ports[@]} -eq 0 ] && ports=("$PORT")
	rm -f "$TMP"/race.*
	for i in $(seq 1 "$n"); do
		local port=${ports[$(( i % ${#ports[@]} ))]}
		curl -s -o "$TMP/race.$i" -w '%{http_code}\n' --data @"$file" \
			"http://127.0.0.1:$port/api/v1/tokens" > "$TMP/race.status.$i" &
	done
	wait
	cat "$TMP"/race.status.* | sort | uniq -c | awk '{print $2 "x" $1}' | paste -sd' '
}
# valid_pairs: of the refresh tokens the race answered, how many still work
valid_pairs() {
	local n=0 r
	for f in "$TMP"/race.[0-9]*; do
		r=$(jq -r '.refresh_token // empty' "$f")
		[ -z "$r" ] && continue
		refresh "$APP" "$r"
		[ "$STATUS" = 200 ] && n=$((n + 1))
	done
	echo "$n"
}
# the_200s RESULT: how many answered 200
the_200s() { sed -n 's/.*200x\([0-9]*\).*/\1/p' <<<"$1" | grep . || echo 0; }

signed_in
printf 'grant_type=refresh_token&client_id=%s&refresh_token=%s' "$APP" "$T0" > "$TMP/form"
R=$(race "$TMP/form" 20)
# handled one after another: the rotation, the one repeat, then a second
# repeat, which revokes the sign-in (docs/tokens.md §"Refresh grace")
check "20 at once with grace: the rotation and one repeat answer 200" "$R" "200x2 400x18"
check "20 at once with grace: no two pairs stay valid" "$(valid_pairs)" 0

# two server processes on one store: whatever the interleaving, at most
# the rotation and one repeat win, and at most one pair stays valid
sed "s/^listen = 127.0.0.1:$PORT$/listen = 127.0.0.1:${PORT2:=$(free_port)}/" "$CONF" > "$TMP/second.conf"
"$EDGEAUTH" -c "$TMP/second.conf" serve >> "$TMP/stdout2" 2>> "$TMP/server2.log" &
SECOND=$!
for _ in $(seq 1 200); do curl -s -o /dev/null "http://127.0.0.1:$PORT2/healthz" && break; sleep 0.05; done
for round in 1 2 3; do
	signed_in
	printf 'grant_type=refresh_token&client_id=%s&refresh_token=%s' "$APP" "$T0" > "$TMP/form"
	R=$(race "$TMP/form" 20 "$PORT" "$PORT2")
	N=$(the_200s "$R")
	check "two processes, round $round: 1 or 2 answer 200 ($R)" "$([ "$N" -ge 1 ] && [ "$N" -le 2 ] && echo ok)" ok
	check "two processes, round $round: at most one pair valid" "$([ "$(valid_pairs)" -le 1 ] && echo ok)" ok
done
kill -TERM "$SECOND"
wait "$SECOND"
check "the second process stopped cleanly" "$?" 0

# --- grace 0: exactly one of 20 simultaneous uses wins, any repeat revokes ---
stop_server
rm -f "$TMP"/edgeauth.db*
PG_DB=   # on PostgreSQL, a new database
start_server
req POST "$P/clients" "{\"name\":\"tablet app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(jq -r .id <<<"$BODY")
req POST "$P/users" '{"display_name":"Ann","external_user_id":"ann"}'
signed_in
printf 'grant_type=refresh_token&client_id=%s&refresh_token=%s' "$APP" "$T0" > "$TMP/form"
check "20 at once without grace: exactly one wins" "$(race "$TMP/form" 20)" "200x1 400x19"
signed_in
use "$T0" 200 "grace 0: rotation"; T1=$REFRESH
use "$T0" "$REUSED" "grace 0: a repeat at once is reuse detection"
use "$T1" "400 invalid_refresh_token" "grace 0: it revokes the sign-in"

finish
