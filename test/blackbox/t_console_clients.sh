# The admin console's clients pages (issue 29, docs/console.md), issue29.5:
# the list, create with the secret shown once, edit (redirect URIs, auth
# method, permissions), enable/disable, rotate the secret and delete after
# a confirmation, run through the clients API's steps: its sentences, the
# no-escalation rule over the twelve default permissions, the audit trail
# with the user as actor; shown only as clients:* allow. issue31.3: who
# may sign in and how (allowed_role_ids as a role picker, consent_required,
# device_flow, forward_auth_urls), shown to every reader, a form only for a
# holder of the twelve permissions, a forged post of it the API's 403.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/cli_lib.sh"
start_server
. "$(dirname "$0")/console_lib.sh"
C="${HOME_PATH}clients"
clients_count() { db "select count(*) from clients where project_id = '$PROJECT_ID'"; }
secret_works() { [ "$(client_token "$1" "$2")" != null ] && echo yes || echo no; }

console_admin
load_resources

# ---- the list ----
apage "$HOME_PATH"
has "issue29.5 clients:read shows the Clients link" "<a href=\"$C\">Clients</a>"
apage "$C"
check_status "issue29.5 the clients list" 200
check_header "issue29.5 X-Frame-Options" '^X-Frame-Options: DENY$'
check_header "issue29.5 no-store" '^Cache-Control: no-store$'
check_header "issue29.5 form-action 'self'" "^Content-Security-Policy: .*form-action 'self'"
has "issue29.5 roles:create shows the create link" ">Create a client</a>"
has "issue29.5 the search is labelled" '<label for="f-search">'

# ---- create: the secret shown once ----
apage "${HOME_PATH}new-client"
check_status "issue29.5 the create form" 200
has "issue29.5 redirect URIs, labelled" '<label for="f-redirect_uris">'
has "issue29.5 the auth method, labelled" '<label for="f-token_endpoint_auth_method">'
has "issue29.5 the permissions as boxes" ">users:read</label>"
TOK=$(form_token)
BEFORE=$(clients_count)
SITE_H=cross-site apost "$C" "name=Evil"
check_status "issue29.5 a cross-site create: 403" 403
TOKEN_F=none apost "$C" "name=Evil"
check_status "issue29.5 no form token: 403" 403
ORIGIN_H=http://evil.example apost "$C" "name=Evil"
check_status "issue29.5 another origin: 403" 403
check "issue29.5 ... nothing made" "$(clients_count)" "$BEFORE"
apost "$C" "name=Shop <script>x</script>" description= \
	"redirect_uris=https://shop.example/cb
https://shop.example/cb2" post_logout_redirect_uris= backchannel_logout_uri= \
	token_endpoint_auth_method=client_secret_basic id_token_signed_response_alg=RS256 \
	"permission_ids=$(pid users:read)"
check_status "issue29.5 create: the secret's page" 201
check_header "issue29.5 ... no-store" '^Cache-Control: no-store$'
CL=$(grep -o '<td>Client ID</td><td>[^<]*' <<<"$BODY" | sed 's/.*<td>//')
SECRET=$(grep -o '<td>Client secret</td><td>[^<]*' <<<"$BODY" | sed 's/.*<td>//')
check "issue29.5 the secret is shown" "$([ ${#SECRET} -ge 20 ] && echo yes)" yes
check "issue29.5 the secret authenticates" "$(secret_works "$CL" "$SECRET")" yes
has "issue29.5 the page says once" "shown this once"
req GET "$P/clients/$CL"
check_json "issue29.5 stored: the name" .name "Shop <script>x</script>"
check_json "issue29.5 ... two redirect URIs" '.redirect_uris | join(" ")' "https://shop.example/cb https://shop.example/cb2"
check_json "issue29.5 ... the auth method" .token_endpoint_auth_method client_secret_basic
check_json "issue29.5 ... the permission" '.permission_ids | length' 1
check "issue29.5 audited as the user's" \
	"$(db "select actor from events where action = 'client.create' and target = '$CL'")" "$ADMIN_ID"
