# /metrics (docs/operations.md §"Metrics"): its own listener, the Prometheus text format
# (promtool check metrics), and counters that move by exactly what a mixed
# workload did; the API does not serve /metrics, the metrics listener no API.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
MPORT=$(free_port)
start_server metrics.listen=127.0.0.1:$MPORT signin.max_failures=3
MBASE="http://127.0.0.1:$MPORT"

scrape() { curl -s -o "$1" -w '%{http_code}' "$MBASE/metrics"; }
# val FILE SERIES: the value of the series, written as the exposition
# writes it (name{labels}), 0 when absent
val() { awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$1"; }
# delta SERIES: after - before
delta() { echo $(( $(val "$TMP/after" "$1") - $(val "$TMP/before" "$1") )); }
req_series() { echo "edgeauth_http_requests_total{method=\"$1\",route=\"$2\",status_class=\"$3\"}"; }

check "scrape" "$(scrape "$TMP/before")" 200
check "content type" "$(curl -s -o /dev/null -w '%{content_type}' "$MBASE/metrics")" \
	"text/plain; version=0.0.4; charset=utf-8"

# --- the workload ---------------------------------------------------------
REDIRECT="http://127.0.0.1:9/cb"
req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"]}"
APP=$(jq -r .id <<<"$BODY")
req POST "$P/users" '{"display_name":"Ann","email":"ann@example.com","password":"ann password"}'
N=5
for _ in $(seq $N); do client_token "$CLIENT_ID" "$CLIENT_SECRET" > /dev/null; done
sign_in "$APP" "$REDIRECT" ann@example.com "ann password"
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check_status "code grant" 200
refresh "$APP" "$REFRESH"
check_status "refresh grant" 200
exchange "$APP" "$REDIRECT" "$CODE" "$VERIFIER"
check_err "the code again: reuse" 400 auth_code_already_used
M=3
for _ in $(seq $M); do authorize_post "$APP" "$REDIRECT" ann@example.com wrong ""; done
check_status "third failure" 401
authorize_post "$APP" "$REDIRECT" ann@example.com wrong ""
check_status "throttled" 429
AUTH=none req GET /no/such/path
AUTH=none req GET /another/unknown
check_status "unknown path" 404
AUTH=none req BREW /healthz
check_status "BREW" 501
AUTH=none req DELETE /healthz
check_status "a known path, another method" 405
AUTH=none req GET /metrics
check_err "/metrics is not on the API port" 404 not_found
AUTH=none req OPTIONS /api/v1/tokens -H "Origin: https://app.example" -H "Access-Control-Request-Method: POST"
check_status "a CORS preflight" 204

check "scrape after" "$(scrape "$TMP/after")" 200
promtool check metrics < "$TMP/after" > "$TMP/promtool.out" 2>&1
check "promtool check metrics" "$?:$(cat "$TMP/promtool.out")" "0:"

# --- exactly what it did ----------------------------------------------------
check "grants: client_credentials" "$(delta 'edgeauth_tokens_issued_total{grant_type="client_credentials"}')" $N
check "grants: authorization_code" "$(delta 'edgeauth_tokens_issued_total{grant_type="authorization_code"}')" 1
check "grants: refresh_token" "$(delta 'edgeauth_tokens_issued_total{grant_type="refresh_token"}')" 1
check "reuse detected" "$(delta 'edgeauth_token_reuse_detected_total{grant_type="authorization_code"}')" 1
check "sign-ins: success" "$(delta 'edgeauth_signins_total{outcome="success"}')" 1
check "sign-ins: failure" "$(delta 'edgeauth_signins_total{outcome="failure"}')" $M
check "sign-ins: throttled" "$(delta 'edgeauth_signins_total{outcome="throttled"}')" 1
check "requests: the grants" "$(delta "$(req_series POST /api/v1/tokens 2xx)")" $((N + 2))
check "requests: the reuse" "$(delta "$(req_series POST /api/v1/tokens 4xx)")" 1
check "requests: sign-ins answered 302" "$(delta "$(req_series POST /api/v1/authorize 3xx)")" 1
check "requests: sign-ins answered 401 and 429" "$(delta "$(req_series POST /api/v1/authorize 4xx)")" $((M + 1))
check "requests: creates" "$(delta "$(req_series POST '/api/v1/projects/:project_id/users' 2xx)")" 1
check "requests: BREW is other" "$(delta "$(req_series other unmatched 5xx)")" 1
check "requests: a preflight under the path's pattern" "$(delta "$(req_series OPTIONS /api/v1/tokens 2xx)")" 1
check "requests: 405 under the path's pattern" "$(delta "$(req_series DELETE /healthz 4xx)")" 1
check "requests: unknown paths and /metrics, unmatched" "$(delta "$(req_series GET unmatched 4xx)")" 3
TOKENS_COUNT='edgeauth_http_request_duration_seconds_count{route="/api/v1/tokens"}'
check "latency histogram counts every token request (the preflight too)" "$(delta "$TOKENS_COUNT")" $((N + 4))
check "+Inf is the count" "$(val "$TMP/after" 'edgeauth_http_request_duration_seconds_bucket{route="/api/v1/tokens",le="+Inf"}')" \
	"$(val "$TMP/after" "$TOKENS_COUNT")"
check "store commits moved" "$([ "$(delta edgeauth_store_commit_duration_seconds_count)" -ge 3 ] && echo yes)" yes
check "no commit failed" "$(delta edgeauth_store_commit_failures_total)" 0
CACHE=$(( $(delta 'edgeauth_cache_hits_total{cache="client_scope"}') + $(delta 'edgeauth_cache_misses_total{cache="client_scope"}') ))
check "the client scope cache was asked for each client_credentials grant" "$([ "$CACHE" -ge $N ] && echo yes)" yes
CACHE=$(( $(delta 'edgeauth_cache_hits_total{cache="client"}') + $(delta 'edgeauth_cache_misses_total{cache="client"}') ))
check "the client cache was asked for each grant's client" "$([ "$CACHE" -ge $N ] && echo yes)" yes
check "hash queue idle" "$(val "$TMP/after" edgeauth_password_hash_queue_depth)" 0
check "open connections" "$([ "$(val "$TMP/after" edgeauth_open_connections)" -ge 0 ] && echo yes)" yes
check "build info" "$(val "$TMP/after" "edgeauth_build_info{version=\"$("$EDGEAUTH" --version | cut -d' ' -f2)\"}")" 1
check "sessions: the password sign-in started one" "$(delta edgeauth_sessions_started_total)" 1
check "sessions: none ended" "$(delta edgeauth_sessions_ended_total)" 0
check "back-channel deliveries exported at zero" "$(grep -c '^edgeauth_backchannel_deliveries_total{outcome="[a-z]*"} 0$' "$TMP/after")" 5
check "no ID, address or email in a label" \
	"$(grep -cE -- "$PROJECT_ID|$CLIENT_ID|$APP|127\.0\.0\.1|example\.com" "$TMP/after")" 0

# --- the listeners are apart ---------------------------------------------------
check "the API's routes are not on the metrics listener" \
	"$(curl -s -o /dev/null -w '%{http_code}' "$MBASE/healthz")" 404
check "nor the token endpoint" \
	"$(curl -s -o /dev/null -w '%{http_code}' -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials "$MBASE/api/v1/tokens")" 404
check "/metrics takes GET and HEAD only" "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$MBASE/metrics")" 405
check "HEAD" "$(curl -s -o /dev/null -w '%{http_code}' -I "$MBASE/metrics")" 200
check "the metrics listener is in the log" "$(grep -c "metrics on http://127.0.0.1:$MPORT/metrics" "$TMP/server.log")" 1

