# issue24.7: the connection limit counts an IPv6 client as its /64 (one host
# or LAN normally holds a whole /64), and an IPv4-mapped peer as its IPv4
# address. The file runs in a network namespace of its own (unshare -n, as
# root), whose loopback gets addresses of two /64s; the server listens on
# [::], IPv4 clients arriving as IPv4-mapped peers.
if [ -z "${EDGEAUTH_NETNS:-}" ]; then
	if ! unshare -n true 2> /dev/null; then
		echo "FAIL [t_ipv6_clients] needs unshare -n (root) for a network namespace" >&2
		echo "t_ipv6_clients: 0 passed, 1 failed"
		exit 1
	fi
	EDGEAUTH_NETNS=1 exec unshare -n bash "$0" "$@"
fi
ip link set lo up
for a in 2001:db8:0:1::1 2001:db8:0:1::2 2001:db8:0:1::3 2001:db8:0:1::4 2001:db8:0:1::5 \
	2001:db8:0:1:ffff::6 2001:db8:0:2::1; do
	ip -6 addr add "$a/64" dev lo nodad
done
. "$(dirname "$0")/lib.sh"
SERVER_PORT=$(free_port)
start_server "server.listen=[::]:$SERVER_PORT" server.max_connections_per_address=4

# clients PORT SERVER SOURCE...: one idle connection from each SOURCE to
# SERVER; prints how many the server kept open (those over the limit are
# closed at once: it waits for them to go, a minute at most), and with
# HOLD=FILE holds the rest until FILE exists (issue26.4: by state, not for
# a time).
clients() {
	python3 - "$@" <<'PY'
import os, socket, sys, time
port, server, sources = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
fam = socket.AF_INET6 if ":" in server else socket.AF_INET
socks = []
for src in sources:
    s = socket.socket(fam)
    s.bind((src, 0))
    s.connect((server, port))
    s.setblocking(False)
    socks.append(s)
def open_count():
    n = 0
    for s in socks:
        try:
            n += s.recv(1, socket.MSG_PEEK) != b""
        except BlockingIOError:
            n += 1
        except OSError:
            pass
    return n
end = time.monotonic() + 60
while open_count() > 4 and time.monotonic() < end:
    time.sleep(0.05)
print(open_count(), flush=True)
hold = os.environ.get("HOLD")
while hold and not os.path.exists(hold) and time.monotonic() < end + 60:
    time.sleep(0.05)
PY
}
# get SOURCE SERVER: the status of GET /healthz from SOURCE (000: none)
get() {
	curl -s -o /dev/null -w '%{http_code}' --max-time 5 --interface "$1" \
		"http://$2:$SERVER_PORT/healthz"
}
# Six addresses of one /64 hold six connections at once: four are kept.
# (Each used to count as a client of its own: all six were kept.) Another
# /64 is another client and gets its answer meanwhile.
HOLD=$TMP/v6.release clients "$SERVER_PORT" 2001:db8:0:1::1 2001:db8:0:1::1 2001:db8:0:1::2 \
	2001:db8:0:1::3 2001:db8:0:1::4 2001:db8:0:1::5 2001:db8:0:1:ffff::6 > "$TMP/v6.out" &
HOLDER=$!
wait_for test -s "$TMP/v6.out"   # the /64 at its limit, its connections held
check "issue24.7: another /64 is served while one /64 is at its limit" \
	"$(get 2001:db8:0:2::1 '[2001:db8:0:2::1]')" 200
touch "$TMP/v6.release"
wait "$HOLDER"
check "issue24.7: connections kept from six addresses of one /64 (limit 4)" "$(cat "$TMP/v6.out")" 4
# An IPv4 client on the IPv6 socket is its IPv4 address, a limit of its own.
check "issue24.7: connections kept from 127.0.0.1 over IPv4 (limit 4)" \
	"$(clients "$SERVER_PORT" 127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1)" 4
finish
