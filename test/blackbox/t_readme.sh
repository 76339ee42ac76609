# issue27.readme: the README's quick start works as written. Its shell blocks are read from
# README.md and run against a server of the test, after `make run` (the first block): a first
# token and the admin client's name, a user and an app, then the sign-in page as a browser
# uses it (its form's hidden fields posted back with the user's email and password), then
# the code exchanged by the README's fourth block, then the console's first administrator made by
# the fifth with the CLI.
. "$(dirname "$0")/lib.sh"
start_server

# The README's ```sh blocks of the quick start, in order, one file each
awk -v dir="$TMP" '
	/^## Quick start/ { on = 1 } /^## / && !/^## Quick start/ { on = 0 }
	on && /^```sh$/ { n++; f = dir "/block" n ".sh"; printf "" > f; inb = 1; next }
	inb && /^```$/ { inb = 0; close(f); next }
	inb { print >> f }' "$ROOT/README.md"
check "issue27.readme the quick start has its five shell blocks" \
	"$(ls "$TMP"/block*.sh 2> /dev/null | wc -l):$(head -1 "$TMP/block1.sh")" "5:make run"

# where make run leaves the admin client: var/default-admin.json of the checkout
mkdir -p "$TMP/checkout/var"
cp "$TMP/stdout" "$TMP/checkout/var/default-admin.json"
cd "$TMP/checkout" || exit 1
sed "s|^BASE=http://127.0.0.1:8080\$|BASE=$BASE|" "$TMP/block2.sh" "$TMP/block3.sh" > "$TMP/steps.sh"
check "issue27.readme its BASE is the default listen address" "$(grep -c "^BASE=$BASE\$" "$TMP/steps.sh")" 1
cat >> "$TMP/steps.sh" <<'EOF'
printf '%s\n' "$APP" > app
printf '%s\n' "$VERIFIER" > verifier
EOF
OUT=$(bash -e "$TMP/steps.sh" 2> "$TMP/steps.err")
check "issue27.readme a first token, a user, an app and the sign-in URL" "$?" 0
check "issue27.readme the admin client's name" "$(sed -n 1p <<<"$OUT")" '"admin"'
URL=$(tail -1 <<<"$OUT")
check "issue27.readme the sign-in URL is the authorization endpoint's" \
	"$(grep -c "^$BASE/api/v1/authorize?response_type=code&client_id=$(cat app)&" <<<"$URL")" 1

# the browser: the page, then its form posted back
PAGE=$(curl -s "$URL")
FIELDS=()
while read -r name value; do
	FIELDS+=(--data-urlencode "$name=$value")
done < <(grep -o '<input type="hidden" name="[^"]*" value="[^"]*">' <<<"$PAGE" |
	sed -E 's/.*name="([^"]*)" value="([^"]*)".*/\1 \2/')
check "issue27.readme the sign-in page's form carries the request" "${#FIELDS[@]}" 12
LOC=$(curl -s -o /dev/null -w '%{redirect_url}' -H "Origin: $BASE" "${FIELDS[@]}" \
	--data-urlencode email=alice@example.com --data-urlencode 'password=correct horse' "$BASE/api/v1/authorize")
check "issue27.readme signed in: back at the app's redirect URI with a code" \
	"$(grep -cE '^http://127\.0\.0\.1:9/cb\?code=[^&]+&state=abc&' <<<"$LOC")" 1
CODE=$(sed -E 's/.*[?&]code=([^&]*).*/\1/' <<<"$LOC")

{
	printf 'BASE=%s APP=%s VERIFIER=%s\n' "$BASE" "$(cat app)" "$(cat verifier)"
	sed "s/code=CODE /code=$CODE /" "$TMP/block4.sh"
} > "$TMP/exchange.sh"
OUT=$(bash -e "$TMP/exchange.sh" 2>&1)
check "issue27.readme the code exchanged: an access and a refresh token" \
	"$(jq -r '[.token_type, (.access_token | length > 0), (.refresh_token | length > 0)] | join(" ")' <<<"$OUT")" \
	"Bearer true true"

# the console's first administrator, made on the box with the README's two commands (the
# password on stdin), then seen by the running server: the user holds a role
{
	printf 'PROJECT=%s\n' "$PROJECT_ID"
	printf 'edgeauth() { "$EDGEAUTH" -c "$CONF" "$@"; }\n'
	cat "$TMP/block5.sh"
} > "$TMP/admin.sh"
OUT=$(EDGEAUTH=$EDGEAUTH CONF=$CONF bash -e "$TMP/admin.sh" <<<'a long admin password' 2>&1)
check "issue27.readme the first administrator: both commands succeed" "$?" 0
ADMIN=$(curl -s -H "Authorization: Bearer $TOKEN" "$BASE$P/users?search=admin%40example.com")
check "issue27.readme the first administrator holds the admin role" \
	"$(jq -r '.data[0].email' <<<"$ADMIN") $(jq -r '.data[0].role_id != null' <<<"$ADMIN")" "admin@example.com true"
cd "$TMP" || exit 1
finish
