#!/usr/bin/env bash
# issue27.cli: `edgeauth user ...` and `edgeauth role ...` (docs/commands.md)
# beside a running server, on either backend: each command's happy path, its
# failures (exit 1, "edgeauth: <code>: <sentence>", the API's code for the
# same fault) and usage errors (exit 2, what was wrong, then the usage); the
# server sees each change at its next request; every write is an event of
# actor cli; a password is read from stdin, never from argv, and never
# reaches the log, the events or the audit file.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/cli_lib.sh"
TEST_NAME=t_cli_users
start_server "audit.file=$TMP/audit.jsonl"
PW1="first-Pa55word-$RANDOM"
PW2="second-Pa55word-$RANDOM"

# ---- role add, role list ----
run role add --project "$PROJECT_ID" --code readers --name Readers --permission users:read
check_ok "issue27.cli role add"
check "issue27.cli role add: the record" "$(jq -r '[.code, .name, (.permission_ids | length)] | @tsv' <<<"$OUT")" \
	"readers	Readers	1"
ROLE=$(jq -r .id <<<"$OUT")
run role add --project "$PROJECT_ID" --code admins --name Admins --permission '*'
check "issue27.cli role add '*': the twelve" "$(jq '.permission_ids | length' <<<"$OUT")" 12
run role add --project "$PROJECT_ID" --code readers --name Again
check_fail "issue27.cli role add: a code in use" role_code_already_used
run role add --project "$PROJECT_ID" --code 'not a code' --name Bad
check_fail "issue27.cli role add: a bad code" invalid_params
run role add --project "$PROJECT_ID" --code orders --name Orders --permission orders:read
check_fail "issue27.cli role add: an unknown permission" some_permissions_not_found
run role add --project "$PROJECT_ID" --name NoCode
check_usage "issue27.cli role add without --code" "--code is required" "role add"
run role add --project nope --code x --name X
check_fail "issue27.cli role add: no such project" project_not_found
run role list --project "$PROJECT_ID"
check "issue27.cli role list: an array, oldest first" "$(jq -r '[.[].code] | join(" ")' <<<"$OUT")" \
	"readers admins"

# ---- user add ----
app_redirect=http://127.0.0.1:9/callback
run client add --project "$PROJECT_ID" --name app --redirect-uri "$app_redirect"
APP=$(jq -r .id <<<"$OUT")
INPUT=$PW1 run user add --project "$PROJECT_ID" --email Rita@Example.com --name Rita --role readers \
	--password-stdin
check_ok "issue27.cli user add with a password on stdin"
check "issue27.cli user add: the record" \
	"$(jq -r '[.email, .display_name, .role_name, .is_active] | @tsv' <<<"$OUT")" \
	"Rita@Example.com	Rita	Readers	true"
RITA=$(jq -r .id <<<"$OUT")
run user add --project "$PROJECT_ID" --email sam@example.com --name Sam
check_fail "issue27.cli user add: an email needs a password" invalid_params
INPUT=$PW1 run user add --project "$PROJECT_ID" --email rita@example.com --name Other --password-stdin
check_fail "issue27.cli user add: an email in use (any case)" user_email_already_used
INPUT=$PW1 run user add --project "$PROJECT_ID" --email not-an-email --name Bad --password-stdin
check_fail "issue27.cli user add: a bad email" invalid_params
INPUT=short run user add --project "$PROJECT_ID" --email sam@example.com --name Sam --password-stdin
check_fail "issue27.cli user add: a short password" invalid_params
run user add --project "$PROJECT_ID" --external-id ext-x --name X --role nope
check_fail "issue27.cli user add: no such role" role_not_found
run user add --project nope --external-id ext-x --name X
check_fail "issue27.cli user add: no such project" project_not_found
run user add --project "$PROJECT_ID" --email a@example.com --external-id a --name A
check_usage "issue27.cli user add: --email and --external-id" "--email or --external-id" "user add"
run user add --project "$PROJECT_ID" --external-id a
check_usage "issue27.cli user add without --name" "--name is required" "user add"
run user add --project "$PROJECT_ID" --external-id a --name A --frob
check_usage "issue27.cli user add: an unknown option" "unknown option --frob" "user add"
run user add --project "$PROJECT_ID" --external-id bob-1 --name Bob
check_ok "issue27.cli user add by external ID"
BOB=$(jq -r .id <<<"$OUT")

