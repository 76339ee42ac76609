# run.sh: early
# issue 28: the Makefile's $(PKG_CONFIG) and $(CC), and the Debian package of make deb
# (docs/operations.md "The Debian package"): built with debhelper from etc/debian/ in a
# copy of the tree, lintian without error, its contents and control fields read with
# dpkg-deb, and its binary, extracted, serving a token on the packaged config moved to
# temporary paths. (Installing it in a throw-away root: see the end of this file.)
. "$(dirname "$0")/lib.sh"

# --- issue28.1: $(PKG_CONFIG) and $(CC) ------------------------------------------------
mkdir -p "$TMP/bin"
printf '#!/bin/sh\necho -DEA_FAKE_PKG_CONFIG\n' > "$TMP/bin/fake-pkg-config"
chmod +x "$TMP/bin/fake-pkg-config"
OUT=$(make -n -B --no-print-directory -C "$ROOT" PKG_CONFIG="$TMP/bin/fake-pkg-config" \
	CC=fake-cc BUILD="$TMP/mk" "$TMP/mk/main.o" 2>&1)
check "issue28.1: make PKG_CONFIG=... takes the flags from it" \
	"$(grep -c '^fake-cc .*-DEA_FAKE_PKG_CONFIG' <<<"$OUT")" 1
check "issue28.1: and CC=... compiles" "$(grep -c '^cc ' <<<"$OUT")" 0

# --- issue28.2: make deb ---------------------------------------------------------------
VERSION=$(sed -n 's/^## \([0-9][0-9.]*\) .*/\1/p' "$ROOT/CHANGELOG.md" | head -1)
ARCH=$(dpkg --print-architecture)
OUTDIR=$TMP/deb
make -s --no-print-directory -C "$ROOT" deb DEB_OUT="$OUTDIR" > "$TMP/deb.out" 2>&1
check "issue28.2: make deb" "$?" 0
DEB=$OUTDIR/edgeauth_${VERSION}_$ARCH.deb
check "issue28.2: edgeauth_${VERSION}_$ARCH.deb, the version of CHANGELOG.md" "$([ -f "$DEB" ] && echo built)" built
[ -f "$DEB" ] || { cat "$TMP/deb.out" >&2; finish; exit 1; }
check "issue28.2: the tree has no debian/ directory" "$([ -e "$ROOT/debian" ] && echo yes)" ""

# --- issue28.3: lintian ---------------------------------------------------------------
lintian --fail-on error "$DEB" > "$TMP/lintian.out" 2>&1
check "issue28.3: lintian: no error" "$?:$(grep -c '^E:' "$TMP/lintian.out")" 0:0

# --- issue28.4: what it holds ------------------------------------------------------------
LIST=$(dpkg-deb -c "$DEB" | awk '{ print $1 " " $6 }')
for f in "-rwxr-xr-x ./usr/bin/edgeauth" "-rw-r--r-- ./etc/edgeauth/edgeauth.conf" \
	"-rw-r--r-- ./lib/systemd/system/edgeauth.service" "-rw-r--r-- ./usr/lib/sysusers.d/edgeauth.conf" \
	"-rw-r--r-- ./usr/share/man/man8/edgeauth.8.gz" "-rw-r--r-- ./usr/share/doc/edgeauth/copyright" \
	"-rw-r--r-- ./usr/share/doc/edgeauth/README.md" "-rw-r--r-- ./usr/share/doc/edgeauth/CHANGELOG.md" \
	"-rw-r--r-- ./usr/share/doc/edgeauth/docs/operations.md"; do
	check "issue28.4: holds $f" "$(grep -cxF -- "$f" <<<"$LIST")" 1
done
check "issue28.4: nothing under /usr/local" "$(grep -c '/usr/local' <<<"$LIST")" 0
field() { dpkg-deb -f "$DEB" "$1"; }
check "issue28.4: the config is a conffile" "$(dpkg-deb -I "$DEB" conffiles)" /etc/edgeauth/edgeauth.conf
check "issue28.4: Depends from the shared libraries (libsqlite3-0, libevent)" \
	"$(field Depends | grep -o 'libsqlite3-0\|libevent-2' | sort | tr '\n' ' ')" "libevent-2 libsqlite3-0 "
