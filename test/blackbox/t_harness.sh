# lib.sh itself (issue26.5): req through keepalive_client (reqd.py, one
# kept connection) answers what req through curl answers (status, body,
# headers, check_err's code), across a server restart and after HEAD; a req
# in a subshell still goes through curl; the client is no job of the file's.
. "$(dirname "$0")/lib.sh"
start_server

# both METHOD PATH [BODY]: the request through curl (a subshell), then
# through the kept client; C_STATUS, C_BODY, C_ERR are curl's
both() {
	local out
	out=$(req "$@"; printf '%s\n%s\n%s' "$STATUS" "$(jq -r .error 2>/dev/null <<<"$BODY")" "$BODY")
	C_STATUS=${out%%$'\n'*}; out=${out#*$'\n'}
	C_ERR=${out%%$'\n'*}; C_BODY=${out#*$'\n'}
	req "$@"
}

keepalive_client
check "issue26.5: the kept client runs" "$([ -n "${REQD_PID:-}" ] && kill -0 "$REQD_PID" && echo yes)" yes
both GET "$P/clients?page_size=1"
check "issue26.5: a list: status as curl's" "$STATUS" "$C_STATUS"
check "issue26.5: a list: body as curl's" "$(jq -c 'del(.data)' <<<"$BODY")" "$(jq -c 'del(.data)' <<<"$C_BODY")"
check_header "issue26.5: a list: headers kept" '^Content-Type: application/json'
both POST "$P/roles" '{"nme":"x"}'
check "issue26.5: an error: status as curl's" "$STATUS" "$C_STATUS"
check_err "issue26.5: an error: code as curl's" 400 "$C_ERR"
AUTH=none both GET "$P/roles"
check_err "issue26.5: no Authorization header" 401 "$C_ERR"
req POST "$P/roles" '{"code":"kept","name":"Kept"}'
check_status "issue26.5: a create" 201
req HEAD /healthz
check_status "issue26.5: HEAD" 200
check "issue26.5: HEAD has no body" "$BODY" ""
req GET "$P/roles?search=kept"
check_json "issue26.5: the next request after HEAD" .total 1
check "issue26.5: a subshell's req goes through curl" "$(req GET /healthz; echo "$STATUS")" 200
check "issue26.5: the client is no job (a bare wait does not wait for it)" \
	"$(jobs -p | grep -c -x "$REQD_PID")" 0
restart_server
req GET "$P/roles?search=kept"
check_json "issue26.5: after a restart, a new connection" .total 1
check "issue26.5: ... through the same client" "$(kill -0 "$REQD_PID" && echo yes)" yes
finish
