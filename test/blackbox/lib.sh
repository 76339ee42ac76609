# Sourced by every test/blackbox/t_*.sh: starts a real ./edgeauth on a free
# loopback port with its own config and store, sends requests with curl and
# checks answers with jq. Each file ends with `finish`, which stops the server
# and prints "N passed, M failed".
#
#   start_server [CONFIG_LINES...]   # extra "section.key=value" settings
#   req METHOD PATH [JSON_BODY] [curl args...]   # sets STATUS, BODY, HDRS
#   check NAME ACTUAL EXPECTED       # equality
#   check_status NAME EXPECTED       # STATUS
#   check_json NAME JQ_FILTER EXPECTED   # jq -r on BODY
#   check_err NAME STATUS CODE       # STATUS and .error
#   check_header NAME REGEX          # a response header line matches (grep -Ei)
#   admin_token                      # prints a fresh client_credentials token
#   load_resources; pid NAMED; ids NAMED...   # permission IDs by name
#   new_client NAME NAMED...         # a client holding them; CID, CSECRET
#   expect AUTH WANT NAME METHOD PATH [BODY]  # a request and its answer
#
#   db SQL                           # runs SQL on the server's store (either backend)
#   wait_for CMD...                  # until CMD succeeds, a minute at most
#   metric PORT SERIES               # a sum of the metrics listener's samples
#
# EDGEAUTH_WRAPPER="valgrind --leak-check=full" runs the server under a tool;
# the server's own exit status is then checked by stop_server.
#
# EDGEAUTH_BACKEND=postgres runs the server on PostgreSQL (docs/operations.md §"A fleet on PostgreSQL"):
# EDGEAUTH_PG_HOST is the socket directory of a cluster (test/blackbox/run.sh
# starts a throw-away one, scripts/pg-cluster), and each test file has a
# fresh database of its own there (EDGEAUTH_PG_PORT: its port, 5432).
#
# EDGEAUTH_TLS=1 (set before sourcing) serves TLS with a certificate of a
# test CA made here (issue_cert); curl (CURL_CA_BUNDLE), Node
# (NODE_EXTRA_CA_CERTS) and connabuse.py (CONNABUSE_CA) trust that CA.
set -u
BB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BB_DIR/../.." && pwd)
EDGEAUTH=${EDGEAUTH:-$ROOT/edgeauth}
PASSED=0
FAILED=0
TMP=$(mktemp -d /tmp/edgeauth-bb.XXXXXX)
# python3 found once (issue26.5): behind a version manager's shim (pyenv),
# each python3 first runs a dozen shell scripts, which cost more than the
# checks (seconds a call on a busy box). $TMP/py/python3 links the
# interpreter that shim picks, for this file and every program it starts.
if PY_EXE=$(python3 -c 'import sys; print(sys.executable)' 2> /dev/null) && [ -x "$PY_EXE" ]; then
	mkdir -p "$TMP/py" && ln -s "$PY_EXE" "$TMP/py/python3" && PATH=$TMP/py:$PATH
fi
SERVER_PID=
TEST_NAME=$(basename "$0" .sh)
BACKEND=${EDGEAUTH_BACKEND:-sqlite}
PG_DB=

# pg_db_create: the test's own database, once per test file (a restart
# keeps its store, as with SQLite's file)
pg_db_create() {
	[ -n "$PG_DB" ] && return 0
	if [ -z "${EDGEAUTH_PG_HOST:-}" ]; then
		echo "FAIL [$TEST_NAME] EDGEAUTH_BACKEND=postgres needs EDGEAUTH_PG_HOST: run it through test/blackbox/run.sh" >&2
		exit 1
	fi
	PG_DB=$(echo "t_${TEST_NAME}_$$_$RANDOM" | tr 'A-Z-' 'a-z_')
	pg_psql postgres -c "CREATE DATABASE $PG_DB" > /dev/null ||
		{ echo "FAIL [$TEST_NAME] cannot create database $PG_DB" >&2; exit 1; }
}

# postgres_only: a file about PostgreSQL alone (test/blackbox/postgres/)
# fails at once on SQLite, saying how to run it
postgres_only() {
	[ "$BACKEND" = postgres ] && return 0
	fail "$TEST_NAME runs on PostgreSQL: EDGEAUTH_BACKEND=postgres test/blackbox/run.sh postgres/$TEST_NAME.sh"
	finish
	exit 1
}

