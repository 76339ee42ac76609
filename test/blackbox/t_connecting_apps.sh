# issue27.3: docs/connecting-apps.md shows each recipe as the file the
# t_app_*.sh tests run: every file of docs/recipes/ is embedded once, after
# its <!-- recipe: recipes/FILE --> line, in a fenced block byte for byte
# equal to the file, and every such line names a file that exists.
. "$(dirname "$0")/lib.sh"
DOC=$ROOT/docs/connecting-apps.md

# embedded FILE: the fenced block after FILE's marker line in the doc
embedded() {
	awk -v want="<!-- recipe: recipes/$1 -->" '
		$0 == want { getline; if ($0 !~ /^```[a-z]*$/) exit 1; on = 1; next }
		on && /^```$/ { exit }
		on { print }' "$DOC"
}

for path in "$ROOT"/docs/recipes/*; do
	f=${path##*/}
	check "issue27.3 docs/connecting-apps.md embeds recipes/$f once" \
		"$(grep -cxF "<!-- recipe: recipes/$f -->" "$DOC")" 1
	embedded "$f" > "$TMP/copy"
	if cmp -s "$TMP/copy" "$path"; then pass
	else fail "issue27.3 the doc's copy of recipes/$f differs from the file: $(diff "$path" "$TMP/copy" | head -5)"; fi
done
while read -r f; do
	check "issue27.3 the doc's recipe line names an existing file: $f" "$([ -f "$ROOT/docs/$f" ] && echo yes)" yes
done < <(sed -n 's/^<!-- recipe: \(.*\) -->$/\1/p' "$DOC")
finish