check "issue28.4: Depends: no -dev package, no libpq" "$(field Depends | grep -c -- '-dev\|libpq')" 0
check "issue28.4: Recommends libpq5 (loaded only for the PostgreSQL store)" "$(field Recommends)" libpq5
POSTINST=$(dpkg-deb -I "$DEB" postinst)
check "issue28.4: postinst creates the user (systemd-sysusers), enables and starts the unit" \
	"$(grep -c 'systemd-sysusers .*edgeauth.conf' <<<"$POSTINST"):$(grep -c "deb-systemd-helper enable 'edgeauth.service'" <<<"$POSTINST"):$(grep -c "_dh_action=start" <<<"$POSTINST")" 1:1:1
# the man page: a page man reads, naming the config file and every command of --help
X=$TMP/x
dpkg-deb -x "$DEB" "$X"
MAN=$(LC_ALL=C MANWIDTH=200 man -l "$X/usr/share/man/man8/edgeauth.8.gz" 2> "$TMP/man.err")
check "issue28.4: man edgeauth: no warning" "$(cat "$TMP/man.err")" ""
check "issue28.4: man edgeauth: FILES names /etc/edgeauth/edgeauth.conf" \
	"$(sed -n '/^FILES/,/^[A-Z]/p' <<<"$MAN" | grep -c '/etc/edgeauth/edgeauth.conf')" 1
for cmd in $("$X/usr/bin/edgeauth" --help | sed -n 's/^ *\(usage: \)\{0,1\}edgeauth \(\[-c FILE\] \)\{0,1\}\([a-z][a-z-]*\).*/\3/p' | sort -u); do
	check "issue28.4: man edgeauth: the command $cmd" "$(grep -cE "^ +$cmd( |$)" <<<"$MAN" | sed 's/^[1-9][0-9]*$/yes/')" yes
done

# --- issue28.4: the packaged binary, extracted ---------------------------------------------
check "issue28.4: the packaged binary's default config is /etc/edgeauth/edgeauth.conf" \
	"$(env -u EDGEAUTH_CONFIG "$X/usr/bin/edgeauth" --help | tail -1)" \
	"config in force: /etc/edgeauth/edgeauth.conf (compiled in)"
check "issue28.4: its version is the package's" "$("$X/usr/bin/edgeauth" --version | cut -d' ' -f2)" "$VERSION"
PORT=$(free_port)
MPORT=$(free_port)
mkdir -p "$TMP/state"
sed -e "s|127.0.0.1:8080|127.0.0.1:$PORT|" -e "s|127.0.0.1:9464|127.0.0.1:$MPORT|" \
	-e "s|/var/lib/edgeauth/|$TMP/state/|" "$X/etc/edgeauth/edgeauth.conf" > "$TMP/pkg.conf"
check "issue28.4: the packaged config's paths are the state directory's" \
	"$(grep -cE "^(path|signing_key|key_encryption_key_file) = $TMP/state/" "$TMP/pkg.conf")" 3
BASE=http://127.0.0.1:$PORT
JOURNAL_STREAM=8:1 "$X/usr/bin/edgeauth" -c "$TMP/pkg.conf" serve > /dev/null 2> "$TMP/server.log" &
SERVER_PID=$!
for _ in $(seq 1 600); do curl -s -o /dev/null "$BASE/healthz" && break; sleep 0.05; done
ADMIN=$TMP/state/default-admin.json
check "issue28.4: the first admin client in the state directory" "$(jq -r '.client_secret | length > 20' "$ADMIN")" true
T=$(client_token "$(jq -r .client_id "$ADMIN")" "$(jq -r .client_secret "$ADMIN")")
check "issue28.4: the packaged binary on the packaged config serves a token" "$(grep -c '^[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$' <<<"$T")" 1
stop_server

# --- issue28.5: installed in a throw-away root ------------------------------------------------
# A root made by mmdebstrap from the box's apt sources (Debian 12 and systemd, for
# systemd-sysusers and deb-systemd-helper), entered with chroot: root only. The unit is not
# started by systemd there (no systemd runs in a chroot); the binary is started as the unit
# would (its user, the default config, the state directory), the same way after an upgrade
# and after a removal.
if [ "$(id -u)" -ne 0 ] || ! command -v mmdebstrap > /dev/null; then
	echo "t_deb: issue28.5 not run: a throw-away root needs root (chroot) and mmdebstrap" >&2
	finish; exit
