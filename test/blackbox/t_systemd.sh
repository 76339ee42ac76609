# systemd (docs/operations.md §"systemd"): sd_notify seen from the manager's side (READY=1
# once the port accepts, WATCHDOG=1 at half of WATCHDOG_USEC, STOPPING=1 on
# SIGTERM), the unit file, make install, and check-config.
. "$(dirname "$0")/lib.sh"
PORT=$(free_port)
CONF=$TMP/edgeauth.conf
write_config "$CONF" "$PORT"

# --- sd_notify -------------------------------------------------------------
R=$(python3 "$BB_DIR/notify.py" "$TMP" "$PORT" 400000 "$EDGEAUTH" -c "$CONF" serve 2>> "$TMP/server.log")
check "READY=1, then STOPPING=1" "$(jq -c .order <<<"$R")" '["READY=1","STOPPING=1"]'
check "the port accepts when READY=1 comes" "$(jq -r .accepted_at_ready <<<"$R")" true
check "WATCHDOG=1 several times in 1.5 s" "$(jq '.pings | length >= 5' <<<"$R")" true
# (the median gap: a busy machine may delay one ping, and the next comes
# sooner, without the server's interval being wrong)
check "every 0.2 s (half of WATCHDOG_USEC)" \
	"$(jq '.pings | sort | .[length / 2 | floor] | . >= 0.15 and . <= 0.3' <<<"$R")" true
check "a clean exit" "$(jq -r .exit <<<"$R")" 0
rm -f "$TMP/notify.sock"
R=$(WATCHDOG_PID=1 python3 "$BB_DIR/notify.py" "$TMP" "$PORT" "" "$EDGEAUTH" -c "$CONF" serve 2>> "$TMP/server.log")
check "no WATCHDOG_USEC: no pings" "$(jq -c .order <<<"$R")/$(jq '.pings | length' <<<"$R")" '["READY=1","STOPPING=1"]/0'
rm -f "$TMP/notify.sock"
R=$(NOTIFY_ABSTRACT=1 python3 "$BB_DIR/notify.py" "$TMP" "$PORT" 400000 "$EDGEAUTH" -c "$CONF" serve 2>> "$TMP/server.log")
check "an abstract NOTIFY_SOCKET (@name): READY=1, pings, STOPPING=1" \
	"$(jq -c .order <<<"$R")/$(jq '.pings | length >= 5' <<<"$R")" '["READY=1","STOPPING=1"]/true'
rm -f "$TMP/notify.sock"
R=$(NOTIFY_HUP=1 python3 "$BB_DIR/notify.py" "$TMP" "$PORT" "" "$EDGEAUTH" -c "$CONF" serve 2>> "$TMP/server.log")
check "issue27.reload: SIGHUP says RELOADING=1, then READY=1 when done" "$(jq -c .order <<<"$R")" \
	'["READY=1","RELOADING=1","READY=1","STOPPING=1"]'
R=$(NOTIFY_PID=1 NOTIFY_ABSTRACT=1 python3 "$BB_DIR/notify.py" "$TMP" "$PORT" 400000 "$EDGEAUTH" -c "$CONF" serve 2>> "$TMP/server.log")
check "WATCHDOG_PID of another process: no pings" "$(jq '.pings | length' <<<"$R")" 0

# under systemd (JOURNAL_STREAM), the first admin client goes to a file, not the
# journal: a first start, on a new store whose directory is the state directory
mkdir -p "$TMP/state"
write_config "$TMP/journal.conf" "$PORT" store.path="$TMP/state/edgeauth.db"
JOURNAL_STREAM=8:12345 "$EDGEAUTH" -c "$TMP/journal.conf" serve > "$TMP/journal.out" 2> "$TMP/journal.log" &
J=$!
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.05; done
kill -TERM $J; wait $J
check "nothing on stdout (the journal)" "$(wc -c < "$TMP/journal.out")" 0
ADMIN_FILE=$TMP/state/default-admin.json   # on PostgreSQL beside the config file
[ "$BACKEND" = postgres ] && ADMIN_FILE=$TMP/default-admin.json
check "default-admin.json beside the store, mode 0600" "$(stat -c %a "$ADMIN_FILE")" 600
check "holding the admin client" "$(jq -r '.client_secret | length > 20' "$ADMIN_FILE")" true
check "the log names the file" "$(grep -c "admin client (with its secret) is in $ADMIN_FILE" "$TMP/journal.log")" 1
check "and holds no secret" "$(grep -cF -- "$(jq -r .client_secret "$ADMIN_FILE")" "$TMP/journal.log")" 0

