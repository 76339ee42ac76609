# [log] format = json (docs/operations.md §"Logs"): every line of the log is one JSON
# object, requests with time, method, path (no query), status and us, and the
# start-up, stop and error lines with level and msg; paths from the network
# with quotes, control bytes or bytes that are not UTF-8 cannot break a line.
. "$(dirname "$0")/lib.sh"
start_server log.format=json server.max_body_bytes=1024
LOG=$TMP/server.log

raw() { # raw BYTES (printf format): sends them as they are, prints the status
	printf "$1" > "$TMP/raw"
	python3 "$BB_DIR/rawhttp.py" "$PORT" "$TMP/raw" "$TMP/rawhdrs" "$TMP/rawbody" 3
}

AUTH=none req GET /healthz
check_status "health" 200
AUTH=none req GET "/api/v1/authorize?client_id=nobody&code_challenge=SECRETQUERY"
check "a quote in the path" "$(raw 'GET /a"b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')" 404
check "a control byte in the path" "$(raw 'GET /ctl\x01x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')" 400
check "a byte that is not UTF-8" "$(raw 'GET /caf\xe9 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')" 404
check "a path that tries to end the line" \
	"$(raw 'GET /x"}%%0a{"status":200 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')" 404
check "libevent answers a body too large" "$(raw 'POST /api/v1/tokens HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n')" 413
AUTH=none req POST /api/v1/tokens -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials
check_status "a grant" 200
SECRET_TOKEN=$(jq -r .access_token <<<"$BODY")
# a back-channel logout's lines: a session of a client whose receiver is not
# there (port 9, refused), ended by deactivating its user
req POST "$P/clients" '{"name":"bc","backchannel_logout_uri":"http://127.0.0.1:9/bc","redirect_uris":["http://127.0.0.1:9/cb"]}'
BC=$(jq -r .id <<<"$BODY")
req POST "$P/users" '{"display_name":"ann","email":"ann@example.com","password":"correct horse"}'
ANN=$(jq -r .id <<<"$BODY")
NOW=$(($(date +%s%N) / 1000000))
db "INSERT INTO sessions (id, secret_hash, project_id,
	user_id, auth_time, created_at, expires_at) VALUES ('s1', 'h1', '$PROJECT_ID', '$ANN', $NOW, $NOW,
	$NOW + 3600000); INSERT INTO session_clients VALUES ('s1', '$BC')"
req PUT "$P/users/$ANN" '{"display_name":"ann","email":"ann@example.com","is_active":false}'
check_status "a deactivation that ends a session" 200
for i in $(seq 1 100); do grep -q 'back-channel logout' "$LOG" && break; sleep 0.05; done
stop_server

# every line is one JSON object
BAD=0
while IFS= read -r line; do
	jq -e 'type == "object"' <<<"$line" > /dev/null 2>&1 || { BAD=$((BAD + 1)); echo "not JSON: $line" >&2; }
done < "$LOG"
check "every line is a JSON object" "$BAD" 0
check "lines" "$([ "$(wc -l < "$LOG")" -ge 10 ] && echo many)" many

line_of() { jq -c "select($1)" "$LOG" | head -1; }
L=$(line_of '.path == "/healthz"')
check "request: method" "$(jq -r .method <<<"$L")" GET
check "request: status" "$(jq -r .status <<<"$L")" 200
check "request: microseconds" "$(jq -r '.us | type' <<<"$L")" number
check "request: time" "$(jq -r .time <<<"$L" | grep -cE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]{12}Z$')" 1
check "request: the five fields" "$(jq -r 'keys | join(",")' <<<"$L")" "method,path,status,time,us"
check "the query string is not logged" "$(grep -c SECRETQUERY "$LOG")" 0
check "the path of the query request" "$(line_of '.path == "/api/v1/authorize"' | jq -r .status)" 400
check "a quote comes back as sent" "$(line_of '.path == "/a\"b"' | jq -r .status)" 404
check "a control byte is escaped" "$(grep -c '/ctl\\u0001x' "$LOG")" 1
check "and comes back as sent" "$(line_of '.path == "/ctl\u0001x"' | jq -r .status)" 400
check "a byte that is not UTF-8 is U+FFFD" "$(line_of '.path == "/caf\ufffd"' | jq -r .status)" 404
check "a forged line stays in its path" "$(line_of '.path == "/x\"}%0a{\"status\":200"' | jq -r .status)" 404
L=$(line_of '.status == 413')
check "libevent's answer: method and path unknown" "$(jq -c '[.method, .path, .us]' <<<"$L")" "[null,null,null]"
check "no secret in the log" "$(grep -cF -e "$CLIENT_SECRET" -e "$SECRET_TOKEN" "$LOG")" 0
L=$(line_of '.msg? // "" | startswith("listening on")')
check "start-up line: level" "$(jq -r .level <<<"$L")" info
check "start-up line: the fields" "$(jq -r 'keys | join(",")' <<<"$L")" "level,msg,time"
check "the stop is logged" "$(jq -r 'select(.msg == "stopped") | .level' "$LOG")" info
check "the signal is logged" "$(jq -r 'select(.msg? // "" | startswith("signal 15")) | .level' "$LOG")" info
# (one retry's line, or more when the stop came late: each at info)
check "a back-channel delivery's line" \
	"$(jq -r 'select(.msg? // "" | test("^back-channel logout .* to client .* tried again")) | .level' "$LOG" | sort -u)" info
check "the undelivered at the stop" \
	"$(jq -r 'select(.msg? // "" | test("^back-channel: 1 logout.* not delivered at the stop")) | .level' "$LOG")" info

# an error line: a TLS certificate the server cannot use (on either store
# backend), in JSON too
BADP=$(free_port)
echo "not a certificate" > "$TMP/bad.pem"
write_config "$TMP/bad.conf" "$BADP" server.tls_cert="$TMP/bad.pem" server.tls_key="$TMP/bad.pem" \
	server.issuer="https://127.0.0.1:$BADP" store.path="$TMP/bad.db" log.format=json
timeout 10 "$EDGEAUTH" -c "$TMP/bad.conf" serve > /dev/null 2> "$TMP/bad.log"
check "a refused start exits 1" "$?" 1
check "its error line is JSON" "$(jq -r .level "$TMP/bad.log")" error
check "and says why" "$(jq -r .msg "$TMP/bad.log" | grep -c 'holds no usable PEM certificate')" 1

# text stays the default, as before
rm -f "$TMP"/edgeauth.db*
: > "$LOG"
start_server
AUTH=none req GET /healthz
stop_server
check "text: every line as before" "$(grep -cvE '^([A-Z]+ /[^ ]* [0-9]{3} [0-9]+us|edgeauth: .*)$' "$LOG")" 0
check "text: the request line" "$(grep -cE '^GET /healthz 200 [0-9]+us$' "$LOG")" 2
check "text: the start-up line" "$(grep -c '^edgeauth: listening on ' "$LOG")" 1
finish
