# SIGHUP reload (docs/operations.md §"Reload", issue 27): the config file is
# read again; a reloadable key takes effect at the next request, a key that
# needs a restart is logged and keeps its value, and a file that fails
# validation is refused whole (the running config stays).
. "$(dirname "$0")/lib.sh"
start_server tokens.access_ttl_s=900

expires_in() {
	curl -s -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials "$BASE/api/v1/tokens" |
		jq -r .expires_in
}
# hup N: SIGHUP, then wait for the Nth line saying how it ended
hup() {
	kill -HUP "$SERVER_PID"
	wait_for sh -c "[ \$(grep -Ec 'SIGHUP: (configuration reloaded|.*refused whole)' '$TMP/server.log') -ge $1 ]"
}
check "issue27.reload: before, the configured access_ttl_s" "$(expires_in)" 900

write_config "$CONF" "$PORT" tokens.access_ttl_s=1234 log.format=json
hup 1
check "issue27.reload: the log names the changed key" \
	"$(grep -c 'SIGHUP: \[tokens\] access_ttl_s changed' "$TMP/server.log")" 1
check "issue27.reload: the next token's expires_in is the new access_ttl_s" "$(expires_in)" 1234
json_line() { tail -1 "$TMP/server.log" | jq -e '.status == 200' > /dev/null 2>&1; }
curl -s -o /dev/null "$BASE/healthz"
wait_for json_line
check "issue27.reload: [log] format json from the next line" "$?" 0

write_config "$CONF" "$PORT" tokens.access_ttl_s=0 log.format=json
hup 2
check "issue27.reload: a file that fails validation is refused whole, with its reason" \
	"$(grep -c "SIGHUP: $CONF:[0-9]*: expected a whole number .*; the file is refused whole, the running configuration stays" "$TMP/server.log")" 1
check "issue27.reload: ... and the running value stays" "$(expires_in)" 1234

OTHER=$(free_port)
write_config "$CONF" "$OTHER" tokens.access_ttl_s=777 log.format=json
sed -i "s|^issuer = .*|issuer = $SCHEME://127.0.0.1:$PORT|" "$CONF"
hup 3
check "issue27.reload: a changed listen is logged as needing a restart" \
	"$(grep -c 'SIGHUP: \[server\] listen changed, which needs a restart' "$TMP/server.log")" 1
check "issue27.reload: ... and keeps its value" \
	"$(curl -s -o /dev/null -w '%{http_code}' "$BASE/healthz")" 200
check "issue27.reload: ... while the rest of the file applies" "$(expires_in)" 777
finish
