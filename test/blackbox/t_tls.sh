# TLS on the listener (docs/operations.md §"TLS"), with a test CA made here (lib.sh:
# a root that clients trust, an intermediate in the server's chain file):
# the start-up checks, only TLS on the port, docs/getting-started.md's curl walk-through
# with --cacert, protocols and ciphers as openssl s_client sees them,
# session resumption without early data, HSTS, a handshake that stalls,
# SIGHUP with a new and a broken pair, and `edgeauth cert self-signed`.
# The connection limits over TLS are t_tls_connections.sh.
# issue26.4: stalled handshakes are closed by the server, not before
# request_timeout_s, and waited for up to a minute (by state: lib.sh's
# not_before); the file runs beside others.
export EDGEAUTH_TLS=1
. "$(dirname "$0")/lib.sh"
D=$TMP/ca
CA=$D/ca.pem

# fingerprint FILE: the SHA-256 fingerprint of a PEM certificate's first one
fingerprint() { openssl x509 -noout -fingerprint -sha256 -in "$1" | sed 's/.*=//'; }
# served_fingerprint [s_client args...]: that of the certificate a new
# connection to the server gets
served_fingerprint() {
	openssl s_client -connect "127.0.0.1:$PORT" "$@" < /dev/null 2> /dev/null |
		openssl x509 -noout -fingerprint -sha256 2> /dev/null | sed 's/.*=//'
}
# s_client ARGS...: openssl s_client's report of one handshake, into SOUT
s_client() { SOUT=$(timeout 10 openssl s_client -connect "127.0.0.1:$PORT" -CAfile "$CA" "$@" < /dev/null 2>&1); }
# refused_start NAME EXIT REGEX [config settings...]: serve with these
# settings stops at once with EXIT and a message matching REGEX
refused_start() {
	local name=$1 want=$2 regex=$3 rc; shift 3
	write_config "$TMP/bad.conf" "$(free_port)" "$@" "store.path=$TMP/bad.db"
	timeout 10 "$EDGEAUTH" -c "$TMP/bad.conf" serve > /dev/null 2> "$TMP/bad.err"
	rc=$?
	check "start refused: $name: exit status" "$rc" "$want"
	if grep -Eq "$regex" "$TMP/bad.err"; then pass
	else fail "start refused: $name: message '$(cat "$TMP/bad.err")' does not match '$regex'"; fi
}

# --- start-up checks ------------------------------------------------------------
GOOD=("server.tls_cert=$D/server.pem" "server.tls_key=$D/server.key")
refused_start "tls_cert without tls_key" 2 "tls_cert and tls_key go together" "server.tls_cert=$D/server.pem"
refused_start "tls_key without tls_cert" 2 "tls_cert and tls_key go together" "server.tls_key=$D/server.key"
refused_start "http issuer" 2 "the issuer must be an https URL, not http://127.0.0.1" \
	"${GOOD[@]}" "server.issuer=http://127.0.0.1:8443"
cp "$D/server.key" "$TMP/open.key"; chmod 644 "$TMP/open.key"
refused_start "key readable by others" 1 \
	"TLS key file $TMP/open.key is accessible to others \(mode 644\); run chmod 600 on it" \
	"server.tls_cert=$D/server.pem" "server.tls_key=$TMP/open.key"
issue_cert other
refused_start "key of another certificate" 1 \
	"TLS key file $D/other.key does not match the certificate in $D/server.pem" \
	"server.tls_cert=$D/server.pem" "server.tls_key=$D/other.key"
refused_start "no certificate file" 1 "cannot open TLS certificate file $TMP/none.pem: No such file" \
	"server.tls_cert=$TMP/none.pem" "server.tls_key=$D/server.key"
printf 'not a certificate\n' > "$TMP/junk.pem"
refused_start "not a certificate" 1 "TLS certificate file $TMP/junk.pem holds no usable PEM certificate" \
	"server.tls_cert=$TMP/junk.pem" "server.tls_key=$D/server.key"
refused_start "no key file" 1 "TLS key file $TMP/none.key does not exist" \
	"server.tls_cert=$D/server.pem" "server.tls_key=$TMP/none.key"
openssl pkey -in "$D/server.key" -aes256 -passout pass:secret -out "$TMP/enc.key" 2> /dev/null
chmod 600 "$TMP/enc.key"
refused_start "encrypted key" 1 "TLS key file $TMP/enc.key is not an unencrypted PEM private key" \
	"server.tls_cert=$D/server.pem" "server.tls_key=$TMP/enc.key"

