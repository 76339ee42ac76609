# issue27.3: a relative path in the config (store, signing key, key-encryption
# key, TLS pair, audit file) is taken relative to the config file's
# directory, never to the directory a command runs in (docs/operations.md
# §"Configuration"): a CLI command run elsewhere opens the server's own
# store and key files and creates none where it runs.
. "$(dirname "$0")/lib.sh"
RELATIVE=(tokens.signing_key=signing-key.pem tokens.key_encryption_key_file=./key-encryption.key
	audit.file=audit.jsonl)
# on PostgreSQL the store is the test's database, and path is not read
[ "$BACKEND" = sqlite ] && RELATIVE+=(store.path=edgeauth.db)
mkdir -p "$TMP/server" "$TMP/elsewhere"
cd "$TMP/server" || exit 1   # the server runs somewhere else again
start_server "${RELATIVE[@]}"
FILES="key-encryption.key audit.jsonl${RELATIVE[3]:+ edgeauth.db}"
check "issue27.3 the server made its files beside its config" \
	"$(cd "$TMP" && ls $FILES 2> /dev/null | tr '\n' ' ')" "$(printf '%s ' $FILES | tr ' ' '\n' | sort | tr '\n' ' ')"
check "issue27.3 nothing made where the server runs" "$(ls -A "$TMP/server")" ""
KEYS_BEFORE=$(db "SELECT COUNT(*) FROM signing_keys")

# key rotate from another directory, the config named by its absolute path
cd "$TMP/elsewhere" || exit 1
"$EDGEAUTH" -c "$CONF" key rotate --alg ES256 > "$TMP/rotate.out" 2> "$TMP/rotate.err"
check "issue27.3 key rotate from elsewhere: exit status" "$?:$(cat "$TMP/rotate.err")" "0:"
check "issue27.3 key rotate from elsewhere: one more key in the server's store" \
	"$(db "SELECT COUNT(*) FROM signing_keys")" "$((KEYS_BEFORE + 1))"
NEW_KID=$(jq -r '.[0].kid // .kid' "$TMP/rotate.out" 2> /dev/null)
AUTH=none req GET /.well-known/jwks.json
check "issue27.3 the running server publishes the rotated key" \
	"$(printf '%s' "$BODY" | jq --arg k "$NEW_KID" '[.keys[].kid] | index($k) != null')" true
# ... and by a relative path
"$EDGEAUTH" -c ../edgeauth.conf key list > "$TMP/list.out" 2> "$TMP/list.err"
check "issue27.3 key list by a relative -c lists the rotated key" \
	"$(jq --arg k "$NEW_KID" '[.[].kid] | index($k) != null' "$TMP/list.out")" true
check "issue27.3 no file made in the directory the commands ran in" "$(ls -A "$TMP/elsewhere")" ""
cd "$TMP" || exit 1
finish
