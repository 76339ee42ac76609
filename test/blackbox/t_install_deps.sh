# issue27.1: scripts/install-deps installs what a target needs and nothing
# more, with --no-install-recommends, and leaves no service enabled or
# running that the box did not have (docs/operations.md §"Set-up"). It runs here
# against stand-ins on PATH that record what they are asked, never apt:
# apt-get acts as Debian's packages do (it enables a package's unit, starts
# it unless policy-rc.d answers 101, creates PostgreSQL's main cluster unless
# a createcluster.d file says create_main_cluster = false), dpkg-query and
# systemctl answer from a state directory, id says root.
. "$(dirname "$0")/lib.sh"
SCRIPT=$ROOT/scripts/install-deps
STUB=$TMP/bin
mkdir -p "$STUB"

cat > "$STUB/apt-get" <<'EOF'
#!/bin/sh
echo "$*" >> "$FAKE/apt-get.log"
[ "$1" = update ] && exit 0
for p in "$@"; do
	case $p in -*|install) continue ;; esac
	echo "$p" >> "$FAKE/installed"
	case $p in postgresql) unit=postgresql.service ;; prometheus) unit=prometheus.service ;;
	           prometheus-node-exporter) unit=prometheus-node-exporter.service ;; *) continue ;; esac
	echo "$unit" >> "$FAKE/enabled"                       # deb-systemd-helper enable
	if [ -x "$INSTALL_DEPS_ROOT/usr/sbin/policy-rc.d" ] &&
	   ! "$INSTALL_DEPS_ROOT/usr/sbin/policy-rc.d" "$unit" start; then :
	else echo "$unit" >> "$FAKE/started"; fi              # deb-systemd-invoke start
	if [ "$p" = postgresql ] &&
	   ! cat "$INSTALL_DEPS_ROOT"/etc/postgresql-common/createcluster.d/*.conf 2> /dev/null |
	     grep -qx 'create_main_cluster = false'; then
		echo 15/main >> "$FAKE/clusters"; echo postgresql@15-main.service >> "$FAKE/started"
	fi
done
EOF
cat > "$STUB/dpkg-query" <<'EOF'
#!/bin/sh
for p; do :; done
grep -qxF "$p" "$FAKE/installed" 2> /dev/null || exit 1
printf 'install ok installed'
EOF
cat > "$STUB/systemctl" <<'EOF'
#!/bin/sh
echo "$*" >> "$FAKE/systemctl.log"
case $1 in
list-unit-files) sed 's/$/ enabled enabled/' "$FAKE/enabled" ;;
disable) for u; do case $u in -*|disable) ;; *) grep -vxF "$u" "$FAKE/enabled" > "$FAKE/e"; mv "$FAKE/e" "$FAKE/enabled" ;; esac; done ;;
esac
EOF
printf '#!/bin/sh\n[ "$1" = -u ] && { echo "${FAKE_UID:-0}"; exit 0; }\nexec /usr/bin/id "$@"\n' > "$STUB/id"
chmod +x "$STUB"/*

# box NAME: a fresh box with ssh.service enabled and nothing installed
box() {
	export FAKE=$TMP/$1 INSTALL_DEPS_ROOT=$TMP/$1/root
	mkdir -p "$FAKE/root"
	echo ssh.service > "$FAKE/enabled"
	: > "$FAKE/installed"
}
deps() { PATH=$STUB:$PATH "$SCRIPT" "$@" > "$FAKE/out" 2>&1; }
# installs: the packages of the apt-get install calls, sorted, one a line
installs() { grep '^install' "$FAKE/apt-get.log" 2> /dev/null | tr ' ' '\n' | grep -v '^-\|^install$' | sort -u; }
has() { installs | grep -qxF "$1" && echo yes || echo no; }
RUN_ONLY="build-essential pkg-config libevent-dev libsqlite3-dev libargon2-dev libssl-dev libjansson-dev libinih-dev libpq-dev libqrencode-dev libcbor-dev curl jq"
TEST_TOOLS="chromium nodejs postgresql prometheus clang wrk check strace faketime python3 sqlite3
python3-authlib apache2-bin libapache2-mod-auth-openidc"

# --- make run on a box without anything ----------------------------------------
box run
deps run
check "issue27.1 run: exit status" "$?" 0
for p in $RUN_ONLY; do check "issue27.1 run installs $p" "$(has "$p")" yes; done
for p in $TEST_TOOLS; do check "issue27.1 run installs no $p" "$(has "$p")" no; done
check "issue27.1 run: every install has --no-install-recommends" \
	"$(grep '^install' "$FAKE/apt-get.log" | grep -vc -- --no-install-recommends)" 0
check "issue27.1 run: again, nothing to install" "$(deps run; echo "$?:$(grep -c '^install' "$FAKE/apt-get.log")")" 0:1

# --- make test on that box --------------------------------------------------------
deps test
check "issue27.1 test: exit status" "$?" 0
for p in chromium nodejs postgresql prometheus check strace faketime python3 sqlite3 openssl \
	python3-authlib python3-requests apache2-bin libapache2-mod-auth-openidc; do
	check "issue27.1 test installs $p" "$(has "$p")" yes
done
# the recipes' Apache is the server alone: the apache2 package (its service,
# /etc/apache2) is not installed
check "issue27.3 test installs no apache2 service package" "$(has apache2)" no
check "issue27.1 test: every install has --no-install-recommends" \
	"$(grep '^install' "$FAKE/apt-get.log" | grep -vc -- --no-install-recommends)" 0
check "issue27.1 test: no service started" "$(cat "$FAKE/started" 2> /dev/null)" ""
check "issue27.1 test: the enabled units are the box's own" "$(cat "$FAKE/enabled")" ssh.service
check "issue27.1 test: ssh.service left alone" "$(cat "$FAKE/systemctl.log" 2> /dev/null | grep -c ssh)" 0
check "issue27.1 test: no PostgreSQL cluster created" "$(cat "$FAKE/clusters" 2> /dev/null)" ""
check "issue27.1 test: no policy-rc.d left behind" "$(ls "$INSTALL_DEPS_ROOT/usr/sbin")" ""
check "issue27.1 test: no createcluster.d file left behind" \
	"$(ls "$INSTALL_DEPS_ROOT/etc/postgresql-common/createcluster.d" 2> /dev/null)" ""

# --- fuzz and bench ---------------------------------------------------------------
box fuzz
deps fuzz
check "issue27.1 fuzz installs clang" "$(has clang):$(has libclang-rt-14-dev):$(has chromium)" yes:yes:no
box bench
deps bench
check "issue27.1 bench installs wrk" "$(has wrk):$(has python3):$(has chromium)" yes:yes:no
check "issue30 bench installs python3-cryptography (the callgrind sign-in rows)" \
	"$(has python3-cryptography)" yes
check "issue27.1 bench: no service started" "$(cat "$FAKE/started" 2> /dev/null)" ""

# --- a box with its own policy-rc.d keeps it --------------------------------------
box policy
mkdir -p "$INSTALL_DEPS_ROOT/usr/sbin"
printf '#!/bin/sh\nexit 0\n' > "$INSTALL_DEPS_ROOT/usr/sbin/policy-rc.d"
chmod +x "$INSTALL_DEPS_ROOT/usr/sbin/policy-rc.d"
deps test
check "issue27.1 a box's policy-rc.d: no service started" "$(cat "$FAKE/started" 2> /dev/null)" ""
check "issue27.1 a box's policy-rc.d is put back" "$(cat "$INSTALL_DEPS_ROOT/usr/sbin/policy-rc.d")" \
	"$(printf '#!/bin/sh\nexit 0')"

# --- not root: the command, and nothing installed --------------------------------
box user
FAKE_UID=1000 deps run
check "issue27.1 not root: exit 1" "$?" 1
check "issue27.1 not root: says the command" \
	"$(grep -c 'apt-get install -y --no-install-recommends build-essential' "$FAKE/out")" 1
check "issue27.1 not root: nothing installed" "$(cat "$FAKE/apt-get.log" 2> /dev/null)" ""
finish