# ---- list, show ----
run user list --project "$PROJECT_ID"
check "issue27.cli user list" "$(jq -r '[.[].display_name] | join(" ")' <<<"$OUT")" "Rita Bob"
run user list --project "$PROJECT_ID" --search RIT
check "issue27.cli user list --search" "$(jq -r '[.[].id] | join(" ")' <<<"$OUT")" "$RITA"
for who in "$RITA" rita@EXAMPLE.com; do
	run user show --project "$PROJECT_ID" -- "$who"
	check "issue27.cli user show $who" "$(jq -r .id <<<"$OUT")" "$RITA"
done
run user show --project "$PROJECT_ID" bob-1
check "issue27.cli user show by external ID" "$(jq -r .id <<<"$OUT")" "$BOB"
run user show --project "$PROJECT_ID" nobody
check_fail "issue27.cli user show: no such user" user_not_found
run user show --project "$PROJECT_ID"
check_usage "issue27.cli user show without USER" "USER is required" "user show"
run user show someone
check_usage "issue27.cli user show without --project" "--project is required" "user show"
run user show --project "$PROJECT_ID" -x
check_fail "issue27.cli an operand may begin with a dash (an ID may)" user_not_found
run user frob
check_usage "issue27.cli user: no such command" "no command frob" "user add"
run user
check_usage "issue27.cli user: no command" "which command?" "user add"

# ---- the running server sees disable, enable, set-password, delete ----
# signs_in PASSWORD: rita's sign-in gives a code (and so a token)
signs_in() {
	sign_in "$APP" "$app_redirect" rita@example.com "$1"
	[ -n "$CODE" ]
}
refused() { ! signs_in "$1"; }
signs_in "$PW1"
check "issue27.cli the CLI's user signs in" "$?" 0
exchange "$APP" "$app_redirect" "$CODE" "$VERIFIER"
RITA_TOKEN=$ACCESS
AUTH="Bearer $RITA_TOKEN" req GET /api/v1/users/current
check_status "issue27.cli her token works" 200

run user disable --project "$PROJECT_ID" rita@example.com
check "issue27.cli user disable" "$RC $(jq -r .is_active <<<"$OUT")" "0 false"
token_refused() { AUTH="Bearer $RITA_TOKEN" req GET /api/v1/users/current; [ "$STATUS" = 401 ]; }
settled token_refused
AUTH="Bearer $RITA_TOKEN" req GET /api/v1/users/current
check_err "issue27.cli disabled: her token refused at the next request" 401 invalid_authorization_token
settled refused "$PW1"
check "issue27.cli disabled: her sign-in refused" "$?" 0

run user enable --project "$PROJECT_ID" -- "$RITA"
check "issue27.cli user enable" "$RC $(jq -r .is_active <<<"$OUT")" "0 true"
settled signs_in "$PW1"
check "issue27.cli enabled: she signs in again" "$?" 0

INPUT=$PW2 run user set-password --project "$PROJECT_ID" rita@example.com
check_ok "issue27.cli user set-password from stdin"
check "issue27.cli set-password: the record, no password" "$(jq -r 'has("password")' <<<"$OUT")" false
settled refused "$PW1"
check "issue27.cli set-password: the old password refused" "$?" 0
signs_in "$PW2"
check "issue27.cli set-password: the new one signs in" "$?" 0
INPUT=short run user set-password --project "$PROJECT_ID" rita@example.com
check_fail "issue27.cli set-password: a short password" invalid_params
run user set-password --project "$PROJECT_ID" rita@example.com "$PW1"
check_usage "issue27.cli set-password takes no password in argv" "one too many" "user set-password"
check "issue27.cli set-password: the refused argument is not echoed" \
	"$(grep -c -- "$PW1" "$TMP/cli.err")" 0
run user set-password --project "$PROJECT_ID" rita@example.com --password "$PW1"
check_usage "issue27.cli set-password: no --password option" "unknown option --password" \
	"user set-password"
run user set-password --project "$PROJECT_ID" rita@example.com --password="$PW1"
check "issue27.cli --password=VALUE: the value is not echoed" "$(grep -c -- "$PW1" "$TMP/cli.err")" 0