fi
R=$TMP/root
# (the root's /proc unmounted before anything removes the root, or finish removes $TMP)
cleanup_root() { umount "$R/proc" 2> /dev/null; mountpoint -q "$R/proc" || rm -rf "$R"; }
trap 'stop_server; cleanup_root' EXIT
mkdir -p "$TMP/pkg"
cp "$DEB" "$TMP/pkg/edgeauth.deb"
# the same package rebuilt as a later version: what an upgrade installs
dpkg-deb -R "$DEB" "$TMP/up"
sed -i "s/^Version: .*/Version: $VERSION+1/" "$TMP/up/DEBIAN/control"
dpkg-deb -b "$TMP/up" "$TMP/pkg/edgeauth-up.deb" > /dev/null
mmdebstrap --variant=apt --include=systemd bookworm "$R" > "$TMP/mmdebstrap.log" 2>&1
check "issue28.5: mmdebstrap makes a root" "$?" 0
[ -x "$R/usr/bin/systemd-sysusers" ] || { tail -5 "$TMP/mmdebstrap.log" >&2; cleanup_root; finish; exit 1; }
cp -r "$TMP/pkg" "$R/tmp/pkg"
mount -t proc proc "$R/proc"
in_root() { chroot "$R" "$@"; }
# (mmdebstrap leaves no package lists behind)
in_root apt-get update -q > "$TMP/apt.log" 2>&1
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q /tmp/pkg/edgeauth.deb >> "$TMP/apt.log" 2>&1
check "issue28.5: apt-get install ./edgeauth.deb, its Depends from the archive" "$?" 0
check "issue28.5: the user edgeauth" "$(cut -d: -f1 "$R/etc/passwd" | grep -cx edgeauth)" 1
check "issue28.5: the unit enabled" \
	"$(readlink "$R/etc/systemd/system/multi-user.target.wants/edgeauth.service")" /lib/systemd/system/edgeauth.service
check "issue28.5: libpq5 came along (Recommends)" "$(in_root dpkg-query -W -f='${Status}' libpq5)" "install ok installed"
# the operator's edit of the conffile: this test's ports
sed -i -e "s|127.0.0.1:8080|127.0.0.1:$PORT|" -e "s|127.0.0.1:9464|127.0.0.1:$MPORT|" "$R/etc/edgeauth/edgeauth.conf"
# serve_in_root: edgeauth as the unit starts it (StateDirectory=, User=, the journal on stdout)
serve_in_root() {
	install -d -m 0700 -o "$(in_root id -u edgeauth)" -g "$(in_root id -g edgeauth)" "$R/var/lib/edgeauth"
	JOURNAL_STREAM=8:1 chroot --userspec=edgeauth:edgeauth "$R" /bin/sh -c \
		'cd /var/lib/edgeauth && exec /usr/bin/edgeauth serve' > /dev/null 2>> "$TMP/server.log" &
	SERVER_PID=$!
	for _ in $(seq 1 600); do curl -s -o /dev/null "$BASE/healthz" && break; sleep 0.05; done
}
serve_in_root
ADMIN=$R/var/lib/edgeauth/default-admin.json
ID=$(jq -r .client_id "$ADMIN")
SECRET=$(jq -r .client_secret "$ADMIN")
check "issue28.5: installed: a token for the first admin client" \
	"$(client_token "$ID" "$SECRET" | grep -c '^[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$')" 1
check "issue28.5: the store is the edgeauth user's" "$(stat -c %u "$R/var/lib/edgeauth/edgeauth.db")" "$(in_root id -u edgeauth)"
stop_server
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q /tmp/pkg/edgeauth-up.deb >> "$TMP/apt.log" 2>&1
check "issue28.5: the upgrade to $VERSION+1" "$?:$(in_root dpkg-query -W -f='${Version}' edgeauth)" "0:$VERSION+1"
check "issue28.5: the upgrade keeps the edited config" "$(grep -c "^listen = 127.0.0.1:$PORT$" "$R/etc/edgeauth/edgeauth.conf")" 1
serve_in_root
check "issue28.5: upgraded: the store kept, the same client gets a token" \
	"$(client_token "$ID" "$SECRET" | grep -c '^[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$')" 1
stop_server
in_root env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q edgeauth >> "$TMP/apt.log" 2>&1
check "issue28.5: removed: the binary gone, the store and the config kept" \
	"$([ -e "$R/usr/bin/edgeauth" ] && echo bin)$([ -s "$R/var/lib/edgeauth/edgeauth.db" ] && echo store)$([ -f "$R/etc/edgeauth/edgeauth.conf" ] && echo conf)" storeconf
cleanup_root
finish