apage "$C"
has "issue29.5 the list escapes the name" "Shop &lt;script&gt;x&lt;/script&gt;"
lacks "issue29.5 ... no markup" "<script>"
apage "$C/$CL"
check_status "issue29.5 the client's page" 200
has "issue29.5 the name escaped" "Shop &lt;script&gt;x&lt;/script&gt;"
lacks "issue29.5 no script" "<script>"
lacks "issue29.5 the secret is not shown again" "$SECRET"
has "issue29.5 the URIs one a line" ">https://shop.example/cb
https://shop.example/cb2</textarea>"
has "issue29.5 its box ticked" "value=\"$(pid users:read)\" checked>"
has "issue29.5 access rules have a place (none yet), the edit form saves" ">Save</button>"

# ---- errors: the API's sentence beside the field ----
apage "${HOME_PATH}new-client"; TOK=$(form_token)
BEFORE=$(clients_count)
apost "$C" name=Bad "redirect_uris=not a uri" token_endpoint_auth_method=none id_token_signed_response_alg=RS256
check_status "issue29.5 a bad redirect URI: 400" 400
has "issue29.5 ... beside the field" 'aria-describedby="e-redirect_uris"'
has "issue29.5 ... the form kept" ">not a uri</textarea>"
apost "$C" name= token_endpoint_auth_method=none id_token_signed_response_alg=RS256
check_status "issue29.5 no name: 400" 400
has "issue29.5 ... beside the name" 'id="e-name"'
check "issue29.5 ... nothing made" "$(clients_count)" "$BEFORE"

# ---- edit ----
apage "$C/$CL"; TOK=$(form_token)
apost "$C/$CL" name=Shop description=Orders "redirect_uris=https://shop.example/cb" \
	post_logout_redirect_uris= backchannel_logout_uri= token_endpoint_auth_method=client_secret_post \
	id_token_signed_response_alg=ES256 "permission_ids=$(pid users:read)" "permission_ids=$(pid roles:read)"
check_status "issue29.5 edit" 302
check "issue29.5 back to the client's page" "$(location)" "$C/$CL"
req GET "$P/clients/$CL"
check_json "issue29.5 edited" '[.name, .description, (.redirect_uris|length), .token_endpoint_auth_method, .id_token_signed_response_alg, (.permission_ids|length), .is_active] | map(tostring) | join(" ")' \
	"Shop Orders 1 client_secret_post ES256 2 true"
check "issue29.5 audited" \
	"$(db "select actor from events where action = 'client.update' and target = '$CL' limit 1")" "$ADMIN_ID"

# ---- enable/disable ----
apost "$C/$CL/active" is_active=false
check_status "issue29.5 disable" 302
req GET "$P/clients/$CL"
check_json "issue29.5 disabled, the rest kept" '[.is_active, .name, (.redirect_uris|length)] | map(tostring) | join(" ")' "false Shop 1"
apage "$C/$CL"
has "issue29.5 the enable button" ">Enable the client</button>"
apost "$C/$CL/active" is_active=true
req GET "$P/clients/$CL"
check_json "issue29.5 enabled" .is_active true

# ---- rotate the secret, after a confirmation ----
apage "$C/$CL/secret"
check_status "issue29.5 the rotation's confirmation" 200
has "issue29.5 ... one button" ">Rotate the secret</button>"
check "issue29.5 the confirmation rotates nothing" "$(secret_works "$CL" "$SECRET")" yes
TOK=$(form_token)
apost "$C/$CL/secret"
check_status "issue29.5 rotated: the new secret's page" 200
NEW=$(grep -o '<td>Client secret</td><td>[^<]*' <<<"$BODY" | sed 's/.*<td>//')
check "issue29.5 a new secret" "$([ -n "$NEW" ] && [ "$NEW" != "$SECRET" ] && echo yes)" yes
check "issue29.5 the old one stops working" "$(secret_works "$CL" "$SECRET")" no
check "issue29.5 the new one works" "$(secret_works "$CL" "$NEW")" yes
apage "$C/$CL"
lacks "issue29.5 the new secret is not shown again" "$NEW"

# ---- no escalation, exactly as through the API ----
console_user cleo climgr clients:read clients:create clients:update users:read
apage "${HOME_PATH}new-client"; TOK=$(form_token)
BEFORE=$(clients_count)
apost "$C" name=Esc token_endpoint_auth_method=none id_token_signed_response_alg=RS256 \
	"permission_ids=$(pid roles:update)"