# own_cluster: a cluster of the test's own (scripts/pg-cluster), for a test
# that stops or freezes it: CLUSTER names it, the server will use it, and it
# goes (thawed, stopped, removed) with the server when the test ends
own_cluster() {
	CLUSTER=$(mktemp -u /tmp/edgeauth-pg.XXXXXX)   # the server user reaches it, not $TMP
	"$ROOT/scripts/pg-cluster" start "$CLUSTER" >&2 ||
		{ fail "the test's cluster did not start"; finish; exit 1; }
	trap '"$ROOT/scripts/pg-cluster" thaw "$CLUSTER" 2> /dev/null
		"$ROOT/scripts/pg-cluster" stop "$CLUSTER"; stop_server' EXIT
	EDGEAUTH_PG_HOST=$CLUSTER
}

# pg_psql DB ARGS...: psql on the test cluster as its superuser
pg_psql() {
	local dbname=$1; shift
	psql -X -q -At -v ON_ERROR_STOP=1 -h "$EDGEAUTH_PG_HOST" -p "${EDGEAUTH_PG_PORT:-5432}" \
		-U edgeauth -d "$dbname" "$@"
}

# pg_url [DBNAME]: the libpq connection string of the test's database (or
# of DBNAME)
pg_url() {
	echo "host=$EDGEAUTH_PG_HOST port=${EDGEAUTH_PG_PORT:-5432} dbname=${1:-$PG_DB} user=edgeauth"
}

# pg_db_of PATH: a database of its own for a config that names another
# store.path (a store apart, as SQLite's other file): made on first use
pg_db_of() {
	local name
	name=${PG_DB}_$(printf '%s' "$1" | sha256sum | cut -c1-8)
	if [ -z "$(pg_psql postgres -c "SELECT 1 FROM pg_database WHERE datname = '$name'")" ]; then
		pg_psql postgres -c "CREATE DATABASE $name" > /dev/null ||
			{ echo "FAIL [$TEST_NAME] cannot create database $name" >&2; exit 1; }
	fi
	echo "$name"
}

# db SQL [PATH]: runs SQL on the server's store (or on the store a config's
# store.path=PATH names) and prints its rows, columns joined by |; SQL both
# backends read alike (CAST(flag AS INTEGER) for 0/1, no group_concat)
db() {
	if [ "$BACKEND" = postgres ]; then pg_psql "$([ -n "${2:-}" ] && pg_db_of "$2" || echo "$PG_DB")" -c "$1"
	else sqlite3 -cmd ".timeout 5000" "${2:-$TMP/edgeauth.db}" "$1"; fi
}

# wait_for CMD...: runs CMD every 0.05 s until it succeeds, a minute (WAIT_FOR_S) at
# most (then fails): a test waits for a state, never for a time, so that a
# busy machine only makes it slower (issue26.4)
wait_for() {
	local t0=$SECONDS
	until "$@"; do
		[ $((SECONDS - t0)) -ge "${WAIT_FOR_S:-60}" ] && return 1
		sleep 0.05
	done
}

# not_before WHAT SECONDS LIMIT: a close SECONDS after the connection opened
# (null: never) came at request_timeout_s (LIMIT) or later, not earlier (the
# server's timer counts whole seconds: one less passes). With a wait for the
# close that no busy machine outlasts, this checks request_timeout_s by
# state and order, not by how soon the close came (issue26.4).
not_before() {
	awk -v a="$2" -v b="$3" 'BEGIN { exit !(a != "" && a != "null" && a + 0 >= b - 1) }' && pass ||
		fail "$1: closed after $2 s (null: never), want request_timeout_s ($3) or later"
}

# next_second: returns once the wall clock has entered a later second. A
# deactivation's own second counts as before it (docs/decisions.md
# "Reactivation revives nothing"), so what a test issues after a reactivation
# must come in a later second: a wait for a state of the clock, not a sleep.
next_second() {
	local s; s=$(date +%s)
	wait_for sh -c "[ \$(date +%s) -gt $s ]"
}

