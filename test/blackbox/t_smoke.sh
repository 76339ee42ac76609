# scripts/smoke.sh, the user's own happy path, passes against a fresh server,
# and fails when the credentials are wrong.
. "$(dirname "$0")/lib.sh"
start_server
"$ROOT/scripts/smoke.sh" "$PROJECT_ID" "$CLIENT_ID" "$CLIENT_SECRET" "$BASE" > "$TMP/smoke.out" 2>&1
check "smoke passes" "$?" 0
check "smoke ran every step" "$(grep -c ' ok' "$TMP/smoke.out")" 10
"$ROOT/scripts/smoke.sh" "$PROJECT_ID" "$CLIENT_ID" wrong "$BASE" > /dev/null 2>&1
check "smoke fails with a wrong secret" "$?" 1
finish