# --- the unit file ------------------------------------------------------------
UNIT=$ROOT/etc/edgeauth.service
for key in Type=notify NotifyAccess=main WatchdogSec= ProtectSystem=strict ProtectHome=yes \
	NoNewPrivileges=yes PrivateTmp=yes PrivateDevices=yes StateDirectory=edgeauth User=edgeauth \
	'ExecReload=/bin/kill -HUP $MAINPID' 'ExecStart=/usr/local/bin/edgeauth -c /etc/edgeauth/edgeauth.conf serve'; do
	check "unit: $key" "$(awk -v k="$key" 'index($0, k) == 1 { n++ } END { print n + 0 }' "$UNIT")" 1
done
# issue24.4: the unit's open files limit leaves room above max_connections
# (the store, workers, back-channel sockets: edgeauth reserves about 130)
NOFILE=$(sed -n 's/^LimitNOFILE=\([0-9]*\)$/\1/p' "$UNIT")
MAXC=$(sed -n 's/^max_connections = \([0-9]*\)$/\1/p' "$ROOT/etc/edgeauth.conf")
check "issue24.4: unit: LimitNOFILE ($NOFILE) >= max_connections ($MAXC) + 256" \
	"$([ -n "$NOFILE" ] && [ "$NOFILE" -ge $((MAXC + 256)) ] && echo yes)" yes
if command -v systemd-analyze > /dev/null; then
	mkdir -p "$TMP/unit"
	sed "s|/usr/local/bin/edgeauth|$EDGEAUTH|" "$UNIT" > "$TMP/unit/edgeauth.service"
	systemd-analyze verify "$TMP/unit/edgeauth.service" > "$TMP/verify.out" 2>&1
	check "systemd-analyze verify" "$?:$(cat "$TMP/verify.out")" "0:"
else
	echo "t_systemd: no systemd-analyze here; the unit's keys were checked one by one" >&2
fi

# --- make install ---------------------------------------------------------------
# (the installed binary is linked in a build/install/ of the test's own, so the
# tree's binary stays as it is and the two backends' runs of this file, which
# make test starts side by side, never link over each other's: CI's failure at b0ba66b)
IB=$TMP/install-build
D=$TMP/root
TREE_BIN_BEFORE=$(stat -c %Y:%s "$EDGEAUTH")
make -s --no-print-directory -C "$ROOT" install INSTALL_BUILD="$IB/1" DESTDIR="$D" PREFIX=/opt/ea > "$TMP/install.out" 2>&1
check "make install" "$?" 0
check "the binary" "$(stat -c %a "$D/opt/ea/bin/edgeauth")" 755
check "issue27.install: the installed binary's default config is /etc/edgeauth/edgeauth.conf" \
	"$(env -u EDGEAUTH_CONFIG "$D/opt/ea/bin/edgeauth" --help | tail -1)" \
	"config in force: /etc/edgeauth/edgeauth.conf (compiled in)"
check "issue27.install: the binary under test untouched" "$(stat -c %Y:%s "$EDGEAUTH")" "$TREE_BIN_BEFORE"
make -s --no-print-directory -C "$ROOT" install INSTALL_BUILD="$IB/2" DESTDIR="$TMP/root2" SYSCONFDIR=/opt/etc > /dev/null 2>&1
check "issue27.install: SYSCONFDIR=/opt/etc, the default config /opt/etc/edgeauth/edgeauth.conf" \
	"$(env -u EDGEAUTH_CONFIG "$TMP/root2/usr/local/bin/edgeauth" --help | tail -1)" \
	"config in force: /opt/etc/edgeauth/edgeauth.conf (compiled in)"
check "the unit, with the binary's path" \
	"$(grep -c '^ExecStart=/opt/ea/bin/edgeauth -c /etc/edgeauth/edgeauth.conf serve$' "$D/etc/systemd/system/edgeauth.service")" 1