# metric PORT SERIES: the sum of the samples of the metrics listener on
# PORT whose series, as written (name{labels}), starts with SERIES
metric() {
	curl -s -m 60 "http://127.0.0.1:$1/metrics" |
		awk -v s="$2" 'index($1, s) == 1 { n += $2 } END { print n + 0 }'
}

# notified METHOD PATH [BODY]: req, answered while a session LISTENs on
# channel edgeauth (PostgreSQL); prints the status and how many
# notifications arrived. By state, not by time (issue26.4): the request
# goes once the session's LISTEN is in effect (its next query answered);
# afterwards another session NOTIFYs channel edgeauth_test_sentinel, and
# since a database delivers notifications in commit order, every one the
# request's transaction sent has arrived once the sentinel has (psql shows
# them at its next query: it asks until then).
notified() {
	local fifo=$TMP/listen.fifo out=$TMP/listen.out listener fd
	# (the last call's output goes first: the listener's shell truncates it
	# only once the fifo opens, so a wait for "listening" could read the
	# last call's and send the request before this LISTEN, issue26.4)
	rm -f "$fifo" "$out"; mkfifo "$fifo"
	pg_psql "$PG_DB" < "$fifo" > "$out" 2>&1 &
	listener=$!
	exec {fd}> "$fifo"
	echo "LISTEN edgeauth; LISTEN edgeauth_test_sentinel; SELECT 'listening';" >&$fd
	wait_for grep -sqx listening "$out" || echo "notified: the LISTEN never took effect" >&2
	req "$@"
	pg_psql "$PG_DB" -c "NOTIFY edgeauth_test_sentinel"
	LISTEN_FD=$fd LISTEN_OUT=$out wait_for sentinel_seen || STATUS="$STATUS (no sentinel: count unknown)"
	exec {fd}>&-
	wait "$listener"
	printf '%s %s' "$STATUS" "$(grep -c 'Asynchronous notification "edgeauth"' "$out")"
}
# sentinel_seen: notified's listener (stdin LISTEN_FD, output LISTEN_OUT)
# runs a query, and the sentinel has arrived by then
sentinel_seen() {
	echo "SELECT 1;" >&"$LISTEN_FD"
	grep -q 'notification "edgeauth_test_sentinel"' "$LISTEN_OUT"
}

# fake_clock: the server (EDGEAUTH_WRAPPER=$FAKED start_server) and the
# CLI ($FAKED "$EDGEAUTH" ...) read their wall clock from $CLOCK under
# libfaketime, so that a test moves time instead of waiting for it (the
# monotonic clock is left alone, as NTP leaves it): `step +N` sets it N
# seconds ahead of the real clock, `freeze EPOCH_S` stops it at a second.
# On PostgreSQL the times the database writes itself (edgeauth_now_ms) are
# its own clock, which no step reaches. A failure, then exit, without
# libfaketime.
fake_clock() {
	FAKETIME_LIB=$(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null | head -1)
	[ -r "$FAKETIME_LIB" ] || { fail "libfaketime is needed (apt-get install faketime; scripts/install-deps test)"; finish; exit 1; }
	CLOCK=$TMP/clock
	FAKED="env LD_PRELOAD=$FAKETIME_LIB ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 FAKETIME_TIMESTAMP_FILE=$CLOCK FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1"
	step +0
}
step() { echo "$1" > "$CLOCK"; }   # step OFFSET: +N / -N seconds from the real clock
freeze() { date -d "@$1" '+%Y-%m-%d %H:%M:%S' > "$CLOCK"; }   # freeze EPOCH_S

# eventually SECONDS CMD...: until CMD succeeds, at most SECONDS (for what
# a background task does, e.g. the purge: a generous bound, checked by state)
eventually() {
	local limit=$(( $1 * 10 )); shift
	for _ in $(seq 1 "$limit"); do "$@" && return 0; sleep 0.1; done
	return 1
}

