# issue27.docs: the documentation holds together. scripts/check-docs: README.md at most
# 12,288 bytes, every relative link of README.md and docs/ resolves to a file and its #anchor
# to a heading (GitHub's slugs), every README "X" / docs/page.md "X" citation of the code and
# tests names a heading; scripts/check-config-doc: docs/configuration.md documents every key
# the binary knows, with its default, and no other (docs/development.md "Tests").
# Each check is also shown to fail on a copy with a fault planted in it.
. "$(dirname "$0")/lib.sh"

# the repository as it is
OUT=$("$ROOT/scripts/check-docs" "$ROOT" 2>&1)
check "issue27.docs the repository's links and citations resolve" "$?" 0
[ -z "$OUT" ] || echo "$OUT" >&2
OUT=$("$ROOT/scripts/check-config-doc" "$EDGEAUTH" "$ROOT/docs/configuration.md" 2>&1)
check "issue27.docs docs/configuration.md is the binary's config table" "$?" 0
[ -z "$OUT" ] || echo "$OUT" >&2

# A copy of the docs and a source file, fine as it is (docs/connecting-apps.md, another part's
# page, is given a stand-in if this tree has none yet), then a fault planted in it at a time.
fresh() {
	rm -rf "$TMP/tree"
	mkdir -p "$TMP/tree/src" "$TMP/tree/scripts"
	cp -r "$ROOT/README.md" "$ROOT/CHANGELOG.md" "$ROOT/LICENSE" "$ROOT/docs" "$TMP/tree/"
	cp "$ROOT/scripts/check-docs" "$TMP/tree/scripts/"
	[ -e "$TMP/tree/docs/connecting-apps.md" ] || printf '# Connecting apps\n' > "$TMP/tree/docs/connecting-apps.md"
	cat > "$TMP/tree/src/x.c" <<-'EOF'
	/* a citation over two lines (docs/decisions.md
	 * "Reactivation revives nothing"), one of two sections (docs/tokens.md §"Limits",
	 * §"Refresh grace"), and one in a C string: */
	static const char *s = "see docs/operations.md \"Running a fleet\"";
	EOF
}
docs() { "$TMP/tree/scripts/check-docs" "$TMP/tree" 2>&1; }
# expect_fault NAME PATTERN [CHECKER]: the checker (docs by default) fails, with a line naming
# the planted fault
expect_fault() {
	local out
	out=$(${3:-docs})
	check "$1" "$?:$(printf '%s' "$out" | grep -c -e "$2")" 1:1
}

fresh
OUT=$(docs)
check "issue27.docs a fresh copy passes" "$?:$OUT" "0:"

fresh
printf '\nSee [the missing page](docs/missing.md).\n' >> "$TMP/tree/README.md"
expect_fault "issue27.docs a link to a missing file fails, naming it" \
	'README.md:.*docs/missing.md'

fresh
printf '\nSee [limits](tokens.md#no-such-heading).\n' >> "$TMP/tree/docs/api.md"
expect_fault "issue27.docs a link to a missing #anchor fails, naming it" \
	'docs/api.md:.*tokens.md#no-such-heading'

fresh
printf '\nSee [below](#no-such-heading-here).\n' >> "$TMP/tree/docs/security.md"
expect_fault "issue27.docs a link to a missing anchor of the same page fails" \
	'docs/security.md:.*#no-such-heading-here'

fresh
printf '\n## Limits\n\nAgain.\n\n[the second](#limits-1), [the first](#limits).\n' >> "$TMP/tree/docs/tokens.md"
OUT=$(docs)
check "issue27.docs a repeated heading's anchor is slug-1, as on GitHub" "$?:$OUT" "0:"

fresh
printf '\n```\n[in code](nowhere.md) is no link\n```\nNor is `[this](nowhere.md)`.\n' >> "$TMP/tree/docs/api.md"
OUT=$(docs)
check "issue27.docs links in code are not links" "$?:$OUT" "0:"

fresh
printf '/* see docs/tokens.md "No such section" */\n' >> "$TMP/tree/src/x.c"
expect_fault "issue27.docs a citation of a missing section fails, naming it" \
	'src/x.c:5: cites docs/tokens.md "No such section"'

fresh
printf '/* moved away (README\n * "Refresh grace") */\n' >> "$TMP/tree/src/x.c"
expect_fault "issue27.docs a citation of a README section that moved fails, over two lines too" \
	'cites README.md "Refresh grace"'

fresh
printf '/* (docs/tokens.md §"Limits", §"Nowhere") */\n' >> "$TMP/tree/src/x.c"
expect_fault "issue27.docs the second section of a citation is checked too" \
	'cites docs/tokens.md "Nowhere"'

fresh
printf '/* docs/nowhere.md "Anything" */\n' >> "$TMP/tree/src/x.c"
expect_fault "issue27.docs a citation of a missing page fails" \
	'cites docs/nowhere.md'

fresh
head -c 12289 /dev/zero | tr '\0' x >> "$TMP/tree/README.md"
expect_fault "issue27.docs a README over 12,288 bytes fails" \
	'^README.md: .* bytes, more than 12288'

# docs/configuration.md against the binary's keys
cfgdoc() { "$ROOT/scripts/check-config-doc" "$EDGEAUTH" "$TMP/conf.md" 2>&1; }
grep -v '^| `\[tokens\] code_ttl_s`' "$ROOT/docs/configuration.md" > "$TMP/conf.md"
expect_fault "issue27.docs a key missing from docs/configuration.md fails, naming it" \
	'\[tokens\] code_ttl_s is missing (default "60")' cfgdoc
sed 's/^| `\[tokens\] access_ttl_s` | `900` |/| `[tokens] access_ttl_s` | `600` |/' \
	"$ROOT/docs/configuration.md" > "$TMP/conf.md"
expect_fault "issue27.docs a wrong default fails, naming both" \
	'access_ttl_s: documented default "600", the binary.s "900"' cfgdoc
{ cat "$ROOT/docs/configuration.md"; printf '| `[tokens] no_such_key` | `1` | nothing |\n'; } > "$TMP/conf.md"
expect_fault "issue27.docs a documented key the binary does not know fails" \
	'\[tokens\] no_such_key is documented but the binary knows no such key' cfgdoc
sed 's/^| `\[server\] cors_origins` | empty |/| `[server] cors_origins` | none |/' \
	"$ROOT/docs/configuration.md" > "$TMP/conf.md"
expect_fault "issue27.docs a default neither quoted nor empty fails" \
	'cors_origins: the default "none"' cfgdoc
finish
