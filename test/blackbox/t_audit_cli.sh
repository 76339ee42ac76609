#!/usr/bin/env bash
# The audit trail of the CLI's writes and of client writes, on either backend
# (docs/operations.md §"Audit trail"): each write records one event in its own transaction, a
# refused write records none, and the [audit] file gets each committed event
# once, in order. (t_audit.sh covers every kind of event.)
. "$(dirname "$0")/lib.sh"
TEST_NAME=t_audit_cli
start_server "audit.file=$TMP/audit.jsonl"
cli() { "$EDGEAUTH" -c "$CONF" "$@"; }
# actions [ARGS]: the actions of `edgeauth events ARGS`, one line
actions() { cli events "$@" | jq -r .action | paste -sd' '; }

NEWP=$(cli project create --name audited | jq -r .project_id)
check "project create" "$(actions --project "$NEWP")" "project.create"
cli project deactivate "$NEWP"
cli project activate "$NEWP"
check "project (de)activate" "$(actions --project "$NEWP")" \
	"project.create project.deactivate project.activate"
ADMIN=$(cli project admin-client "$NEWP" | jq -r .client_id)
cli project admin-client no-such-project > /dev/null 2>&1
check "admin-client of no project fails" "$?" 1
check "admin-client: one event, its target the new client" \
	"$(cli events --action project.admin_client | jq -r '.target' | paste -sd' ')" "$ADMIN"
KID=$(cli key rotate --alg ES256 | jq -r ".[0].kid")
check "key rotate: by the CLI, its target the key" \
	"$(cli events --action key.rotate | jq -r '[.actor, .target, .project_id] | @tsv')" \
	"cli	$KID	"

req POST "$P/clients" '{"name":"a client"}'
check_status "client create" 201
C=$(jq -r .id <<<"$BODY")
req PUT "$P/clients/$C" '{"name":"renamed","is_active":true}'
check_status "client update" 200
req PUT "$P/clients/nope" '{"name":"renamed","is_active":true}'
check_err "update of no client" 404 client_not_found
req DELETE "$P/clients/$C"
check_status "client delete" 204
check "client events, none for the refused update" "$(actions --project "$PROJECT_ID")" \
	"client.create client.update client.delete"
check "client event: actor the admin client, target the client, the address" \
	"$(cli events --action client.update | jq -r '[.actor, .target, .address, .outcome] | @tsv')" \
	"$CLIENT_ID	$C	127.0.0.1	success"

# the file: every event of the store, once, in order, the same records
check "the file holds what the store holds" "$(jq -c . "$TMP/audit.jsonl")" "$(cli events | jq -c .)"
check "ids rise" "$(jq -s '[.[].id] == ([.[].id] | sort) and length == 8' "$TMP/audit.jsonl")" true
finish