# --- only TLS, and the walk-through with curl --cacert --------------------------
start_server
check "the server started with the test CA's certificate" "$(curl -s --cacert "$CA" -o /dev/null -w '%{http_code}' "$BASE/healthz")" 200
grep -Eq "TLS certificate $D/server.pem, SHA-256 $(fingerprint "$D/server.pem"), valid until 20" "$TMP/server.log" &&
	pass || fail "no log line naming the certificate and its fingerprint: $(grep TLS "$TMP/server.log")"
check "curl without the CA refuses the certificate" "$(CURL_CA_BUNDLE= curl -s --capath /nonexistent -o /dev/null -w '%{http_code}' "$BASE/healthz")" 000
curl -s -o /dev/null -m 3 "http://127.0.0.1:$PORT/healthz"
RC=$?
[ "$RC" -eq 52 ] || [ "$RC" -eq 56 ] && pass || fail "plain HTTP on the TLS port: curl exit $RC, want 52 or 56 (no HTTP answer)"
GOT=$(python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3)
s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
data = b""
try:
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
except OSError:
    pass
print("http" if b"HTTP/" in data else "none")' "$PORT")
check "a plain request gets no HTTP answer" "$GOT" none
check "discovery names the https issuer" \
	"$(curl -s --cacert "$CA" "$BASE/.well-known/oauth-authorization-server" | jq -r .token_endpoint)" \
	"$BASE/api/v1/tokens"
TOK=$(curl -s --cacert "$CA" -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials "$BASE/api/v1/tokens" | jq -r .access_token)
check "client_credentials with curl --cacert" "$(curl -s --cacert "$CA" -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOK" "$BASE$P/clients")" 200
"$ROOT/scripts/smoke.sh" "$PROJECT_ID" "$CLIENT_ID" "$CLIENT_SECRET" "$BASE" > "$TMP/smoke.out" 2>&1
check "scripts/smoke.sh (docs/getting-started.md's walk-through) over TLS" "$?" 0
check "smoke ran every step" "$(grep -c ' ok' "$TMP/smoke.out")" 10

# --- protocols and ciphers ------------------------------------------------------
s_client -tls1_3
printf '%s' "$SOUT" | grep -q "New, TLSv1.3, Cipher is TLS_" && pass || fail "TLS 1.3: $(printf '%s' "$SOUT" | grep -E 'New|error' | head -2)"
printf '%s' "$SOUT" | grep -q "Verify return code: 0 (ok)" && pass || fail "TLS 1.3: the chain does not verify against the root: $(printf '%s' "$SOUT" | grep Verify)"
printf '%s' "$SOUT" | grep -q "Compression: NONE" && pass || fail "TLS 1.3: compression is not NONE"
s_client -tls1_2
printf '%s' "$SOUT" | grep -q "New, TLSv1.2, Cipher is ECDHE-ECDSA-AES128-GCM-SHA256" && pass ||
	fail "TLS 1.2: want ECDHE-ECDSA-AES128-GCM-SHA256 (the server's first choice): $(printf '%s' "$SOUT" | grep -E 'New|error' | head -2)"
s_client -tls1_2 -cipher ECDHE-ECDSA-CHACHA20-POLY1305
printf '%s' "$SOUT" | grep -q "Cipher is ECDHE-ECDSA-CHACHA20-POLY1305" && pass || fail "TLS 1.2 with ChaCha20-Poly1305 refused"
for C in ECDHE-ECDSA-AES128-SHA256 ECDHE-ECDSA-AES256-SHA AES128-GCM-SHA256; do
	s_client -tls1_2 -cipher "$C"
	printf '%s' "$SOUT" | grep -q "Cipher is $C" && fail "TLS 1.2 accepted $C (not ECDHE with AES-GCM or ChaCha20-Poly1305)" || pass
done
for V in tls1_1 tls1; do
	s_client "-$V" -cipher 'DEFAULT@SECLEVEL=0'
	printf '%s' "$SOUT" | grep -Eq "alert protocol version|unsupported protocol|no protocols available" && pass ||
		fail "$V not refused: $(printf '%s' "$SOUT" | grep -E 'New|Protocol|error' | head -3)"
done
# resumption by ticket, without early data (a TLS 1.3 ticket comes after
# the handshake: the client's input stays open until the ticket is saved,
# a state rather than half a second, issue26.4)
wait_for test -s "$TMP/sess" | timeout 60 openssl s_client -connect "127.0.0.1:$PORT" -CAfile "$CA" \
	-tls1_3 -sess_out "$TMP/sess" > /dev/null 2>&1