# free_port: a port for a server (or listener) of this file. Under run.sh,
# the next port of its job slot's block (EDGEAUTH_TEST_PORT_BASE, _COUNT;
# _NEXT: the slot's counter file) that nothing holds: no other file of the
# run, nor another run, hands that block out, so the port is still free when
# the server binds it. Run alone, a port the kernel picks (port 0), which
# any other program might take before the server binds it.
PORT_NEXT=${EDGEAUTH_TEST_PORT_NEXT:-$TMP/port-next}
free_port() {
	python3 - "${EDGEAUTH_TEST_PORT_BASE:-0}" "${EDGEAUTH_TEST_PORT_COUNT:-1}" "$PORT_NEXT" <<'PY'
import fcntl, socket, sys
base, count, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def free(port):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        return s.getsockname()[1]
    except OSError:
        return None
    finally:
        s.close()
if base == 0:
    print(free(0))
    sys.exit(0)
with open(path, "a+") as f:
    fcntl.flock(f, fcntl.LOCK_EX)   # a file's background jobs ask too
    f.seek(0)
    n = int(f.read() or 0)
    for i in range(count):
        port = free(base + (n + i) % count)
        if port:
            f.seek(0)
            f.truncate()
            f.write(str(n + i + 1))
            print(port)
            sys.exit(0)
sys.exit("free_port: every port of %d-%d is taken" % (base, base + count - 1))
PY
}

# write_config FILE PORT [section.key=value ...]
write_config() {
	local file=$1 port=$2; shift 2
	local server="" store="" tokens="" passwords="" signin=""
	local sessions="" oidc="" metrics="" log="" audit="" device=""
	for kv in "$@"; do
		local sec=${kv%%.*} rest=${kv#*.}
		case $sec in
		server) server+="$rest"$'\n' ;;
		store) store+="$rest"$'\n' ;;
		tokens) tokens+="$rest"$'\n' ;;
		passwords) passwords+="$rest"$'\n' ;;
		signin) signin+="$rest"$'\n' ;;
		sessions) sessions+="$rest"$'\n' ;;
		oidc) oidc+="$rest"$'\n' ;;
		metrics) metrics+="$rest"$'\n' ;;
		log) log+="$rest"$'\n' ;;
		audit) audit+="$rest"$'\n' ;;
		device) device+="$rest"$'\n' ;;
		*) echo "write_config: unknown section in $kv" >&2; return 1 ;;
		esac
	done
	if [ "$BACKEND" = postgres ]; then
		pg_db_create
		local path dbname=$PG_DB
		path=$(printf '%s' "$store" | sed -n 's/^path=//p' | tail -1)
		[ -n "$path" ] && dbname=$(pg_db_of "$path")
		store="backend = postgres"$'\n'"url = $(pg_url "$dbname")"$'\n'"$store"
	fi
	# sections older binaries do not know are written only when used
	local optional=""
	[ -n "$sessions" ] && optional+="[sessions]"$'\n'"$sessions"
	[ -n "$oidc" ] && optional+="[oidc]"$'\n'"$oidc"
	[ -n "$metrics" ] && optional+="[metrics]"$'\n'"$metrics"
	[ -n "$log" ] && optional+="[log]"$'\n'"$log"
	[ -n "$audit" ] && optional+="[audit]"$'\n'"$audit"
	[ -n "$device" ] && optional+="[device]"$'\n'"$device"
	cat > "$file" <<CONF
[server]
listen = 127.0.0.1:$port
issuer = $SCHEME://127.0.0.1:$port
$server
[store]
path = $TMP/edgeauth.db
synchronous = normal
$store
[tokens]
signing_key = $TMP/signing-key.pem
key_encryption_key_file = $TMP/key-encryption.key
$tokens
[passwords]
argon2_memory_kib = 64
argon2_iterations = 1
$passwords
[signin]
$signin
$optional
CONF
}

# The test CA: a root in $TMP/ca/ca.pem that clients trust, and an
# intermediate that signs the servers' certificates.
test_ca() {
	local d=$TMP/ca
	[ -f "$d/ca.pem" ] && return
	mkdir -p "$d"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-keyout "$d/ca.key" -out "$d/ca.pem" -subj "/CN=edgeauth test root CA" \
		-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/sub.key" \
		-out "$d/sub.csr" -subj "/CN=edgeauth test intermediate CA" 2>/dev/null
	openssl x509 -req -in "$d/sub.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -set_serial 2 -days 2 \
		-out "$d/sub.pem" -extfile <(printf 'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign\n') 2>/dev/null
}

