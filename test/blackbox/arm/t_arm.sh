# issue 28, ARM: make deb ARCH=arm64 and ARCH=armhf cross-build in a build root of their own
# (scripts/cross-root) and leave the box's own build whole; the arm64 binary serves under
# qemu-user (/healthz, a client_credentials token whose signature checks, a password sign-in,
# a restart on the same store), and the unit suites, cross-built in the same root, pass under
# it. docs/operations.md "Building for ARM". Run by make test-arm64 (not make test: minutes
# of downloads, once, and of emulation), as root (mmdebstrap, chroot).
. "$(dirname "$0")/../lib.sh"
. "$BB_DIR/signin_lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	fail "issue28: t_arm needs root (the build root: mmdebstrap, chroot, mount)"
	finish; exit
fi
VERSION=$(sed -n 's/^## \([0-9][0-9.]*\) .*/\1/p' "$ROOT/CHANGELOG.md" | head -1)
NATIVE_DEV="libevent-dev libsqlite3-dev libargon2-dev libssl-dev libjansson-dev libinih-dev libpq-dev"
# native_state: the box's foreign architectures and its -dev packages, as dpkg has them
native_state() {
	echo "foreign: $(dpkg --print-foreign-architectures | sort | paste -sd' ')"
	dpkg-query -W -f='${db:Status-Abbrev} ${Package}:${Architecture}\n' $NATIVE_DEV
}
BEFORE=$(native_state)
# machine FILE: the ELF machine readelf names
machine() { readelf -h "$1" | sed -n 's/^ *Machine: *//p'; }

# --- issue28.6: make deb ARCH=arm64 and ARCH=armhf ------------------------------------------
OUT=$TMP/deb
declare -A WANT=([arm64]=AArch64 [armhf]=ARM)
for arch in arm64 armhf; do
	make -s --no-print-directory -C "$ROOT" deb ARCH=$arch DEB_OUT="$OUT" > "$TMP/deb-$arch.out" 2>&1
	check "issue28.6: make deb ARCH=$arch" "$?" 0
	DEB=$OUT/edgeauth_${VERSION}_$arch.deb
	if [ ! -f "$DEB" ]; then
		fail "issue28.6: no $DEB"; tail -20 "$TMP/deb-$arch.out" >&2; continue
	fi
	check "issue28.6: $arch: the package's Architecture" "$(dpkg-deb -f "$DEB" Architecture)" "$arch"
	dpkg-deb -x "$DEB" "$TMP/x-$arch"
	check "issue28.6: $arch: /usr/bin/edgeauth is built for it" "$(machine "$TMP/x-$arch/usr/bin/edgeauth")" "${WANT[$arch]}"
	check "issue28.6: $arch: Depends from its shared libraries" \
		"$(dpkg-deb -f "$DEB" Depends | grep -o 'libsqlite3-0\|libevent-2' | sort | tr '\n' ' ')" "libevent-2 libsqlite3-0 "
	check "issue28.6: $arch: lintian, no error" "$(grep -c '^E:' "$TMP/deb-$arch.out")" 0
	# (dh's and dpkg-architecture's warnings of a cross build without nocheck or CC)
	check "issue28.6: $arch: dpkg-buildpackage warns of nothing" "$(grep -ci 'warning' "$OUT/build.log")" 0
done
check "issue28.6: armhf: hard float (the VFP registers carry arguments)" \
	"$(readelf -A "$TMP/x-armhf/usr/bin/edgeauth" 2> /dev/null | grep -c 'Tag_ABI_VFP_args: VFP registers')" 1

# --- issue28.7: the box's own build, untouched ---------------------------------------------------
check "issue28.7: the box's architectures and -dev packages as before (dpkg -l)" "$(native_state)" "$BEFORE"
check "issue28.7: every -dev package still installed for the box" \
	"$(native_state | grep -c "^ii  lib.*-dev:$(dpkg --print-architecture)$")" "$(wc -w <<<"$NATIVE_DEV")"
make -s --no-print-directory -C "$ROOT" -j2 BUILD="$TMP/native" BIN="$TMP/native/edgeauth" \
	"$TMP/native/edgeauth" > "$TMP/native.out" 2>&1
check "issue28.7: the native make after the cross builds" "$?" 0
check "issue28.7: ... builds for the box" "$(machine "$TMP/native/edgeauth" 2> /dev/null)" \
	"$(machine "$(command -v dpkg)")"
check "issue28.7: ... and runs" "$("$TMP/native/edgeauth" --version 2>&1 | cut -d' ' -f1)" edgeauth