# --- issue24.2: the metrics listener has the API listener's guards ----------------
# Sized for a scraper: 4 connections from one address, a deadline of
# request_timeout_s for each request whatever trickles, and a bounded read
# ahead of the requests. (The server used to hold every connection, read
# all a client pipelined, and time out only silence.)
stop_server
TIMEOUT=2
start_server metrics.listen=127.0.0.1:$MPORT "server.request_timeout_s=$TIMEOUT"
CA="$BB_DIR/connabuse.py"
export CONNABUSE_PATH=/metrics ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8
jqf() { jq -r "$2" "$1" 2>/dev/null; }
under() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a != "null" && a + 0 <= b + 0) }'; }
KEPT_MAX=4 python3 "$CA" peraddr "$MPORT" 20 > "$TMP/m_peraddr.json"
check "issue24.2: metrics connections kept from one address (of 20)" \
	"$(jqf "$TMP/m_peraddr.json" .kept)" 4
check "issue24.2: a further one from it is closed unanswered" \
	"$(jqf "$TMP/m_peraddr.json" .same_status)" null
check "issue24.2: a scrape from 127.0.0.2 meanwhile" "$(jqf "$TMP/m_peraddr.json" .other_status)" 200
check "issue24.2: a scrape from 127.0.0.1 once its connections closed" \
	"$(jqf "$TMP/m_peraddr.json" .again_status)" 200
# Three connections trickle a header byte every 0.5 s for 4 x the deadline:
# the server ends each (it used to time out only silence, never this).
python3 "$CA" slow "$MPORT" 3 $((TIMEOUT * 4)) 0.5 > "$TMP/m_slow.json"
check "issue24.2: trickling metrics connections opened" "$(jqf "$TMP/m_slow.json" .opened)" 3
check "issue24.2: each ended by the deadline before the client gave up" \
	"$(jqf "$TMP/m_slow.json" .closed)" 3
# One connection pipelines up to 64 MiB of scrapes and never reads: the
# server stops reading it (its RSS used to grow by what was sent).
python3 "$CA" flood "$MPORT" 64 $((TIMEOUT * 4)) "$SERVER_PID" > "$TMP/m_flood.json"
GROWTH=$(jqf "$TMP/m_flood.json" .rss_growth_mib)
under "$GROWTH" 16 && pass ||
	fail "issue24.2: RSS grew by $GROWTH MiB while a metrics client sent $(jqf "$TMP/m_flood.json" .sent_mib) MiB without reading, want < 16"
check "issue24.2: scrapes answered on other connections during the flood" \
	"$(jqf "$TMP/m_flood.json" '.probes > 0 and .probes == .probes_ok')" true
check "issue24.2: the flooding connection ended by the deadline" \
	"$(jqf "$TMP/m_flood.json" '.closed_after_s != null')" true
check "issue24.2: a scrape after it all" "$(scrape "$TMP/last")" 200

# without [metrics] listen nothing listens for metrics
LISTENED=$(grep -c 'metrics on' "$TMP/server.log")
stop_server
start_server
check "no metrics listener by default" "$(grep -c 'metrics on' "$TMP/server.log")" "$LISTENED"
check "nothing on the old metrics port" "$(curl -s -o /dev/null -w '%{http_code}' "$MBASE/metrics")" 000
finish
