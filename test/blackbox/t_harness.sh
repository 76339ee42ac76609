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
# check_json's filters that the kept client reads itself (jq_kept) print
# what jq prints: a string, a number, null, true, a missing name, a length
req GET "$P/roles?search=kept"
for f in .total .data .page_size .missing .missing.deeper '.data|length' '.missing|length' .total.x; do
	if jq_kept "$f"; then
		check "issue26.5: the kept client's $f is jq's" "$JQ_OUT" "$(jq -r "$f" 2> /dev/null <<<"$BODY")"
	else
		check "issue26.5: jq reads $f itself" "$f" "$(grep -x -e .data -e .total.x <<<"$f")"
	fi
done
req GET "$P/roles/$(jq -r '.data[0].id' <<<"$BODY")"
for f in .id .code .name .description .is_default .created_at '.permission_ids|length'; do
	jq_kept "$f" && got=$JQ_OUT || got="(no answer)"
	check "issue26.5: the kept client's $f of a role is jq's" "$got" "$(jq -r "$f" <<<"$BODY")"
done
KEPT_BODY=$BODY BODY='{"code":"another"}'
jq_kept .code && got=$JQ_OUT || got=jq
check "issue26.5: jq_kept answers only for the kept answer" "$got" jq
BODY=$KEPT_BODY
restart_server
req GET "$P/roles?search=kept"
check_json "issue26.5: after a restart, a new connection" .total 1
check "issue26.5: ... through the same client" "$(kill -0 "$REQD_PID" && echo yes)" yes
finish
