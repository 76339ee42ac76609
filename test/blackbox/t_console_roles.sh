# The admin console's roles pages (issue 29, docs/console.md): the list, a
# role's page, create and edit with the permissions as checkboxes grouped by
# resource, run through the roles API's steps (its sentences, no
# escalation, the audit trail), shown only as roles:* allow.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/cli_lib.sh"
start_server
. "$(dirname "$0")/console_lib.sh"
R="${HOME_PATH}roles"
roles_count() { db "select count(*) from roles where project_id = '$PROJECT_ID'"; }

run role add --project "$PROJECT_ID" --code admin --name Administrators --permission '*'
INPUT="admin password" run user add --project "$PROJECT_ID" --email admin@example.com --name Admin \
	--role admin --password-stdin
ADMIN_ID=$(jq -r .id <<<"$OUT")
ADMIN_ROLE=$(db "select id from roles where project_id = '$PROJECT_ID' and code = 'admin'")
load_resources
req POST "$P/resources" '{"code":"orders","name":"Orders <shop>","permissions":[{"code":"read","name":"Read"},{"code":"ship","name":"Ship"}]}'
check_status "issue29.3 a resource of the project's own" 201
load_resources
WHO_JAR=$TMP/admin_jar
JAR=$WHO_JAR console_sign_in admin@example.com "admin password"

# ---- the list and the navigation ----
apage "$HOME_PATH"
has "issue29.3 roles:read shows the Roles link" "<a href=\"${R}\">Roles</a>"
apage "$R"
check_status "issue29.3 the roles list" 200
has "issue29.3 lists the admin role" ">Administrators</a>"
has "issue29.3 roles:create shows the create link" ">Create a role</a>"

# ---- create: checkboxes grouped by resource ----
apage "${HOME_PATH}new-role"
check_status "issue29.3 the create form" 200
has "issue29.3 a group per resource, escaped" "<legend>Orders &lt;shop&gt; (orders)</legend>"
has "issue29.3 a labelled checkbox per permission" "<label class=\"inline\" for=\"c-$(pid orders:ship)\">orders:ship</label>"
has "issue29.3 the default resources too" ">users:read</label>"
TOK=$(form_token)
BEFORE=$(roles_count)
apost "$R" code=shippers "name=Ship <it>" description= "permission_ids=$(pid orders:ship)" "permission_ids=$(pid users:read)"
check_status "issue29.3 create" 302
ROLE=$(basename "$(location)")
BEFORE=$(roles_count)
req GET "$P/roles/$ROLE"
check_json "issue29.3 the role's permissions" '.permission_ids | length' 2
check_json "issue29.3 ... its name" .name "Ship <it>"
check "issue29.3 audited as the user's" \
	"$(db "select actor from events where action = 'role.create' and target = '$ROLE'")" "$ADMIN_ID"
apage "$R/$ROLE"
check_status "issue29.3 the role's page" 200
has "issue29.3 the name escaped" "Ship &lt;it&gt;"
has "issue29.3 its boxes ticked" "value=\"$(pid orders:ship)\" checked>"
lacks "issue29.3 the others not" "value=\"$(pid orders:read)\" checked>"
lacks "issue30.7 a role requires no second factor: unticked" 'name="requires_second_factor" value="true" checked>'
# docs/signin.md "Second factors": the role's requires_second_factor, one checkbox
apage "${HOME_PATH}new-role"; TOK=$(form_token)
apost "$R" code=strict name=Strict requires_second_factor=true
check_status "issue30.7 create requiring a second factor" 302
STRICT=$(basename "$(location)")
req GET "$P/roles/$STRICT"
check_json "issue30.7 ... the record says so" .requires_second_factor true
apage "$R/$STRICT"
has "issue30.7 ... its box ticked" 'name="requires_second_factor" value="true" checked>'
TOK=$(form_token)
apost "$R/$STRICT" code=strict name=Strict
check_status "issue30.7 saved unticked" 302
req GET "$P/roles/$STRICT"
check_json "issue30.7 ... no longer required" .requires_second_factor false
BEFORE=$(roles_count)
# errors: the API's sentence beside the field; a taken code
apage "${HOME_PATH}new-role"; TOK=$(form_token)
apost "$R" code=shippers name=Again
check_status "issue29.3 a taken code: 409" 409
has "issue29.3 ... beside the code" 'id="e-code"'
apost "$R" "code=bad code" name=Bad
check_status "issue29.3 a bad code: 400" 400
has "issue29.3 ... beside the code" 'id="e-code"'
check "issue29.3 nothing stored" "$(roles_count)" "$BEFORE"

