# The admin console's audit trail (issue 29, docs/console.md), issue29.8:
# the project's events with the events API's filters (action, actor, target,
# outcome, since, until) and paging, every value escaped; shown only with
# the four :read permissions, as the API asks.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/cli_lib.sh"
start_server
. "$(dirname "$0")/console_lib.sh"
E="${HOME_PATH}events"
rows() { grep -c '^<tr><td>' <<<"$BODY"; }

console_admin
apage "${HOME_PATH}new-user"; TOK=$(form_token)
apost "${HOME_PATH}users" "display_name=Ann <i>" email=ann@example.com "password=ann password"
ANN=$(basename "$(location)")

apage "$HOME_PATH"
has "issue29.8 the four reads show the Audit trail link" "<a href=\"$E\">Audit trail</a>"
apage "$E"
check_status "issue29.8 the audit trail" 200
check_header "issue29.8 X-Frame-Options" '^X-Frame-Options: DENY$'
check_header "issue29.8 no-store" '^Cache-Control: no-store$'
has "issue29.8 the console's user.create, the user as actor" "<td>user.create</td><td>$ADMIN_ID</td><td>$ANN</td>"
has "issue29.8 the sign-in" "<td>signin.success</td>"
has "issue29.8 the action filter, labelled" '<label for="f-action">Action</label>'
has "issue29.8 the since filter, labelled" '<label for="f-since">'
apage "$E?action=user.create"
check "issue29.8 action=user.create: the CLI's and the console's" "$(rows)" 2
lacks "issue29.8 ... no other action" "<td>signin.success</td>"
has "issue29.8 ... the filter kept" '<option value="user.create" selected>'
apage "$E?action=consent.deny"
check "the action filter offers consent.deny (a consent page's Deny)" \
	"$STATUS $(rows) $(grep -c '<option value="consent.deny" selected>' <<<"$BODY")" "200 0 1"
apage "$E?actor=$ADMIN_ID&action=&target=&outcome=&since=&until="
has "issue29.8 actor: the admin's events (empty filters are none)" "<td>user.create</td>"
lacks "issue29.8 ... not the sign-in (by the console's client)" "<td>signin.success</td>"
apage "$E?target=$ANN"
check "issue29.8 target: one event" "$(rows)" 1
apage "$E?since=2999-01-01T00:00:00Z"
check "issue29.8 since a future time: none" "$(rows)" 0
apage "$E?until=2999-01-01T00:00:00Z&outcome=success"
check "issue29.8 until and outcome: some" "$([ "$(rows)" -ge 2 ] && echo yes)" yes
req GET "$P/events?action=nope"
API_WHY=$(escaped "$(jq -r .error_description <<<"$BODY")")
apage "$E?action=nope"
check_status "issue29.8 an unknown action: the API's 400" 400
has "issue29.8 ... its sentence" "$API_WHY"
apage "$E?actor=%3Cscript%3Ex"
has "issue29.8 a filter is escaped" 'value="&lt;script&gt;x"'
lacks "issue29.8 ... no markup" "<script>"
apage "$E?page_size=1&outcome=success"
check "issue29.8 paging: one a page" "$(rows)" 1
has "issue29.8 ... a next page keeping the filter" "page_size=1&amp;outcome=success&amp;page_num=2\">Next page</a>"
apage "$E?page_size=1&outcome=success&page_num=2"
has "issue29.8 ... and a previous one" ">Previous page</a>"

# ---- three of the four reads: no audit trail, as the API ----
console_user tri three users:read clients:read roles:read
apage "$HOME_PATH"
lacks "issue29.8 three reads: no Audit trail link" ">Audit trail</a>"
apage "$E"
check_status "issue29.8 three reads: the page is refused" 403
lacks "issue29.8 ... no event shown" "user.create"

finish
