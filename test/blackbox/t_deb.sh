# issue 28: the Makefile's $(PKG_CONFIG) and $(CC), which a cross build names.
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

finish