check_status "issue29.5 a permission Cleo lacks: 403" 403
has "issue29.5 ... the API's sentence" "role"
check "issue29.5 ... nothing made" "$(clients_count)" "$BEFORE"
apost "$C/$CL/delete"
check_status "issue29.5 Cleo may not delete a client holding roles:read" 403
apost "$C" name=Fine token_endpoint_auth_method=none id_token_signed_response_alg=RS256 \
	"permission_ids=$(pid users:read)"
check_status "issue29.5 a permission Cleo holds" 201
FINE=$(grep -o '<td>Client ID</td><td>[^<]*' <<<"$BODY" | sed 's/.*<td>//')

# ---- clients:read alone: no form, and a post changes nothing ----
console_user rita cliread clients:read
apage "$C"
check_status "issue29.5 clients:read: the list" 200
lacks "issue29.5 clients:read: no create link" "Create a client"
apage "$C/$CL"
check_status "issue29.5 clients:read: the client's page" 200
no_form "issue29.5 clients:read: no form"
apage "${HOME_PATH}new-client"
check_status "issue29.5 clients:read: the create form is refused" 403
apage "$C/$CL/secret"
check_status "issue29.5 clients:read: the rotation's confirmation is refused" 403
apage "$HOME_PATH"; TOK=$(form_token)
apost "$C/$CL/secret"
check_status "issue29.5 clients:read: a rotation post is refused" 403
check "issue29.5 ... the secret still works" "$(secret_works "$CL" "$NEW")" yes
apost "$C/$CL/active" is_active=false
check_status "issue29.5 clients:read: a disable post is refused" 403
req GET "$P/clients/$CL"
check_json "issue29.5 ... still active" .is_active true

# ---- who may sign in, and how (issue31.3): the twelve permissions ----
WHO_JAR=$TMP/admin_jar
req POST "$P/roles" '{"code":"ops","name":"Ops <b>","permission_ids":[]}'
check_status "issue31.3 a role to allow" 201
OPS=$(jq -r .id <<<"$BODY")
apage "$C/$CL"
has "issue31.3 the details: every user by default" "<td>Roles whose users may sign in</td><td>every user of the project</td>"
has "issue31.3 the admin's form has the role picker" "name=\"allowed_role_ids\" value=\"$OPS\">"
has "issue31.3 ... the role's name escaped" "Ops &lt;b&gt;</label>"
has "issue31.3 ... consent_required" 'name="flags" value="consent_required">'
has "issue31.3 ... device_flow" 'name="flags" value="device_flow">'
has "issue31.3 ... forward_auth_urls, labelled" '<label for="f-forward_auth_urls">'
TOK=$(form_token)
edit_rules() {   # edit_rules FIELD=VALUE...: the edit form as posted, with its part of the rules
	apost "$C/$CL" name=Shop description=Orders "redirect_uris=https://shop.example/cb" \
		post_logout_redirect_uris= backchannel_logout_uri= token_endpoint_auth_method=client_secret_post \
		id_token_signed_response_alg=ES256 "permission_ids=$(pid users:read)" \
		"permission_ids=$(pid roles:read)" access_rules=1 "$@"
}
set_all() {   # the admin's form with every field of the part set (SET)
	edit_rules "allowed_role_ids=$OPS" flags=consent_required flags=device_flow \
		"forward_auth_urls=https://dash.example
http://hmi.example:8080"
}
SET="[[\"$OPS\"],true,true,[\"https://dash.example\",\"http://hmi.example:8080\"],2]"
rules_now() { req GET "$P/clients/$CL"; jq -c '[.allowed_role_ids, .consent_required, .device_flow, .forward_auth_urls, (.permission_ids|length)]' <<<"$BODY"; }
set_all
check_status "issue31.3 the admin sets them" 302
check "issue31.3 ... stored through the API's steps" "$(rules_now)" "$SET"
apage "$C/$CL"
has "issue31.3 the details name the role" "<td>Roles whose users may sign in</td><td>Ops &lt;b&gt;</td>"
has "issue31.3 its box ticked" "name=\"allowed_role_ids\" value=\"$OPS\" checked>"
has "issue31.3 the flags ticked" 'name="flags" value="device_flow" checked>'
has "issue31.3 the URLs one a line" ">https://dash.example
http://hmi.example:8080</textarea>"
edit_rules "forward_auth_urls=ftp://nope.example"
check_status "issue31.3 the API's refusal of a bad URL" 400
has "issue31.3 ... its sentence beside the field" 'id="e-forward_auth_urls"'
has "issue31.3 ... the form kept" '>ftp://nope.example</textarea>'
check "issue31.3 ... nothing changed" "$(rules_now)" "$SET"
# Cleo holds clients:update, not the twelve: the part is shown, not as a form
WHO_JAR=$TMP/cleo_jar
apage "$C/$CL"
check_status "issue31.3 clients:update: the page" 200
has "issue31.3 ... the details" "<td>Roles whose users may sign in</td><td>"
lacks "issue31.3 ... no role picker" 'name="allowed_role_ids"'
lacks "issue31.3 ... no flags" 'name="flags"'
lacks "issue31.3 ... no URLs field" 'name="forward_auth_urls"'
TOK=$(form_token)
edit_rules forward_auth_urls=
check_status "issue31.3 clients:update: a forged post of the part: 403" 403
check "issue31.3 ... nothing changed" "$(rules_now)" "$SET"
# on a client she may edit otherwise (its permissions are hers)
fine_edit() {
	apost "$C/$FINE" name=Fine description="$1" redirect_uris= post_logout_redirect_uris= \
		backchannel_logout_uri= token_endpoint_auth_method=none id_token_signed_response_alg=RS256 \
		"permission_ids=$(pid users:read)" "${@:2}"
}
fine_edit "edited by Cleo"
check_status "issue31.3 Cleo edits her client without the part" 302
for part in "allowed_role_ids=$OPS" flags=consent_required flags=device_flow \
	forward_auth_urls=https://fine.example; do
	fine_edit "not saved" access_rules=1 "$part"
	check "issue31.3 Cleo may not set ${part%%=*} (the API's twelve-permission rule)" \
		"$STATUS $(grep -q 'all twelve default permissions' <<<"$BODY" && echo said)" "403 said"