printf 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n' > "$TMP/early"
SOUT=$(timeout 10 openssl s_client -connect "127.0.0.1:$PORT" -CAfile "$CA" -tls1_3 -sess_in "$TMP/sess" -early_data "$TMP/early" < /dev/null 2>&1)
printf '%s' "$SOUT" | grep -q "Reused, TLSv1.3" && pass || fail "no TLS 1.3 resumption by ticket: $(printf '%s' "$SOUT" | grep -E 'New|Reused' | head -2)"
printf '%s' "$SOUT" | grep -Eq "Early data was not sent|Early data was rejected" && pass ||
	fail "early data not refused: $(printf '%s' "$SOUT" | grep -i 'early data')"
s_client -tls1_2 -sess_out "$TMP/sess12"
s_client -tls1_2 -sess_in "$TMP/sess12"
printf '%s' "$SOUT" | grep -q "Reused, TLSv1.2" && pass || fail "no TLS 1.2 resumption by ticket"
# s_client_fed OUT ARGS...: openssl s_client ARGS, its output in OUT (and
# SOUT), its input what `feed OUT` writes: each line once OUT shows the
# state it waits for (issue26.4: not after a sleep)
s_client_fed() {
	local out=$1; shift
	: > "$out"
	feed "$out" | timeout 60 openssl s_client -connect "127.0.0.1:$PORT" -CAfile "$CA" "$@" > "$out" 2>&1
	SOUT=$(cat "$out")
}
# renegotiation: the client asks (R) once the handshake is done, the server
# refuses it
feed() {
	wait_for grep -q 'Verify return code' "$1"; printf 'R\n'
	wait_for grep -q 'no renegotiation' "$1"
}
s_client_fed "$TMP/reneg.out" -tls1_2
printf '%s' "$SOUT" | grep -q "no renegotiation" && pass || fail "renegotiation not refused: $(printf '%s' "$SOUT" | tail -3)"

# an answer goes as one TLS record (one write), not one for its header and
# one for its body: count the records that arrive up to the body's end
# (the request waits for the session tickets, records of their own)
feed() {
	wait_for sh -c "[ \$(grep -c '^<<< .*NewSessionTicket' '$1') -ge 2 ]"
	printf 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'
	wait_for grep -q '{"status":"ok"}' "$1"
}
s_client_fed "$TMP/records.out" -tls1_3 -msg -ign_eof
check "an answer is one TLS record" "$(printf '%s\n' "$SOUT" | awk '
	/^>>> .*InnerContent/ { sent = 1; n = 0 }
	sent && /^<<< .*RecordHeader/ { n++ }
	sent && /\{"status":"ok"\}/ { print n; exit }')" 1

# --- HSTS -----------------------------------------------------------------------
req GET /healthz
printf '%s' "$HDRS" | grep -qi '^strict-transport-security' && fail "HSTS sent although hsts_max_age_s is 0" || pass
stop_server
start_server server.hsts_max_age_s=31536000 server.max_body_bytes=1024
req GET /healthz
check_header "HSTS on a 200" '^strict-transport-security: max-age=31536000$'
req GET /nope
check_header "HSTS on a 404" '^strict-transport-security: max-age=31536000$'
req POST /api/v1/tokens "$(head -c 2000 /dev/zero | tr '\0' a)"
check_err "libevent's own 413, as JSON" 413 payload_too_large
check_header "HSTS on libevent's own answer" '^strict-transport-security: max-age=31536000$'
printf '%s' "$HDRS" | grep -qi 'includeSubDomains' && fail "HSTS with includeSubDomains" || pass

# --- a handshake that stalls ------------------------------------------------------
stop_server
TIMEOUT=2
start_server "server.request_timeout_s=$TIMEOUT"
# clients that connect and never send a ClientHello, and one that sends
# half of one, are cut at request_timeout_s like a slow request
# (held until the server closes them, a minute at most)
CONNABUSE_CA= python3 "$BB_DIR/connabuse.py" idle "$PORT" 20 60 > "$TMP/stall.json"
check "silent connections closed by the server" "$(jq -r .closed "$TMP/stall.json")" 20
not_before "silent connections" "$(jq -r .first_close_s "$TMP/stall.json")" "$TIMEOUT"
GOT=$(python3 -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=60)
s.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")   # a ClientHello cut short
start = time.monotonic()
try:
    while s.recv(4096):
        pass
except socket.timeout:
    print("null")   # never closed
    sys.exit()
except OSError:
    pass
print(round(time.monotonic() - start, 1))' "$PORT")
not_before "half a ClientHello" "$GOT" "$TIMEOUT"
check "healthz after the stalled handshakes" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/healthz")" 200