# issue_cert NAME: $TMP/ca/NAME.pem (the certificate for 127.0.0.1 and
# localhost, then the intermediate: the chain) and $TMP/ca/NAME.key (0600).
issue_cert() {
	local d=$TMP/ca n=$1
	test_ca
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/$n.key" \
		-out "$d/$n.csr" -subj "/CN=127.0.0.1" 2>/dev/null
	openssl x509 -req -in "$d/$n.csr" -CA "$d/sub.pem" -CAkey "$d/sub.key" \
		-set_serial "0x$(openssl rand -hex 16)" -days 2 -out "$d/$n.leaf" \
		-extfile <(printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n') 2>/dev/null
	cat "$d/$n.leaf" "$d/sub.pem" > "$d/$n.pem"
	chmod 600 "$d/$n.key"
}

SCHEME=http
if [ -n "${EDGEAUTH_TLS:-}" ]; then
	SCHEME=https
	issue_cert server
	export CURL_CA_BUNDLE=$TMP/ca/ca.pem NODE_EXTRA_CA_CERTS=$TMP/ca/ca.pem CONNABUSE_CA=$TMP/ca/ca.pem
fi

# start_server CONFIG_LINES...: a server on a free port (SERVER_PORT=N: on
# N) of the test's store; sets BASE, PROJECT_ID, CLIENT_ID/SECRET, TOKEN, P
start_server() {
	PORT=${SERVER_PORT:-$(free_port)}
	BASE="$SCHEME://127.0.0.1:$PORT"
	CONF=$TMP/edgeauth.conf
	[ "$SCHEME" = https ] && set -- "server.tls_cert=$TMP/ca/server.pem" "server.tls_key=$TMP/ca/server.key" "$@"
	write_config "$CONF" "$PORT" "$@"
	# EDGEAUTH_WRAPPER runs the server under a tool, e.g.
	# EDGEAUTH_WRAPPER="valgrind --leak-check=full --error-exitcode=9"
	${EDGEAUTH_WRAPPER:-} "$EDGEAUTH" -c "$CONF" serve > "$TMP/stdout" 2>> "$TMP/server.log" &
	SERVER_PID=$!
	for _ in $(seq 1 600); do
		curl -s -o /dev/null "$BASE/healthz" && break
		sleep 0.05
	done
	PROJECT_ID=$(jq -r .project_id "$TMP/stdout")
	CLIENT_ID=$(jq -r .client_id "$TMP/stdout")
	CLIENT_SECRET=$(jq -r .client_secret "$TMP/stdout")
	TOKEN=$(admin_token)
	P="/api/v1/projects/$PROJECT_ID"
}

# restart_server CONFIG_LINES...: the same store on a new config, at the
# same address (on PostgreSQL the node's outbox claims are its address's),
# the same project and admin client (a restart prints no bootstrap)
restart_server() {
	local project=$PROJECT_ID client=$CLIENT_ID secret=$CLIENT_SECRET
	stop_server
	SERVER_PORT=$PORT start_server "$@"
	PROJECT_ID=$project; CLIENT_ID=$client; CLIENT_SECRET=$secret
	P="/api/v1/projects/$PROJECT_ID"
	TOKEN=$(admin_token)
}

stop_server() {
	if [ -n "$SERVER_PID" ]; then
		kill -TERM "$SERVER_PID" 2>/dev/null
		wait "$SERVER_PID" 2>/dev/null
		local rc=$?
		SERVER_PID=
		# A clean stop is exit 0; under a wrapper a report changes it.
		if [ "$rc" -ne 0 ]; then fail "server exited with status $rc (see $TMP/server.log)"; else pass; fi
	fi
}

# client_token ID SECRET: a client_credentials access token
client_token() {
	curl -s -u "$1:$2" -d grant_type=client_credentials "$BASE/api/v1/tokens" | jq -r .access_token
}

admin_token() {
	client_token "$CLIENT_ID" "$CLIENT_SECRET"
}

# keepalive_client: from now on req sends its requests through one python3
# process over a kept connection (reqd.py, issue26.5), not a curl each: a
# curl costs 40 ms of CPU, several times the request, and a busy machine
# makes that a second. check_err then reads the code reqd.py found (no jq).
# A file calls it once, after start_server, unless it counts the server's
# connections (reqd.py holds one open). Only the file's own shell uses it:
# a req in a subshell ($(...), a pipeline, a background job) or with curl
# arguments still runs curl, so that two never share the process. The
# process is not a job of the file: a bare `wait` does not wait for it.
keepalive_client() {
	[ -n "${REQD_PID:-}" ] && return 0
	mkfifo "$TMP/reqd.in" "$TMP/reqd.out" || return 1
	python3 "$BB_DIR/reqd.py" < "$TMP/reqd.in" > "$TMP/reqd.out" &
	REQD_PID=$!
	disown "$REQD_PID"
	exec {REQD_IN}> "$TMP/reqd.in" {REQD_OUT}< "$TMP/reqd.out"
	REQD_SHELL=$BASHPID
}

# kept: keepalive_client's process is this shell's
kept() { [ -n "${REQD_PID:-}" ] && [ "$BASHPID" = "$REQD_SHELL" ]; }

# req_kept METHOD PATH [BODY]: req through keepalive_client's process;
# fails when there is none for this shell, or the request is curl's to send.
# REQ_HEADERS (an array, "Name: value" each) adds headers.
req_kept() {
	kept || return 1
	local line=$1$'\t'$BASE$2$'\t'- auth=${AUTH:-Bearer ${TOKEN:-}} status err
	if [ $# -gt 2 ]; then
		printf '%s' "$3" > "$TMP/reqbody"
		line=$1$'\t'$BASE$2$'\t'$TMP/reqbody
	fi
	line+=$'\t'$TMP/hdrs$'\t'$TMP/body
	[ "$auth" != none ] && line+=$'\t'"Authorization: $auth"
	[ $# -gt 2 ] && line+=$'\t'"Content-Type: ${CTYPE:-application/json}"
	local h
	for h in ${REQ_HEADERS[@]+"${REQ_HEADERS[@]}"}; do line+=$'\t'$h; done
	[[ "$line" == *$'\n'* ]] && return 1
	printf '%s\n' "$line" >&"$REQD_IN"
	read -r status err <&"$REQD_OUT" || return 1
	[ "$status" = curl ] && return 1
	STATUS=$status
	BODY=$(< "$TMP/body")
	HDRS=$(< "$TMP/hdrs")
	REQ_ERR=$err REQ_BODY=$BODY
}

# form_encode FIELD...: sets FORM to the fields as curl --data-urlencode
# joins them ("NAME=VALUE": NAME kept, VALUE's bytes other than RFC 3986's
# unreserved ones as %XX, a space as +; a field without "=" is all VALUE);
# fails on one curl reads from a file (an "@" and no "=")
form_encode() {
	local LC_ALL=C f name val c i enc
	FORM=
	for f in "$@"; do
		name=
		if [[ $f == *=* ]]; then name=${f%%=*}; val=${f#*=}
		elif [[ $f == *@* ]]; then return 1
		else val=$f; fi
		if [[ $val =~ ^[-A-Za-z0-9._~]*$ ]]; then enc=$val
		else
			enc=
			for ((i = 0; i < ${#val}; i++)); do
				c=${val:i:1}
				case $c in
				[-A-Za-z0-9._~]) enc+=$c ;;
				' ') enc+=+ ;;
				*) printf -v c '%%%02X' "'$c"; enc+=$c ;;
				esac
			done
		fi
		FORM+=${FORM:+&}${name:+$name=}$enc
	done
}

# form_kept METHOD PATH FIELD...: req_kept of a form of those fields
# (form_encode; a GET sends them as the query, as curl -G); fails as
# req_kept does, or on a field curl must read. AUTH as for req.
form_kept() {
	local method=$1 path=$2 FORM; shift 2
	kept && form_encode "$@" || return 1
	if [ "$method" = GET ]; then req_kept GET "$path${FORM:+?$FORM}"
	else CTYPE=application/x-www-form-urlencoded req_kept "$method" "$path" "$FORM"; fi
}

# location_of: LOCATION, the Location header of HDRS (no fork: a sign-in
# reads one in every answer)
location_of() {
	local l
	LOCATION=
	while IFS= read -r l; do
		l=${l%$'\r'}
		[[ $l == [Ll]ocation:\ * ]] && LOCATION+=${LOCATION:+$'\n'}${l#*: }
	done <<<"$HDRS"
	return 0
}

# req METHOD PATH [BODY] [curl args...]. A BODY (not starting with '-') is
# sent as JSON (CTYPE overrides the type); AUTH
# (default "Bearer $TOKEN") is the Authorization header, AUTH=none for none.
req() {
	REQ_ERR="?"
	if [ $# -eq 2 ] || { [ $# -eq 3 ] && [ "${3:0:1}" != "-" ]; }; then
		req_kept "$@" && return 0
	fi
	local method=$1 path=$2; shift 2
	local args=(-s -X "$method" -D "$TMP/hdrs" -o "$TMP/body" -w '%{http_code}')
	local auth=${AUTH:-Bearer ${TOKEN:-}}
	[ "$auth" != none ] && args+=(-H "Authorization: $auth")
	if [ $# -gt 0 ] && [ "${1:0:1}" != "-" ]; then
		args+=(-H "Content-Type: ${CTYPE:-application/json}" --data-binary "$1")
		shift
	fi
	STATUS=$(curl "${args[@]}" "$@" "$BASE$path")
	BODY=$(< "$TMP/body")
	HDRS=$(< "$TMP/hdrs")
}

# Permission IDs by name, for tests that grant them. RESOURCES holds the
# project's resources list (load_resources reads it again after a change).
load_resources() { req GET "$P/resources?page_size=100"; RESOURCES=$BODY; }
# pid NAMED: the ID of a named permission ("users:read")
pid() {
	jq -r --arg r "${1%%:*}" --arg p "${1#*:}" \
		'.data[]|select(.code==$r)|.permissions[]|select(.code==$p)|.id' <<<"$RESOURCES"
}
# ids NAMED...: a JSON array of their IDs (as pid finds them, in one jq,
# not three and one a name)
ids() {
	jq -c '[$ARGS.positional[] as $n | ($n | index(":")) as $i
		| (if $i then $n[:$i] else $n end) as $r | (if $i then $n[$i + 1:] else $n end) as $p
		| .data[] | select(.code == $r) | .permissions[] | select(.code == $p)
		| .id | if type == "string" then . else tojson end]' --args "$@" <<<"$RESOURCES"
}

# new_client NAME NAMED...: as the admin (TOKEN), a client holding those
# permissions, redirect URI http://127.0.0.1:9/cb; sets CID and CSECRET
new_client() {
	local name=$1; shift
	AUTH="Bearer $TOKEN" req POST "$P/clients" "{\"name\":\"$name\",\"permission_ids\":$(ids "$@"),\"redirect_uris\":[\"http://127.0.0.1:9/cb\"]}"
	check_status "admin creates client $name" 201
	CID=$(jq -r .id <<<"$BODY"); CSECRET=$(jq -r .client_secret <<<"$BODY")
}

# expect AUTH WANT NAME METHOD PATH [BODY]: the request with that
# Authorization header answers WANT, a status or "status error"
expect() {
	local auth=$1 want=$2 name=$3; shift 3
	AUTH=$auth req "$@"
	if [ "${want#* }" != "$want" ]; then check_err "$name" "${want%% *}" "${want#* }"
	else check_status "$name" "$want"; fi
}

# need_node_project DIR MODULE: Node.js >= 20 and npm, and DIR's pinned
# packages installed (npm ci on first use). On a problem: a failure, then exit.
need_node_project() {
	local dir=$1 module=$2 why=""
	if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
		why="node and npm are needed for this test (run scripts/install-deps test)"
	elif [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
		why="this test needs Node.js 20 or newer, found $(node --version)"
	elif ! (flock 9   # files run at once (run.sh --jobs) install it once
		[ -d "$dir/node_modules/$module" ] ||
			(cd "$dir" && npm ci --silent --no-audit --no-fund > "$TMP/npm.log" 2>&1)) 9< "$dir"; then
		cat "$TMP/npm.log" >&2
		why="npm ci in $dir failed"
	fi
	if [ -n "$why" ]; then
		fail "$why"
		finish
		exit 1
	fi
}

# node_steps WHAT DIR SCRIPT "STEP..." VAR=VALUE...: node SCRIPT run in DIR
# (90 s at most) with the variables, then check_steps on its output;
# SHOW_BROWSER=1 or SHOW_FLOW=1 prints that output.
node_steps() {
	local what=$1 dir=$2 script=$3 steps=$4 out rc; shift 4
	out=$(cd "$dir" && env "$@" timeout 90 node "$script" 2>&1)
	rc=$?
	[ -n "${SHOW_BROWSER:-}${SHOW_FLOW:-}" ] && printf '%s\n' "$out" >&2
	# shellcheck disable=SC2086 # STEP... is a list
	check_steps "$what" "$script" "$rc" "$out" $steps
}

# check_steps WHAT SCRIPT RC OUTPUT STEP...: a Node script's run (a library
# flow, a browser) printed "ok STEP" for each STEP and exited (RC) 0; a
# failure names the step's own "FAIL STEP: why" line.
check_steps() {
	local what=$1 script=$2 rc=$3 out=$4 s; shift 4
	for s in "$@"; do
		if printf '%s\n' "$out" | grep -qx "ok $s"; then pass
		else fail "$what step $s: $(printf '%s\n' "$out" | grep -m1 "^FAIL $s:" || echo 'did not run')"; fi
	done
	if [ "$rc" -eq 0 ]; then pass; else
		fail "$script exited $rc: $(printf '%s\n' "$out" | grep -v '^ok ' | head -20)"
	fi
}

pass() { PASSED=$((PASSED + 1)); }
fail() {
	FAILED=$((FAILED + 1))
	echo "FAIL [$TEST_NAME] $1" >&2
}

# (the checks fork no more than they must, issue26.5: jq and grep read
# here-strings, not pipes)
check() {
	if [ "$2" == "$3" ]; then pass; else fail "$1: got '$2', want '$3'"; fi
}

check_status() {
	if [ "$STATUS" == "$2" ]; then pass; else fail "$1: status $STATUS, want $2; body: ${BODY:0:300}"; fi
}

# jq_kept FILTER: sets JQ_OUT to what jq -r FILTER prints for BODY, as
# keepalive_client's process reads it in the answer it holds (reqd.py's
# jq_of: .a.b, .a|length); fails when BODY is not that answer, or jq must say
jq_kept() {
	local line
	kept && [ "${REQ_BODY+set}" ] && [ "$BODY" == "$REQ_BODY" ] || return 1
	[[ $1 == *[$'\t\n']* ]] && return 1
	printf 'JQ\t%s\n' "$1" >&"$REQD_IN"
	IFS= read -r line <&"$REQD_OUT" || return 1
	[ "${line:0:2}" = "= " ] || return 1
	JQ_OUT=${line:2}
}

check_json() {
	local got JQ_OUT
	if jq_kept "$2"; then got=$JQ_OUT
	else got=$(jq -r "$2" 2>/dev/null <<<"$BODY"); fi
	if [ "$got" == "$3" ]; then pass; else fail "$1: $2 is '$got', want '$3'; body: ${BODY:0:300}"; fi
}

check_err() {
	local got
	# the code reqd.py read in the answer (keepalive_client), if BODY is still it
	if [ "${REQ_ERR:-?}" != "?" ] && [ "$BODY" == "${REQ_BODY:-}" ]; then got=$REQ_ERR
	else got=$(jq -r .error 2>/dev/null <<<"$BODY"); fi
	if [ "$STATUS" == "$2" ] && [ "$got" == "$3" ]; then pass
	else fail "$1: got $STATUS $got, want $2 $3; body: ${BODY:0:300}"; fi
}

check_header() {
	if grep -Eiq "$2" <<<"${HDRS//$'\r'/}"; then pass
	else fail "$1: no header matching '$2'"; fi
}

finish() {
	stop_server
	[ -n "${REQD_PID:-}" ] && kill "$REQD_PID" 2> /dev/null
	if [ "$FAILED" -ne 0 ] || [ -n "${KEEP_TMP:-}" ]; then
		echo "[$TEST_NAME] server log kept in $TMP/server.log${PG_DB:+, database $PG_DB}" >&2
	else
		rm -rf "$TMP"
		[ -n "$PG_DB" ] && pg_psql postgres -c "DROP DATABASE $PG_DB WITH (FORCE)" > /dev/null
	fi
	echo "$TEST_NAME: $PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}
trap 'stop_server' EXIT