check "its user" "$(grep -c '^u edgeauth ' "$D/etc/sysusers.d/edgeauth.conf")" 1
check "issue27.docs the README and docs/ in the doc directory, the unit pointing at them" \
	"$(ls "$D/opt/ea/share/doc/edgeauth/README.md" "$D/opt/ea/share/doc/edgeauth/docs/operations.md" \
	    "$D/opt/ea/share/doc/edgeauth/docs/configuration.md" | wc -l):$(grep -c \
	    '^Documentation=file:/opt/ea/share/doc/edgeauth/README.md file:/opt/ea/share/doc/edgeauth/docs/operations.md$' \
	    "$D/etc/systemd/system/edgeauth.service")" 3:1
check "the config, paths in the state directory" \
	"$(grep -cE '^(path|signing_key|key_encryption_key_file) = /var/lib/edgeauth/' "$D/etc/edgeauth/edgeauth.conf")" 3
"$EDGEAUTH" check-config -c "$D/etc/edgeauth/edgeauth.conf" > "$TMP/cc.out"
check "the installed config is valid" "$?" 0
echo "; mine" >> "$D/etc/edgeauth/edgeauth.conf"
make -s --no-print-directory -C "$ROOT" install INSTALL_BUILD="$IB/1" DESTDIR="$D" PREFIX=/opt/ea > /dev/null 2>&1
check "a second install keeps the operator's config" "$(tail -1 "$D/etc/edgeauth/edgeauth.conf")" "; mine"

# --- the libraries a server maps -------------------------------------------------
# The notify protocol is spoken directly, and libpq (with its Kerberos, LDAP and
# GnuTLS) is loaded only for the PostgreSQL store (docs/development.md "Libraries").
start_server
MAPS=$(cat "/proc/$SERVER_PID/maps")
check "no libsystemd in the server" "$(grep -c 'libsystemd' <<<"$MAPS")" 0
if [ "$BACKEND" = postgres ]; then
	check "libpq, for the PostgreSQL store" "$(grep -q 'libpq\.so' <<<"$MAPS" && echo mapped)" mapped
else
	check "no libpq (nor GnuTLS, Kerberos) in a server on SQLite" \
		"$(grep -cE 'libpq\.so|libgnutls|libkrb5|libldap' <<<"$MAPS")" 0
fi
stop_server

# --- check-config ----------------------------------------------------------------
printf '[server]\nlisten = 127.0.0.1:9999\n[signin]\nwindow_s = 60\n' > "$TMP/min.conf"
"$EDGEAUTH" -c "$TMP/min.conf" check-config > "$TMP/cc.out"
check "check-config: exit 0" "$?" 0
check "every key of the table, once" "$(grep -cE '^[a-z_0-9]+ =' "$TMP/cc.out")" \
	"$(grep -cE '^[a-z_0-9]+ =' "$ROOT/etc/edgeauth.conf")"
check "a value set" "$(grep -cx 'listen = 127.0.0.1:9999' "$TMP/cc.out")" 1
check "a default" "$(grep -cx 'access_ttl_s = 900' "$TMP/cc.out")" 1
check "under its section" "$(grep -A5 -x '\[signin\]' "$TMP/cc.out" | grep -cx 'window_s = 60')" 1
check "an empty default" "$(grep -cx 'cors_origins =' "$TMP/cc.out")" 1
"$EDGEAUTH" check-config -c "$TMP/min.conf" > "$TMP/cc2.out"
check "check-config -c FILE, the same" "$(cmp -s "$TMP/cc.out" "$TMP/cc2.out" && echo same)" same
printf '[server]\nlisten = nowhere\n' > "$TMP/bad.conf"
"$EDGEAUTH" check-config -c "$TMP/bad.conf" > /dev/null 2> "$TMP/err"
check "a bad value: exit 2" "$?" 2
check "naming file and line" "$(grep -c "$TMP/bad.conf:2: expected HOST:PORT" "$TMP/err")" 1
"$EDGEAUTH" -c "$TMP/min.conf" check-config extra > /dev/null 2>&1
check "an extra argument: usage" "$?" 2
finish