# --- SIGHUP: a new pair, then a broken one ---------------------------------------
# A keep-alive connection opened before the reload keeps its certificate
# and keeps working; a new connection gets the new certificate.
OLD_FP=$(fingerprint "$D/server.pem")
rm -f "$TMP/go" "$TMP/held"
python3 - "$PORT" "$CA" "$TMP/go" "$TMP/held" > "$TMP/keepalive.json" <<'PY' &
import hashlib, json, os, socket, ssl, sys, time
port, ca, go, held = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
s = ssl.create_default_context(cafile=ca).wrap_socket(
    socket.create_connection(("127.0.0.1", port), timeout=10), server_hostname="127.0.0.1")
fp = hashlib.sha256(s.getpeercert(binary_form=True)).hexdigest().upper()
def healthz():
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    data = b""
    while b"\r\n\r\n" not in data or not data.endswith(b"}"):
        chunk = s.recv(4096)
        if not chunk:
            return None
        data += chunk
    return int(data[9:12])
first = healthz()
open(held, "w").close()   # connected, and answered: the reload may come
deadline = time.monotonic() + 60
while not os.path.exists(go) and time.monotonic() < deadline:
    healthz()         # busy, lest request_timeout_s end it while a loaded machine reloads
    time.sleep(0.05)
second = healthz()
print(json.dumps({"first": first, "second": second,
                  "fingerprint": ":".join(fp[i:i + 2] for i in range(0, len(fp), 2))}))
PY
HOLDER=$!
# issue26.4: the reload waits until the connection is made (a busy machine
# may take more than the half second this waited)
held() { [ -e "$TMP/held" ] || ! kill -0 "$HOLDER" 2> /dev/null; }
wait_for held
issue_cert renewed
cp "$D/renewed.pem" "$D/server.pem"; cp "$D/renewed.key" "$D/server.key"
NEW_FP=$(fingerprint "$D/renewed.pem")
kill -HUP "$SERVER_PID"
reloaded() { grep -q "SIGHUP: TLS certificate" "$TMP/server.log"; }
wait_for reloaded
grep -q "SIGHUP: TLS certificate $D/server.pem, SHA-256 $NEW_FP" "$TMP/server.log" && pass ||
	fail "no log line of the reload: $(grep SIGHUP "$TMP/server.log")"
check "after SIGHUP a new connection gets the new certificate" "$(served_fingerprint)" "$NEW_FP"
check "the new certificate verifies" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/healthz")" 200
touch "$TMP/go"
wait "$HOLDER"
check "the keep-alive connection opened before SIGHUP kept the old certificate" \
	"$(jq -r .fingerprint "$TMP/keepalive.json")" "$OLD_FP"
check "the keep-alive connection works before and after SIGHUP" \
	"$(jq -r '"\(.first) \(.second)"' "$TMP/keepalive.json")" "200 200"
# a key that is not the certificate's: logged, the previous pair served on
cp "$D/other.key" "$D/server.key"
kill -HUP "$SERVER_PID"
for _ in $(seq 1 50); do grep -q "does not match" "$TMP/server.log" && break; sleep 0.1; done
grep -q "SIGHUP: TLS key file $D/server.key does not match the certificate in $D/server.pem; the previous certificate stays in use" \
	"$TMP/server.log" && pass || fail "a broken pair is not logged: $(grep SIGHUP "$TMP/server.log" | tail -1)"
check "after a broken pair the previous certificate is still served" "$(served_fingerprint)" "$NEW_FP"
printf 'junk\n' > "$D/server.pem"
kill -HUP "$SERVER_PID"
for _ in $(seq 1 50); do grep -q "holds no usable" "$TMP/server.log" && break; sleep 0.1; done
grep -q "SIGHUP: TLS certificate file $D/server.pem holds no usable PEM certificate" "$TMP/server.log" &&
	pass || fail "a broken certificate file is not logged: $(grep SIGHUP "$TMP/server.log" | tail -1)"
check "healthz after the broken reloads" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/healthz")" 200
stop_server

# --- edgeauth cert self-signed ----------------------------------------------------
SS=$TMP/ss
mkdir -p "$SS"
"$EDGEAUTH" -c "$CONF" cert self-signed --host 127.0.0.1 --cert "$SS/cert.pem" --key "$SS/key.pem" > "$TMP/ss.out" 2>&1
check "cert self-signed: exit status" "$?" 0
check "cert self-signed prints the SHA-256 fingerprint" \
	"$(sed -n 's/^SHA-256 fingerprint //p' "$TMP/ss.out")" "$(fingerprint "$SS/cert.pem")"