# on a terminal: asked twice, without echo (pty_run.py types each answer
# once its prompt shows)
TTY_PW="tty-Pa55word-$RANDOM"
tty_set() {
	python3 "$(dirname "$0")/pty_run.py" "Password: " "$1" "again: " "$2" -- \
		"$EDGEAUTH" -c "$CONF" user set-password --project "$PROJECT_ID" rita@example.com
}
tty_out=$(tty_set "$TTY_PW" "$TTY_PW")
check "issue27.cli set-password on a terminal: asked twice" \
	"$? $(grep -c 'Password' <<<"$tty_out")" "0 2"
check "issue27.cli set-password on a terminal: never echoed" "$(grep -c -- "$TTY_PW" <<<"$tty_out")" 0
settled refused "$PW2"
check "issue27.cli set on a terminal: the old password refused" "$?" 0
signs_in "$TTY_PW"
check "issue27.cli set on a terminal: the new one signs in" "$?" 0
tty_out=$(tty_set "$PW1" "$PW2")
check "issue27.cli two different passwords typed: refused" "$? $(grep -c 'edgeauth: invalid_params: ' <<<"$tty_out")" "1 1"

run user delete --project "$PROJECT_ID" bob-1
check "issue27.cli user delete: the record deleted" "$RC $(jq -r .id <<<"$OUT")" "0 $BOB"
run user show --project "$PROJECT_ID" -- "$BOB"
check_fail "issue27.cli deleted: gone" user_not_found
req GET "$P/users/$BOB"
check_err "issue27.cli deleted: the server answers 404 at once" 404 user_not_found
run user delete --project "$PROJECT_ID" bob-1
check_fail "issue27.cli user delete again" user_not_found

# ---- output: a table on a terminal; --json ----
if command -v script > /dev/null; then
	tty_out=$(script -qec "$EDGEAUTH -c $CONF user list --project $PROJECT_ID" /dev/null | tr -d '\r')
	check "issue27.cli a table on a terminal" "$(head -1 <<<"$tty_out" | tr -s ' ')" \
		"id email external_user_id display_name role_name is_active"
	tty_out=$(script -qec "$EDGEAUTH -c $CONF user list --project $PROJECT_ID --json" /dev/null | tr -d '\r')
	check "issue27.cli --json on a terminal" "$(jq -r '.[0].id' <<<"$tty_out")" "$RITA"
else
	fail "script(1) is needed for the terminal's table (util-linux)"
fi
run help user set-password
check "issue27.cli help user set-password" "$RC $(grep -c 'without echo' <<<"$OUT")" "0 1"
check "issue27.cli help needs no config" \
	"$("$EDGEAUTH" -c /nonexistent/edgeauth.conf help role add | head -1)" \
	"edgeauth [-c FILE] role add --project P --code C --name N [--permission NAMED]..."
check "issue27.cli --help lists the commands" \
	"$("$EDGEAUTH" -c "$CONF" --help | grep -cE '\] (user add|role add|client add|client rotate-secret)')" 4
run help user frob
check_usage "issue27.cli help of no such command" "no command frob" "user add"

# ---- the audit trail: actor cli; no password anywhere ----
check "issue27.cli events of the CLI's writes, actor cli" \
	"$("$EDGEAUTH" -c "$CONF" events --project "$PROJECT_ID" | jq -r 'select(.actor == "cli") | .action' | sort | uniq -c | awk '{print $2 "=" $1}' | paste -sd' ')" \
	"client.create=1 role.create=2 user.create=2 user.delete=1 user.update=4"
check "issue27.cli the refused writes left no event" \
	"$("$EDGEAUTH" -c "$CONF" events --project "$PROJECT_ID" | jq -s '[.[] | select(.actor == "cli" and .outcome != "success")] | length')" 0
check "issue27.cli the audit file got the CLI's events" \
	"$(jq -r 'select(.actor == "cli" and .target == "'"$RITA"'") | .action' "$TMP/audit.jsonl" | paste -sd' ')" \
	"user.create user.update user.update user.update user.update"
for pw in "$PW1" "$PW2" "$TTY_PW"; do
	check "issue27.cli a password is in no log, event or audit line" \
		"$(cat "$TMP/server.log" "$TMP/audit.jsonl" <("$EDGEAUTH" -c "$CONF" events) | grep -c -- "$pw")" 0
done
finish