# ---- edit: untick and tick ----
apage "$R/$ROLE"; TOK=$(form_token)
apost "$R/$ROLE" code=shippers name=Shippers description=ships "permission_ids=$(pid orders:read)"
check_status "issue29.3 edit" 302
req GET "$P/roles/$ROLE"
check_json "issue29.3 the new set" '.permission_ids | join(",")' "$(pid orders:read)"
check_json "issue29.3 the new name" .name Shippers

# ---- cross-site and token checks: 403, nothing changed ----
TOKEN_F=none apost "$R" code=evil name=Evil
check_status "issue29.3 no token: 403" 403
SITE_H=cross-site apost "$R" code=evil name=Evil
check_status "issue29.3 cross-site: 403" 403
check "issue29.3 no role made" "$(roles_count)" "$BEFORE"

# ---- roles:read alone: no form; a post changes nothing ----
req POST "$P/roles" "{\"code\":\"rolereader\",\"name\":\"Role readers\",\"permission_ids\":$(ids roles:read)}"
RR=$(jq -r .id <<<"$BODY")
req POST "$P/users" "$(jq -cn --arg r "$RR" '{display_name:"Rory",email:"rory@example.com",password:"rory password",role_id:$r}')"
WHO_JAR=$TMP/rory_jar
JAR=$WHO_JAR console_sign_in rory@example.com "rory password"
apage "$R"
check_status "issue29.3 roles:read: the list" 200
lacks "issue29.3 roles:read: no create link" "Create a role"
apage "$R/$ROLE"
check_status "issue29.3 roles:read: a role's page" 200
no_form "issue29.3 roles:read: no form"
has "issue29.3 roles:read: the permissions shown" ">orders:read</label>"
TOK=$(printf '%s' "console:$(awk -F'\t' -v n="edgeauth_$PROJECT_ID" '$6 == n { print $7 }' "$WHO_JAR")" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=\n')
apost "$R/$ROLE" code=shippers name=Hacked
check_status "issue29.3 roles:read: an edit post (valid token) is refused" 403
apost "$R" code=hacked name=Hacked
check_status "issue29.3 roles:read: a create post is refused" 403
req GET "$P/roles/$ROLE"
check_json "issue29.3 roles:read: nothing changed" .name Shippers

# ---- no escalation, as through the API ----
req POST "$P/roles" "{\"code\":\"rolemgr\",\"name\":\"Role managers\",\"permission_ids\":$(ids roles:read roles:create roles:update)}"
RM=$(jq -r .id <<<"$BODY")
req POST "$P/users" "$(jq -cn --arg r "$RM" '{display_name:"Remy",email:"remy@example.com",password:"remy password",role_id:$r}')"
WHO_JAR=$TMP/remy_jar
JAR=$WHO_JAR console_sign_in remy@example.com "remy password"
apage "${HOME_PATH}new-role"; TOK=$(form_token)
apost "$R" code=grab name=Grab "permission_ids=$(pid users:update)"
check_status "issue29.3 no escalation: a role with users:update is refused" 403
has "issue29.3 ... with the API's sentence" 'role="alert">The token does not carry users:update'
check "issue29.3 ... nothing stored" "$(db "select count(*) from roles where code = 'grab'")" 0
apost "$R" code=fine name=Fine "permission_ids=$(pid orders:ship)"
check_status "issue29.3 a project's own permission is free to grant" 302
apage "$R/$ADMIN_ROLE"; TOK=$(form_token)
apost "$R/$ADMIN_ROLE" code=admin name=Mine
check_status "issue29.3 no escalation: the admin role cannot be changed" 403
req GET "$P/roles/$ADMIN_ROLE"
check_json "issue29.3 the admin role is unchanged" .name Administrators

# ---- delete, after a confirmation (issue29.9) ----
apost "$R/$ADMIN_ROLE/delete"
check_status "issue29.9 no escalation: Remy may not delete the admin role" 403
check "issue29.9 ... it stays" "$(db "select count(*) from roles where id = '$ADMIN_ROLE'")" 1
WHO_JAR=$TMP/admin_jar
req POST "$P/users" "$(jq -cn --arg r "$ROLE" '{display_name:"Shipper",email:"ship@example.com",password:"ship password",role_id:$r}')"
SHIPPER=$(jq -r .id <<<"$BODY")
apage "$R/$ROLE"
has "issue29.9 the role's page links its delete" ">Delete the role</a>"
apage "$R/$ROLE/delete"
check_status "issue29.9 the delete's confirmation" 200
has "issue29.9 ... one button" ">Delete this role</button>"
check "issue29.9 the confirmation deletes nothing" "$(db "select count(*) from roles where id = '$ROLE'")" 1
TOK=$(form_token)
SITE_H=cross-site apost "$R/$ROLE/delete"
check_status "issue29.9 a cross-site delete: 403" 403
check "issue29.9 ... nothing deleted" "$(db "select count(*) from roles where id = '$ROLE'")" 1
apost "$R/$ROLE/delete"
check_status "issue29.9 delete" 302
check "issue29.9 back to the list" "$(location)" "$R"
req GET "$P/roles/$ROLE"
check_err "issue29.9 deleted" 404 role_not_found
req GET "$P/users/$SHIPPER"
check_json "issue29.9 its user is left without a role" .role_id null
check "issue29.9 audited as the user's" \
	"$(db "select actor from events where action = 'role.delete' and target = '$ROLE'")" "$ADMIN_ID"

# ---- the list in pages ----
for i in $(seq 1 12); do req POST "$P/roles" "{\"code\":\"r$i\",\"name\":\"R$i\"}"; done
TOTAL=$(roles_count)
apage "$R"
has "issue29.9 the roles in pages" "Page 1 of $(( (TOTAL + 9) / 10 )), $TOTAL roles."
has "issue29.9 ... a next page" "page_num=2\">Next page</a>"
apage "$R?page_num=2"
has "issue29.9 ... and a previous one" ">Previous page</a>"
apage "$R?search=R12"
check "issue29.9 a search" "$(grep -c '>R12</a>' <<<"$BODY")" 1

# ---- the role picker on the user pages ----
req POST "$P/roles" '{"code":"ops","name":"Ops <x>"}'
apage "${HOME_PATH}new-user"
has "issue29.9 the user form picks a role by name" '<select id="f-role_id" name="role_id">'
has "issue29.9 ... its label" '<label for="f-role_id">Role</label>'
has "issue29.9 ... a role, escaped" ">Ops &lt;x&gt;</option>"
lacks "issue29.9 ... the deleted one gone" "value=\"$ROLE\""
apage "${HOME_PATH}users/$ADMIN_ID"
has "issue29.9 the user's role chosen" "<option value=\"$ADMIN_ROLE\" selected>"
apage "${HOME_PATH}users"
has "issue29.9 the list's role filter stays a role ID (no roles read for a list page)" '<input id="f-role_id" name="role_id" type="text"'
console_user una usermaker users:read users:create
apage "${HOME_PATH}new-user"
has "issue29.9 without roles:read: a role ID field" '<input id="f-role_id" name="role_id" type="text"'

# ---- a role's change reaches its users' next page (the scopes are cached
# per store state: any commit, ours or the CLI's, retires them) ----
console_user vera viewers users:read
VIEWERS=$(db "select id from roles where code = 'viewers'")
apage "${HOME_PATH}users"
check "issue29.9 a role with users:read: the users page" "$STATUS" 200
apage "${HOME_PATH}users"
check "issue29.9 ... again (from the cache)" "$STATUS" 200
req PUT "$P/roles/$VIEWERS" "{\"code\":\"viewers\",\"name\":\"viewers\",\"permission_ids\":$(ids roles:read)}"
apage "${HOME_PATH}users"
check "issue29.9 users:read taken from the role: refused at the next page" "$STATUS" 403
apage "${HOME_PATH}roles"
check "issue29.9 ... and roles:read given: shown" "$STATUS" 200
db "insert into role_permissions (role_id, permission_id) values ('$VIEWERS', '$(pid users:read)')" >/dev/null
apage "${HOME_PATH}users"
check "issue29.9 a permission given by another process: shown at the next page" "$STATUS" 200

finish