check "the key file is mode 0600" "$(stat -c %a "$SS/key.pem")" 600
openssl x509 -in "$SS/cert.pem" -noout -text > "$TMP/ss.txt"
grep -q "IP Address:127.0.0.1" "$TMP/ss.txt" && pass || fail "no IP SAN 127.0.0.1"
grep -A1 "Extended Key Usage" "$TMP/ss.txt" | grep -q "TLS Web Server Authentication" && pass || fail "no EKU serverAuth"
grep -A1 "Basic Constraints: critical" "$TMP/ss.txt" | grep -q "CA:FALSE" && pass || fail "not CA:FALSE"
grep -q "Public-Key: (256 bit)" "$TMP/ss.txt" && grep -q "NIST CURVE: P-256" "$TMP/ss.txt" && pass || fail "not a P-256 key"
DAYS=$(python3 -c '
import datetime, sys
f = "%b %d %H:%M:%S %Y %Z"
a, b = (datetime.datetime.strptime(x, f) for x in sys.argv[1:3])
print((b - a).days)' "$(openssl x509 -in "$SS/cert.pem" -noout -startdate | sed 's/.*=//')" \
	"$(openssl x509 -in "$SS/cert.pem" -noout -enddate | sed 's/.*=//')")
check "valid 825 days" "$DAYS" 825
check "the key is the certificate's" "$(openssl pkey -in "$SS/key.pem" -pubout | sha256sum)" \
	"$(openssl x509 -in "$SS/cert.pem" -noout -pubkey | sha256sum)"
BEFORE=$(sha256sum "$SS/cert.pem" "$SS/key.pem")
"$EDGEAUTH" -c "$CONF" cert self-signed --host 127.0.0.1 --cert "$SS/cert.pem" --key "$SS/other-key.pem" > /dev/null 2> "$TMP/ss.err"
check "an existing certificate is not overwritten: exit status" "$?" 1
grep -q "$SS/cert.pem exists already; not overwritten" "$TMP/ss.err" && pass || fail "overwrite message: $(cat "$TMP/ss.err")"
"$EDGEAUTH" -c "$CONF" cert self-signed --host 127.0.0.1 --cert "$SS/other.pem" --key "$SS/key.pem" > /dev/null 2>&1
check "an existing key is not overwritten: exit status" "$?" 1
check "nothing was written over" "$(sha256sum "$SS/cert.pem" "$SS/key.pem")" "$BEFORE"
check "nor beside" "$(ls "$SS" | tr '\n' ' ')" "cert.pem key.pem "
"$EDGEAUTH" -c "$CONF" cert self-signed --host localhost --cert "$SS/dns.pem" --key "$SS/dns.key" > /dev/null 2>&1
openssl x509 -in "$SS/dns.pem" -noout -ext subjectAltName 2> /dev/null | grep -q "DNS:localhost" && pass || fail "no DNS SAN for localhost"
"$EDGEAUTH" -c "$CONF" cert self-signed --host 'bad name!' --cert "$SS/bad.pem" --key "$SS/bad.key" > /dev/null 2> "$TMP/ss.err"
check "a host that is neither a DNS name nor an IP address: exit status" "$?" 1
grep -q "bad name! is neither an IP address nor a DNS name" "$TMP/ss.err" && pass || fail "bad host message: $(cat "$TMP/ss.err")"
"$EDGEAUTH" -c "$CONF" cert self-signed > /dev/null 2>&1
check "cert self-signed without --host: usage" "$?" 2
# without --cert and --key: the config's tls_cert and tls_key
write_config "$TMP/ss.conf" 1 "server.tls_cert=$SS/conf-cert.pem" "server.tls_key=$SS/conf-key.pem"
"$EDGEAUTH" -c "$TMP/ss.conf" cert self-signed --host 127.0.0.1 > /dev/null 2>&1
[ -f "$SS/conf-cert.pem" ] && [ -f "$SS/conf-key.pem" ] && pass || fail "cert self-signed did not write the config's tls_cert and tls_key"
# a server on the self-signed pair, trusted by curl --cacert with that certificate
export CURL_CA_BUNDLE=$SS/cert.pem
start_server "server.tls_cert=$SS/cert.pem" "server.tls_key=$SS/key.pem"
check "curl --cacert trusts the self-signed certificate" \
	"$(curl -s --cacert "$SS/cert.pem" -o /dev/null -w '%{http_code}' "$BASE/healthz")" 200

finish
