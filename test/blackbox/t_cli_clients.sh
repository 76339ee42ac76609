#!/usr/bin/env bash
# issue27.cli: `edgeauth client ...` (docs/commands.md) beside a running
# server, on either backend: each command's happy path, its failures (exit
# 1, "edgeauth: <code>: <sentence>", the API's code for the same fault) and
# usage errors (exit 2); the server sees each change at its next request (a
# rotated secret's old one refused, a disabled client's grant and tokens
# refused); every write is an event of actor cli; a secret is printed once
# and reaches no log, event or audit line.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cli_lib.sh"
TEST_NAME=t_cli_clients
start_server "audit.file=$TMP/audit.jsonl"

# grant ID SECRET: a client_credentials grant; sets STATUS, BODY
grant() {
	STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -u "$1:$2" -d grant_type=client_credentials \
		"$BASE/api/v1/tokens")
	BODY=$(< "$TMP/body")
}
grant_is() { grant "$1" "$2"; [ "$STATUS" = "$3" ]; }

# ---- client add ----
run client add --project "$PROJECT_ID" --name svc --permission users:read --auth-method client_secret_basic \
	--redirect-uri http://127.0.0.1:9/cb --redirect-uri https://app.example/cb
check_ok "issue27.cli client add"
check "issue27.cli client add: the record and its secret" \
	"$(jq -r '[.name, .is_active, .token_endpoint_auth_method, (.redirect_uris | join(",")), (.permission_ids | length), (.client_secret | length)] | @tsv' <<<"$OUT")" \
	"svc	true	client_secret_basic	http://127.0.0.1:9/cb,https://app.example/cb	1	43"
SVC=$(jq -r .id <<<"$OUT"); SECRET1=$(jq -r .client_secret <<<"$OUT")
grant "$SVC" "$SECRET1"
check "issue27.cli the new client gets a token at once" "$STATUS $(jq -r .scope <<<"$BODY")" "200 users:read"
SVC_TOKEN=$(jq -r .access_token <<<"$BODY")
run client add --project "$PROJECT_ID" --name public
check "issue27.cli client add: none by default" "$(jq -r .token_endpoint_auth_method <<<"$OUT")" none
run client add --project "$PROJECT_ID" --name bad --redirect-uri ftp://x/cb
check_fail "issue27.cli client add: a bad redirect URI" invalid_params
run client add --project "$PROJECT_ID" --name bad --auth-method private_key_jwt
check_fail "issue27.cli client add: an unknown auth method" invalid_params
run client add --project "$PROJECT_ID" --name bad --permission users:frob
check_fail "issue27.cli client add: an unknown permission" some_permissions_not_found
run client add --project nope --name bad
check_fail "issue27.cli client add: no such project" project_not_found
run client add --project "$PROJECT_ID"
check_usage "issue27.cli client add without --name" "--name is required" "client add"
run client add --project "$PROJECT_ID" --name a --name b
check_usage "issue27.cli client add: --name twice" "--name is given twice" "client add"
run client add --project "$PROJECT_ID" --name a --auth-method
check_usage "issue27.cli client add: an option without its value" "--auth-method needs a value" \
	"client add"

# ---- list ----
run client list --project "$PROJECT_ID"
check "issue27.cli client list: an array, oldest first" "$(jq -r '[.[].name] | join(" ")' <<<"$OUT")" \
	"admin svc public"

# ---- rotate-secret: the old secret stops at the next request ----
run client rotate-secret --project "$PROJECT_ID" svc
check_ok "issue27.cli client rotate-secret by name"
check "issue27.cli rotate-secret: the client and a new secret" \
	"$(jq -r '[.client_id, (.client_secret | length)] | @tsv' <<<"$OUT")" "$SVC	43"
SECRET2=$(jq -r .client_secret <<<"$OUT")
settled grant_is "$SVC" "$SECRET1" 401
grant "$SVC" "$SECRET1"
check "issue27.cli rotated: the old secret refused" "$STATUS $(jq -r .error <<<"$BODY")" \
	"401 invalid_client_credentials"
grant "$SVC" "$SECRET2"
check "issue27.cli rotated: the new secret works" "$STATUS" 200
run client rotate-secret --project "$PROJECT_ID" nope
check_fail "issue27.cli rotate-secret: no such client" client_not_found
run client add --project "$PROJECT_ID" --name svc
run client rotate-secret --project "$PROJECT_ID" svc
check_fail "issue27.cli rotate-secret: a name two clients share" invalid_params
run client rotate-secret --project "$PROJECT_ID"
check_usage "issue27.cli rotate-secret without CLIENT" "CLIENT is required" "client rotate-secret"

# ---- disable, enable ----
run client disable --project "$PROJECT_ID" -- "$SVC"
check "issue27.cli client disable" "$RC $(jq -r .is_active <<<"$OUT")" "0 false"
token_refused() { AUTH="Bearer $SVC_TOKEN" req GET "$P/users"; [ "$STATUS" = 401 ]; }
settled token_refused
AUTH="Bearer $SVC_TOKEN" req GET "$P/users"
check_err "issue27.cli disabled: its token refused at the next request" 401 invalid_authorization_token
grant "$SVC" "$SECRET2"
check "issue27.cli disabled: its grant refused" "$STATUS $(jq -r .error <<<"$BODY")" "400 client_not_active"
run client enable --project "$PROJECT_ID" -- "$SVC"
check "issue27.cli client enable" "$RC $(jq -r .is_active <<<"$OUT")" "0 true"
settled grant_is "$SVC" "$SECRET2" 200
check "issue27.cli enabled: its grant works again" "$STATUS" 200

# ---- delete ----
run client delete --project "$PROJECT_ID" -- "$SVC"
check "issue27.cli client delete: the record deleted" "$RC $(jq -r .id <<<"$OUT")" "0 $SVC"
settled grant_is "$SVC" "$SECRET2" 401
grant "$SVC" "$SECRET2"
check "issue27.cli deleted: its grant refused" "$STATUS $(jq -r .error <<<"$BODY")" \
	"401 invalid_client_credentials"
run client delete --project "$PROJECT_ID" -- "$SVC"
check_fail "issue27.cli client delete again" client_not_found
run client delete --project "$PROJECT_ID" svc
check_ok "issue27.cli client delete by a name now unique"
run client frob --project "$PROJECT_ID"
check_usage "issue27.cli client: no such command" "no command frob" "client add"

# ---- the audit trail: actor cli; no secret anywhere ----
check "issue27.cli events of the CLI's client writes, actor cli" \
	"$("$EDGEAUTH" -c "$CONF" events --project "$PROJECT_ID" | jq -r 'select(.actor == "cli") | .action' | sort | uniq -c | awk '{print $2 "=" $1}' | paste -sd' ')" \
	"client.create=3 client.delete=2 client.rotate_secret=1 client.update=2"
check "issue27.cli the audit file holds the store's events" \
	"$(jq -c 'select(.actor == "cli")' "$TMP/audit.jsonl")" \
	"$("$EDGEAUTH" -c "$CONF" events | jq -c 'select(.actor == "cli")')"
for s in "$SECRET1" "$SECRET2"; do
	check "issue27.cli a secret is in no log, event or audit line" \
		"$(cat "$TMP/server.log" "$TMP/audit.jsonl" <("$EDGEAUTH" -c "$CONF" events) | grep -c -- "$s")" 0
done
finish
