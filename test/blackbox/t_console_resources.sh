# The admin console's resources pages (issue 29, docs/console.md),
# issue29.7: the list, create, edit (the permissions as rows: an edited one
# keeps its ID, an emptied one is deleted, a new one added) and delete after
# a confirmation, run through the resources API's steps (its sentences, the
# audit trail with the user as actor); default resources read-only; shown
# only as resources:* allow.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/cli_lib.sh"
start_server
. "$(dirname "$0")/console_lib.sh"
R="${HOME_PATH}resources"
resources_count() { db "select count(*) from resources where project_id = '$PROJECT_ID'"; }

console_admin

# ---- the list ----
apage "$HOME_PATH"
has "issue29.7 resources:read shows the Resources link" "<a href=\"$R\">Resources</a>"
apage "$R"
check_status "issue29.7 the resources list" 200
check_header "issue29.7 X-Frame-Options" '^X-Frame-Options: DENY$'
check_header "issue29.7 form-action 'self'" "^Content-Security-Policy: .*form-action 'self'"
has "issue29.7 the default resources, their permissions named" "users:read"
has "issue29.7 resources:create shows the create link" ">Create a resource</a>"

# ---- create ----
apage "${HOME_PATH}new-resource"
check_status "issue29.7 the create form" 200
has "issue29.7 a permission row's inputs labelled" '<label for="f-p1-code">Code</label>'
TOK=$(form_token)
BEFORE=$(resources_count)
SITE_H=cross-site apost "$R" name=Evil code=evil
check_status "issue29.7 a cross-site create: 403" 403
TOKEN_F=wrong apost "$R" name=Evil code=evil
check_status "issue29.7 a wrong token: 403" 403
check "issue29.7 ... nothing made" "$(resources_count)" "$BEFORE"
apost "$R" "name=Orders <script>x</script>" code=orders description=Shop \
	perm_id= perm_code=read "perm_name=Read <b>" perm_description= \
	perm_id= perm_code=ship perm_name=Ship perm_description=Sends \
	perm_id= perm_code= perm_name= perm_description=
check_status "issue29.7 create" 302
RES=$(basename "$(location)")
req GET "$P/resources/$RES"
check_json "issue29.7 stored" '[.name, .code, (.permissions|map(.code)|join(","))] | join(" ")' "Orders <script>x</script> orders read,ship"
READ_ID=$(jq -r '.permissions[]|select(.code=="read").id' <<<"$BODY")
check "issue29.7 audited as the user's" \
	"$(db "select actor from events where action = 'resource.create' and target = '$RES'")" "$ADMIN_ID"
apage "$R/$RES"
check_status "issue29.7 the resource's page" 200
has "issue29.7 the name escaped" "Orders &lt;script&gt;x&lt;/script&gt;"
lacks "issue29.7 no markup" "<script>"
has "issue29.7 a permission's name escaped" 'value="Read &lt;b&gt;"'
has "issue29.7 its ID kept in the row" "value=\"$READ_ID\""
# errors: the API's sentence beside the field; a taken code
apage "${HOME_PATH}new-resource"; TOK=$(form_token)
BEFORE=$(resources_count)
apost "$R" name=Again code=orders
check_status "issue29.7 a taken code: 409" 409
has "issue29.7 ... beside the code" 'id="e-code"'
apost "$R" name=Bad "code=bad code"
check_status "issue29.7 a bad code: 400" 400
has "issue29.7 ... beside the code" 'id="e-code"'
apost "$R" name=Bad code=bad perm_id= "perm_code=bad code" perm_name=X perm_description=
check_status "issue29.7 a bad permission code: 400" 400
has "issue29.7 ... the API's sentence" "permissions[0]"
check "issue29.7 ... nothing made" "$(resources_count)" "$BEFORE"

# ---- edit: a permission kept with its ID, one deleted, one added ----
req POST "$P/roles" "{\"code\":\"readers\",\"name\":\"Readers\",\"permission_ids\":[\"$READ_ID\"]}"
ROLE=$(jq -r .id <<<"$BODY")
SHIP_ID=$(db "select id from permissions where resource_id = '$RES' and code = 'ship'")
apage "$R/$RES"; TOK=$(form_token)
apost "$R/$RES" name=Orders code=orders description= \
	"perm_id=$READ_ID" perm_code=read "perm_name=Read them" perm_description= \
	"perm_id=$SHIP_ID" perm_code= perm_name= perm_description= \
	perm_id= perm_code=refund perm_name=Refund perm_description=
check_status "issue29.7 edit" 302
req GET "$P/resources/$RES"
check_json "issue29.7 edited" '[.name, (.permissions|map(.code + "=" + .name)|join(","))] | join(" ")' "Orders read=Read them,refund=Refund"
check_json "issue29.7 the kept permission keeps its ID" '.permissions[]|select(.code=="read").id' "$READ_ID"
req GET "$P/roles/$ROLE"
check_json "issue29.7 ... and the role holding it keeps it" '.permission_ids[0]' "$READ_ID"

# ---- a default resource is read-only ----
USERS_RES=$(db "select id from resources where project_id = '$PROJECT_ID' and code = 'users'")
apage "$R/$USERS_RES"
check_status "issue29.7 a default resource's page" 200
has "issue29.7 ... says it is default" "A default resource"
no_form "issue29.7 ... no form"
TOK=$(form_token)
apost "$R/$USERS_RES/delete"
check_status "issue29.7 deleting a default resource: the API's 400" 400

# ---- resources:read alone: no form, a post changes nothing ----
console_user ro resread resources:read
apage "$R"
check_status "issue29.7 resources:read: the list" 200
lacks "issue29.7 resources:read: no create link" "Create a resource"
apage "$R/$RES"
check_status "issue29.7 resources:read: a resource's page" 200
no_form "issue29.7 resources:read: no form"
has "issue29.7 resources:read: its permissions" "orders:refund"
apage "$R/$RES/delete"
check_status "issue29.7 resources:read: the delete's confirmation is refused" 403
apage "$HOME_PATH"; TOK=$(form_token)
apost "$R/$RES/delete"
check_status "issue29.7 resources:read: a delete post is refused" 403
apost "$R/$RES" name=Changed code=orders
check_status "issue29.7 resources:read: an edit post is refused" 403
req GET "$P/resources/$RES"
check_json "issue29.7 ... unchanged" .name Orders

# ---- delete, after a confirmation ----
WHO_JAR=$TMP/admin_jar
apage "$R/$RES/delete"
check_status "issue29.7 the delete's confirmation" 200
has "issue29.7 ... one button" ">Delete this resource</button>"
TOK=$(form_token)
apost "$R/$RES/delete"
check_status "issue29.7 delete" 302
check "issue29.7 back to the list" "$(location)" "$R"
req GET "$P/resources/$RES"
check_err "issue29.7 deleted" 404 resource_not_found
check "issue29.7 the delete is audited as the user's" \
	"$(db "select actor from events where action = 'resource.delete' and target = '$RES'")" "$ADMIN_ID"

finish
