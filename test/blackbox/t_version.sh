# issue27.2: edgeauth --version prints the version and the source commit it
# was built from (git describe, passed by the Makefile; "unknown" outside a
# git tree), and CHANGELOG.md starts with the work not yet released, its
# upgrade notes first (docs/operations.md §"The program").
. "$(dirname "$0")/lib.sh"
VERSION=$(sed -n 's/^#define EDGEAUTH_VERSION "\(.*\)"$/\1/p' "$ROOT/include/util/version.h")
OUT=$("$EDGEAUTH" --version)
check "issue27.2 --version: exit status" "$?" 0
check "issue27.2 --version: one line, version and commit" \
	"$(printf '%s\n' "$OUT" | sed -E 's/\(commit [^)]+\)$/(commit C)/')" "edgeauth $VERSION (commit C)"
COMMIT=$(printf '%s' "$OUT" | sed -nE 's/.*\(commit ([^)]+)\)$/\1/p')
check "issue27.2 -V is --version" "$("$EDGEAUTH" -V)" "$OUT"
if git -C "$ROOT" rev-parse --git-dir > /dev/null 2>&1; then
	check "issue27.2 --version names the tree's commit" "${COMMIT%-dirty}" \
		"$(git -C "$ROOT" describe --always)"
fi
# A tree that is no git work tree: the Makefile's define says unknown (a
# make of its own: not the variables of a make check that runs this file).
mkdir -p "$TMP/tree/src" "$TMP/tree/include"
cp "$ROOT/Makefile" "$TMP/tree/"
: > "$TMP/tree/src/main.c"
check "issue27.2 outside a git tree the commit is unknown" \
	"$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD -u BIN make -s -C "$TMP/tree" -n build/main.o 2> /dev/null | grep -o "EDGEAUTH_COMMIT='\"[^\"]*\"'")" \
	"EDGEAUTH_COMMIT='\"unknown\"'"
check "issue27.2 CHANGELOG.md: Unreleased first, its upgrade notes first" \
	"$(grep -m2 '^##' "$ROOT/CHANGELOG.md" | tr '\n' '|')" "## Unreleased|### Upgrade notes|"
finish