done
req GET "$P/clients/$FINE"
check "issue31.3 ... nothing of it saved" \
	"$(jq -c '[.description, .allowed_role_ids, .consent_required, .device_flow, .forward_auth_urls]' <<<"$BODY")" \
	'["edited by Cleo",[],false,false,[]]'
fine_edit "edited again" access_rules=1
check_status "issue31.3 ... the part posted unchanged is no change" 302
WHO_JAR=$TMP/rita_jar
apage "$C/$CL"
has "issue31.3 clients:read: the details" 'Asks each user&#39;s consent (an app the box does not own)</td><td>yes</td>'
no_form "issue31.3 clients:read: no form"
apage "$HOME_PATH"; TOK=$(form_token)
edit_rules forward_auth_urls=
check_status "issue31.3 clients:read: a post: 403" 403
check "issue31.3 ... nothing changed" "$(rules_now)" "$SET"
# a deleted role's ID stays, and is shown as such
WHO_JAR=$TMP/admin_jar
req DELETE "$P/roles/$OPS"
check_status "issue31.3 the allowed role deleted" 204
apage "$C/$CL"
has "issue31.3 a deleted role's ID stays ticked" "name=\"allowed_role_ids\" value=\"$OPS\" checked>"
has "issue31.3 ... saying it lets no one in" "$OPS (no such role: lets no one in)"
TOK=$(form_token)
set_all
check_status "issue31.3 ... a save that keeps it" 302
check "issue31.3 ... kept" "$(rules_now)" "$SET"
edit_rules forward_auth_urls=
check_status "issue31.3 the admin clears them (nothing ticked)" 302
check "issue31.3 ... cleared" "$(rules_now)" "[[],false,false,[],2]"

# ---- delete, after a confirmation ----
WHO_JAR=$TMP/admin_jar
apage "$C/$CL/delete"
check_status "issue29.5 the delete's confirmation" 200
has "issue29.5 ... one button" ">Delete this client</button>"
TOK=$(form_token)
apost "$C/$CL/delete"
check_status "issue29.5 delete" 302
check "issue29.5 back to the list" "$(location)" "$C"
req GET "$P/clients/$CL"
check_err "issue29.5 deleted" 404 client_not_found
check "issue29.5 the delete is audited as the user's" \
	"$(db "select actor from events where action = 'client.delete' and target = '$CL'")" "$ADMIN_ID"
apage "$C/$CL"
check_status "issue29.5 a deleted client's page: 404" 404

finish
