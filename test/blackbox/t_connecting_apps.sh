# issue27.3: docs/connecting-apps.md shows each recipe as the file the
# t_app_*.sh tests run: every file of docs/recipes/ is embedded once, after
# its <!-- recipe: recipes/FILE --> line, in a fenced block byte for byte
# equal to the file, and every such line names a file that exists. The
# same holds docs/forward-auth.md to the proxy configs
# t_forward_auth_proxies.sh runs (issue31.3): a recipe is in one of the two.
. "$(dirname "$0")/lib.sh"
DOCS=("$ROOT/docs/connecting-apps.md" "$ROOT/docs/forward-auth.md")

# embedded FILE: the fenced block after FILE's marker line in the doc DOC
embedded() {
	awk -v want="<!-- recipe: recipes/$1 -->" '
		$0 == want { getline; if ($0 !~ /^```[a-z]*$/) exit 1; on = 1; next }
		on && /^```$/ { exit }
		on { print }' "$DOC"
}
# the doc that embeds FILE (the first, when none does)
doc_of() {
	local d
	for d in "${DOCS[@]}"; do grep -qxF "<!-- recipe: recipes/$1 -->" "$d" && { echo "$d"; return; }; done
	echo "${DOCS[0]}"
}

for path in "$ROOT"/docs/recipes/*; do
	f=${path##*/}
	check "issue27.3 docs/connecting-apps.md or forward-auth.md embeds recipes/$f once" \
		"$(cat "${DOCS[@]}" | grep -cxF "<!-- recipe: recipes/$f -->")" 1
	DOC=$(doc_of "$f")
	embedded "$f" > "$TMP/copy"
	if cmp -s "$TMP/copy" "$path"; then pass
	else fail "issue27.3 the doc's copy of recipes/$f differs from the file: $(diff "$path" "$TMP/copy" | head -5)"; fi
done
while read -r f; do
	check "issue27.3 the doc's recipe line names an existing file: $f" "$([ -f "$ROOT/docs/$f" ] && echo yes)" yes
done < <(sed -n 's/^<!-- recipe: \(.*\) -->$/\1/p' "${DOCS[@]}")
finish