# --- issue28.8: the arm64 binary under qemu-user -----------------------------------------------
R64=$TMP/root64
"$ROOT/scripts/cross-root" arm64 extract "$R64"
QEMU=(qemu-aarch64-static -L "$R64")
BIN64=$TMP/x-arm64/usr/bin/edgeauth
check "issue28.8: --version under qemu-aarch64" "$("${QEMU[@]}" "$BIN64" --version 2>&1 | cut -d' ' -f2)" "$VERSION"
PORT=$(free_port)
BASE=http://127.0.0.1:$PORT
P=
# serve64: the arm64 binary on the test's store and port, once it answers /healthz
# (emulation is slow: waited for, up to ten minutes, while it runs)
serve64() {
	write_config "$TMP/edgeauth.conf" "$PORT"
	"${QEMU[@]}" "$BIN64" -c "$TMP/edgeauth.conf" serve > "$TMP/stdout" 2>> "$TMP/server.log" &
	SERVER_PID=$!
	local t0=$SECONDS
	until curl -s -o /dev/null "$BASE/healthz"; do
		kill -0 "$SERVER_PID" 2> /dev/null && [ $((SECONDS - t0)) -lt 600 ] || break
		sleep 0.2
	done
}
serve64
AUTH=none req GET /healthz
check_status "issue28.8: arm64 under qemu: /healthz" 200
PROJECT_ID=$(jq -r .project_id "$TMP/stdout")
CLIENT_ID=$(jq -r .client_id "$TMP/stdout")
CLIENT_SECRET=$(jq -r .client_secret "$TMP/stdout")
P="/api/v1/projects/$PROJECT_ID"
TOKEN=$(admin_token)
# es256_ok TOKEN: the token's ES256 signature checks against the server's JWKS (its kid)
es256_ok() {
	curl -s "$BASE/.well-known/jwks.json" > "$TMP/jwks.json"
	python3 - "$1" "$TMP/jwks.json" <<'PY'
import base64, json, sys
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, utils
b64 = lambda s: base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
head, body, sig = sys.argv[1].split(".")
hdr = json.loads(b64(head))
key = next(k for k in json.load(open(sys.argv[2]))["keys"] if k["kid"] == hdr["kid"])
pub = ec.EllipticCurvePublicNumbers(int.from_bytes(b64(key["x"]), "big"),
                                    int.from_bytes(b64(key["y"]), "big"), ec.SECP256R1()).public_key()
raw = b64(sig)
der = utils.encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
pub.verify(der, (head + "." + body).encode(), ec.ECDSA(hashes.SHA256()))
print(hdr["alg"], "ok")
PY
}
check "issue28.8: arm64: a client_credentials token, its ES256 signature checked" "$(es256_ok "$TOKEN" 2>&1)" "ES256 ok"
check "issue28.8: arm64: its iss, and exp after iat" \
	"$(jwt_claim "$TOKEN" 'iss + " " + ((.exp > .iat)|tostring)')" "$BASE true"
rita_and_app
signed_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
check "issue28.8: arm64: a password sign-in and its code exchanged" "$(jwt_claim "$ACCESS" sub)" "$USER"
stop_server
serve64
AUTH=none req GET /healthz
check_status "issue28.8: arm64: restarted on the same store" 200
TOKEN=$(admin_token)
check "issue28.8: arm64, restarted: the same client gets a token" "$(es256_ok "$TOKEN" 2>&1)" "ES256 ok"
signed_in "$APP" "$REDIRECT" "$EMAIL" "$PASSWORD"
check "issue28.8: arm64, restarted: the same user signs in" "$(jwt_claim "$ACCESS" sub)" "$USER"
stop_server

# --- issue28.9: the unit suites, cross-built in the same root, under qemu-user -----------------
SRC=$TMP/src
mkdir -p "$SRC"
(cd "$ROOT" && cp -r Makefile src include schema scripts test etc docs "$SRC"/)
rm -rf "$SRC/build"
SUITES=$(cd "$ROOT" && ls test/unit/check_*.c | sed 's|^test/unit/\(.*\)\.c$|build/test/\1|')
# shellcheck disable=SC2086
"$ROOT/scripts/cross-root" arm64 run "$SRC" make -j2 CC=aarch64-linux-gnu-gcc \
	PKG_CONFIG=aarch64-linux-gnu-pkg-config $SUITES > "$TMP/unit-build.out" 2>&1
check "issue28.9: the unit suites cross-built for arm64" "$?" 0
# unit64 SUITE: one suite under qemu-aarch64 (QEMU_LD_PREFIX: -L), its output in $TMP/unit/SUITE.out and exit status
# in .rc. Check's per-test timeouts guard against a hang, not for speed: emulation is slow.
unit64() {
	(cd "$SRC" && CK_TIMEOUT_MULTIPLIER=100 qemu-aarch64-static "$1") > "$TMP/unit/$(basename "$1").out" 2>&1
	echo $? > "$TMP/unit/$(basename "$1").rc"
}
mkdir -p "$TMP/unit"
# twice the CPUs at once, as scripts/run-tests runs the native suites
export -f unit64; export SRC TMP QEMU_LD_PREFIX=$R64
# shellcheck disable=SC2086
printf '%s\n' $SUITES | xargs -r -P "$(( $(nproc) * 2 ))" -I{} bash -c 'unit64 {}'
for s in $SUITES; do
	n=$(basename "$s")
	summary=$(grep -E '^[0-9]+%: Checks: [0-9]+' "$TMP/unit/$n.out" 2> /dev/null | tail -1)
	check "issue28.9: $n under qemu-aarch64: ${summary:-no summary}" \
		"$(cat "$TMP/unit/$n.rc" 2> /dev/null):$(sed -E 's/.*Failures: ([0-9]+), Errors: ([0-9]+).*/\1 \2/' <<<"${summary:-x 1 1}")" "0:0 0"
	grep -E ':[EF]:' "$TMP/unit/$n.out" | head -5 >&2
done
finish
