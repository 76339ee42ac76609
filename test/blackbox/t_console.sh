# The admin console (issue 29, docs/console.md): its pages under /console/,
# its sign-in through the project's own sign-in page as the project's
# built-in client (no client record, no code; SSO with the project's
# session), the headers every page carries, what each named permission
# shows, and the form token and Origin / Sec-Fetch-Site checks of its posts.
# issue29.1: sign-in and the overview; issue29.2: the users pages (list,
# create, edit, password, enable/disable, delete), run through the users
# API's steps: its sentences, its no-escalation rule, the audit trail.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/cli_lib.sh"
start_server
. "$(dirname "$0")/console_lib.sh"
JAR=$TMP/jar
# page PATH [curl args...]: GET a console page with the browser's jar
page() { local path=$1; shift; AUTH=none req GET "$path" -b "$JAR" -c "$JAR" "$@"; }
# page_headers NAME: the console's headers (docs/console.md "How it is protected")
page_headers() {
	check_header "$1: CSP of the sign-in page's family" \
		"^Content-Security-Policy: default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'$"
	check_header "$1: X-Frame-Options" '^X-Frame-Options: DENY$'
	check_header "$1: no-store" '^Cache-Control: no-store$'
	check_header "$1: text/html" '^Content-Type: text/html; charset=utf-8$'
	check "$1: no script" "$(grep -c '<script' <<<"$BODY")" 0
}

# ---- the first administrator, made on the box (docs/console.md) ----
run role add --project "$PROJECT_ID" --code admin --name Administrators --permission '*'
check_ok "issue29.1 role add admin"
INPUT="admin password" run user add --project "$PROJECT_ID" --email admin@example.com --name Admin \
	--role admin --password-stdin
check_ok "issue29.1 user add admin"
ADMIN_ID=$(jq -r .id <<<"$OUT")

# ---- /console/ asks for the project, lists nothing ----
page /console/
check_status "issue29.1 /console/" 200
page_headers "issue29.1 /console/"
has "issue29.1 /console/ asks for the project" '<label for="f-project_id">Project ID</label>'
lacks "issue29.1 /console/ lists no project" "$PROJECT_ID"
page "/console/?project_id=$PROJECT_ID"
check_status "issue29.1 /console/?project_id= goes to the project" 302
check "issue29.1 to the project's console" "$(location)" "$HOME_PATH"

# ---- without a session: to the project's sign-in page, as the console ----
page "$HOME_PATH"
check_status "issue29.1 no session: redirect" 302
SIGNIN=$(location)
check "issue29.1 to the authorize endpoint" "${SIGNIN%%\?*}" "$BASE/api/v1/authorize"
check "issue29.1 as the console's client" "$(query_value "$SIGNIN" client_id)" "$CONSOLE"
check "issue29.1 back to the console" "$(query_value "$SIGNIN" redirect_uri)" "$BASE$HOME_PATH"
AUTH=none req GET "${SIGNIN#"$BASE"}" -b "$JAR" -c "$JAR"
check_status "issue29.1 the sign-in form" 200
has "issue29.1 the form names the console" "Sign in to the console"
has "issue29.1 the form carries the console's client" "value=\"$CONSOLE\""
check "issue29.1 no client record is made" "$(db "select count(*) from clients where id = '$CONSOLE'")" 0

# ---- the console's redirect URI is its home alone; an unknown project is no client ----
AUTH=none req GET "/api/v1/authorize?response_type=code&client_id=$CONSOLE&redirect_uri=http://evil.example/"
check_status "issue29.1 another redirect URI: the 400 page" 400
check "issue29.1 never redirected" "$(location)" ""
AUTH=none req GET "/api/v1/authorize?response_type=code&client_id=console.nope&redirect_uri=$BASE/console/projects/nope/"
check_status "issue29.1 the console of an unknown project: the 400 page" 400
page /console/projects/nope/
check_status "issue29.1 an unknown project's console: 404" 404
page_headers "issue29.1 the 404 page"

# ---- signing in ----
CODES=$(db "select count(*) from auth_codes")
console_sign_in admin@example.com "wrong password"
check_status "issue29.1 a wrong password: the form again" 401
console_sign_in admin@example.com "admin password"
check_status "issue29.1 signed in" 302
check "issue29.1 back to the console's home, no code" "$(location)" "$BASE$HOME_PATH"
check "issue29.1 no code was minted" "$(db "select count(*) from auth_codes")" "$CODES"
check "issue29.1 the session names no client" \
	"$(db "select count(*) from session_clients sc join sessions s on s.id = sc.session_id where s.user_id = '$ADMIN_ID'")" 0
check "issue29.1 the sign-in is audited" \
	"$(db "select actor || ' ' || target from events where action = 'signin.success' and target = '$ADMIN_ID'")" \
	"$CONSOLE $ADMIN_ID"

# ---- the overview ----
page "$HOME_PATH"
check_status "issue29.1 the overview" 200
page_headers "issue29.1 the overview"
has "issue29.1 title" "<h1>Overview</h1>"
has "issue29.1 users count (the admin)" "<tr><td>Users</td><td>1</td></tr>"
has "issue29.1 clients count (the bootstrap admin client)" "<tr><td>Clients</td><td>1</td></tr>"
has "issue29.1 roles count" "<tr><td>Roles</td><td>1</td></tr>"
has "issue29.1 resources count (the four defaults)" "<tr><td>Resources</td><td>4</td></tr>"
has "issue29.1 navigation to users" "<a href=\"${HOME_PATH}users\">Users</a>"
KID=$(curl -s "$BASE/.well-known/jwks.json" | jq -r '.keys[0].kid')
has "issue29.1 the signing keys" "<td>$KID</td>"
has "issue29.1 the active key's state" "<td>active</td>"
run key rotate
check_ok "issue29.1 key rotate"
NEW_KID=$(jq -r '.[0].kid' <<<"$OUT")
page "$HOME_PATH"
has "issue29.1 a rotation shows at the next page" "<td>$NEW_KID</td>"
has "issue29.1 the new key is pending" "<td>pending</td>"
has "issue29.1 the recent events (with the four :read permissions)" "<h2>Recent events</h2>"
has "issue29.1 ... the first administrator's creation" "<td>user.create</td><td>cli</td><td>$ADMIN_ID</td>"
has "issue29.1 ... a link to the whole audit trail" "<a href=\"${HOME_PATH}events\">The whole audit trail</a>"

# ---- single sign-on: with a live session, no form ----
AUTH=none req GET "${SIGNIN#"$BASE"}" -b "$JAR" -c "$JAR"
check_status "issue29.1 SSO: the console's authorize redirects at once" 302
check "issue29.1 SSO: to the console's home" "$(location)" "$BASE$HOME_PATH"
# a session begun at an app's sign-in signs the console in too
reader_user rita@example.com "rita password" Rita
REDIRECT="http://127.0.0.1:9/cb"
req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"],\"permission_ids\":[]}"
APP=$(jq -r .id <<<"$BODY")
rm -f "$JAR"
new_pkce
JAR=$JAR authorize_post "$APP" "$REDIRECT" rita@example.com "rita password" st
check_status "issue29.1 rita signs in to the app" 302
page "$HOME_PATH"
check_status "issue29.1 SSO: the app's session opens the console" 200

# ---- what each permission shows ----
has "issue29.1 users:read shows the users count" "<tr><td>Users</td><td>2</td></tr>"
lacks "issue29.1 users:read alone: no clients" "<td>Clients</td>"
lacks "issue29.1 users:read alone: no roles" "<td>Roles</td>"
lacks "issue29.1 users:read alone: no resources" "<td>Resources</td>"
lacks "issue29.1 users:read alone: no recent events" "Recent events"
req POST "$P/roles" '{"code":"none","name":"Nothing","permission_ids":[]}'
NONE_ROLE=$(jq -r .id <<<"$BODY")
req POST "$P/users" "$(jq -cn --arg r "$NONE_ROLE" '{display_name:"Nemo",email:"nemo@example.com",password:"nemo password",role_id:$r}')"
rm -f "$JAR"
console_sign_in nemo@example.com "nemo password"
page "$HOME_PATH"
check_status "issue29.1 a role without permissions: the overview" 200
has "issue29.1 ... says it may read nothing" "may read none of"
lacks "issue29.1 ... and no users link" ">Users</a>"

# ---- a session of one project is no session of another ----
run project create --name other
check_ok "issue29.1 project create"
OTHER=$(jq -r .project_id <<<"$OUT")
page "/console/projects/$OTHER/"
check_status "issue29.1 another project's console: to its sign-in" 302
check "issue29.1 ... as that project's console" "$(query_value "$(location)" client_id)" "console.$OTHER"

# ---- a deactivated user's session ends: the console signs in again ----
rm -f "$JAR"
console_sign_in rita@example.com "rita password"
page "$HOME_PATH"
check_status "issue29.1 rita's console" 200
req PUT "$P/users/$USER" '{"display_name":"Rita","email":"rita@example.com","is_active":false}'
check_status "issue29.1 rita deactivated" 200
page "$HOME_PATH"
check_status "issue29.1 a deactivated user's console: to the sign-in" 302

########## issue29.2: the users pages ##########
ADMIN_JAR=$TMP/admin_jar
users_count() { db "select count(*) from users where project_id = '$PROJECT_ID'"; }
U="${HOME_PATH}users"

JAR=$ADMIN_JAR console_sign_in admin@example.com "admin password"
WHO_JAR=$ADMIN_JAR
# ---- the list: search, filters, sort, paging ----
apage "$U"
check_status "issue29.2 the users list" 200
page_headers "issue29.2 the users list"
has "issue29.2 the list shows Nemo" ">Nemo</a>"
has "issue29.2 ... with a link to the user" "<a href=\"${U}/"
has "issue29.2 users:create shows the create link" ">Create a user</a>"
has "issue29.2 the search is labelled" '<label for="f-search">Search</label>'
apage "$U?search=NEM"
has "issue29.2 search (any case)" ">Nemo</a>"
lacks "issue29.2 search leaves the others out" ">Admin</a>"
apage "$U?is_active=false&search="
has "issue29.2 the inactive filter" ">Rita</a>"
lacks "issue29.2 ... alone" ">Nemo</a>"
apage "$U?sort_by=display_name&sort_dir=asc&page_size=1&page_num=2"
has "issue29.2 sorted by name, page 2 of 1 each" ">Nemo</a>"
has "issue29.2 the page line" "Page 2 of 3, 3 users."
has "issue29.2 a previous page link" ">Previous page</a>"
has "issue29.2 a next page link keeps the query" "page_size=1&amp;page_num=3"
apage "$U?page_size=500"
check_status "issue29.2 a bad page size: the API's error" 400
has "issue29.2 ... its sentence" "page_size"

# ---- create, with every value escaped ----
apage "${HOME_PATH}new-user"
check_status "issue29.2 the create form" 200
TOK=$(form_token)
check "issue29.2 the form carries a token" "${#TOK}" 43
BEFORE=$(users_count)
apost "$U" "display_name=<script>alert(1)</script>" email=xavier@example.com "password=xavier password"
check_status "issue29.2 create" 302
X=$(basename "$(location)")
check "issue29.2 to the new user's page" "$(location)" "$U/$X"
check "issue29.2 the user is stored" "$(users_count)" $((BEFORE + 1))
apage "$U/$X"
check_status "issue29.2 the user's page" 200
has "issue29.2 the name is escaped" "&lt;script&gt;alert(1)&lt;/script&gt;"
check "issue29.2 no script on the page" "$(grep -c '<script' <<<"$BODY")" 0
apage "$U?search=xavier"
has "issue29.2 escaped in the list too" ">&lt;script&gt;alert(1)&lt;/script&gt;</a>"
check "issue29.2 the console's create is audited with the user as actor" \
	"$(db "select actor from events where action = 'user.create' and target = '$X'")" "$ADMIN_ID"
# errors: the API's sentence beside the field, nothing stored
req POST "$P/users" '{"display_name":"Bad","email":"not an email","password":"bad password"}'
API_WHY=$(escaped "$(jq -r .error_description <<<"$BODY")")
apage "${HOME_PATH}new-user"; TOK=$(form_token)
apost "$U" display_name=Bad "email=not an email" "password=bad password"
check_status "issue29.2 a bad email: the API's status" 400
has "issue29.2 ... the API's sentence beside the email field" "<p class=\"error\" id=\"e-email\">$API_WHY</p>"
has "issue29.2 ... the field says so" 'aria-describedby="e-email"'
has "issue29.2 ... the value typed is kept" 'value="not an email"'
lacks "issue29.2 ... the password is not echoed" "bad password"
check "issue29.2 ... nothing stored" "$(users_count)" $((BEFORE + 1))
apost "$U" display_name=Dup email=xavier@example.com "password=dup password"
check_status "issue29.2 a taken email: 409" 409
has "issue29.2 ... beside the email field" 'id="e-email"'

# ---- edit, set a password and sign in with it, disable, enable ----
apage "$U/$X"; TOK=$(form_token)
has "issue29.2 the edit form" '<label for="f-display_name">Name</label>'
apost "$U/$X" display_name=Xavier email=xavier@example.com external_user_id= avatar_url= role_id=
check_status "issue29.2 edit" 302
req GET "$P/users/$X"
check_json "issue29.2 edited" .display_name Xavier
apost "$U/$X/password" "password=short"
check_status "issue29.2 a short password: 400" 400
has "issue29.2 ... beside the password field" 'id="e-password">password must be at least'
apost "$U/$X/password" "password=xavier's new password"
check_status "issue29.2 set a password" 302
new_pkce
rm -f "$TMP/xjar"
JAR=$TMP/xjar authorize_post "$APP" "$REDIRECT" xavier@example.com "xavier's new password" st
check_status "issue29.2 xavier signs in with the new password" 302
check "issue29.2 ... with a code" "$([ -n "$(query_value "$LOCATION" code)" ] && echo yes)" yes
JAR=$TMP/xjar authorize_post "$APP" "$REDIRECT" xavier@example.com "xavier password" st
check_status "issue29.2 the old password no longer" 401
apost "$U/$X/active" is_active=false
check_status "issue29.2 disable" 302
req GET "$P/users/$X"
check_json "issue29.2 disabled" .is_active false
apage "$U/$X"; TOK=$(form_token)
has "issue29.2 an enable button" ">Enable the user</button>"
apost "$U/$X/active" is_active=true
req GET "$P/users/$X"
check_json "issue29.2 enabled" .is_active true
check "issue29.2 the updates are audited as the user's" \
	"$(db "select count(*) from events where action = 'user.update' and target = '$X' and actor = '$ADMIN_ID'")" 4

# ---- the form token and the cross-site checks: 403, nothing changed ----
BEFORE=$(users_count)
TOKEN_F=none apost "$U" display_name=Mallory email=m1@example.com "password=mallory password"
check_status "issue29.2 no form token: 403" 403
TOKEN_F=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA apost "$U" display_name=Mallory email=m2@example.com "password=mallory password"
check_status "issue29.2 a wrong form token: 403" 403
ORIGIN_H=http://evil.example apost "$U" display_name=Mallory email=m3@example.com "password=mallory password"
check_status "issue29.2 a cross-site Origin: 403" 403
SITE_H=cross-site apost "$U" display_name=Mallory email=m4@example.com "password=mallory password"
check_status "issue29.2 Sec-Fetch-Site cross-site: 403" 403
SITE_H=same-site apost "$U" display_name=Mallory email=m5@example.com "password=mallory password"
check_status "issue29.2 Sec-Fetch-Site same-site: 403" 403
WHO_JAR=$TMP/nojar apost "$U" display_name=Mallory email=m6@example.com "password=mallory password"
check_status "issue29.2 no session: 403" 403
TOKEN_F=none apost "$U/$X/delete"
check_status "issue29.2 a delete without the token: 403" 403
check "issue29.2 nothing was changed" "$(users_count)" "$BEFORE"
check "issue29.2 ... no Mallory" "$(db "select count(*) from users where display_name = 'Mallory'")" 0

# ---- delete, after a confirmation ----
apage "$U/$X/delete"
check_status "issue29.2 the confirmation page" 200
has "issue29.2 ... asks" ">Delete this user</button>"
TOK=$(form_token)
apost "$U/$X/delete"
check_status "issue29.2 delete" 302
check "issue29.2 back to the list" "$(location)" "$U"
req GET "$P/users/$X"
check_err "issue29.2 deleted" 404 user_not_found
apage "$U/$X"
check_status "issue29.2 a deleted user's page: 404" 404
check "issue29.2 the delete is audited as the user's" \
	"$(db "select actor from events where action = 'user.delete' and target = '$X'")" "$ADMIN_ID"

# ---- users:read alone: no form, and a post changes nothing ----
load_resources
req POST "$P/roles" "{\"code\":\"readonly\",\"name\":\"Read only\",\"permission_ids\":$(ids users:read)}"
RO_ROLE=$(jq -r .id <<<"$BODY")
req POST "$P/users" "$(jq -cn --arg r "$RO_ROLE" '{display_name:"Reed",email:"reed@example.com",password:"reed password",role_id:$r}')"
READ_JAR=$TMP/read_jar
JAR=$READ_JAR console_sign_in reed@example.com "reed password"
WHO_JAR=$READ_JAR
apage "$U"
check_status "issue29.2 users:read: the list" 200
lacks "issue29.2 users:read: no create link" "Create a user"
apage "$U/$ADMIN_ID"
check_status "issue29.2 users:read: a user's page" 200
no_form "issue29.2 users:read: no form"
apage "${HOME_PATH}new-user"
check_status "issue29.2 users:read: the create form is refused" 403
apage "$HOME_PATH"; TOK=$(form_token)
[ -z "$TOK" ] && TOK=$(printf '%s' "console:$(awk -F'\t' -v n="edgeauth_$PROJECT_ID" '$6 == n { print $7 }' "$READ_JAR")" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=\n')
BEFORE=$(users_count)
apost "$U" display_name=Reeds email=reeds@example.com "password=reeds password"
check_status "issue29.2 users:read: a create post (valid token) is refused" 403
apost "$U/$ADMIN_ID/active" is_active=false
check_status "issue29.2 users:read: a disable post is refused" 403
apost "$U/$ADMIN_ID/delete"
check_status "issue29.2 users:read: a delete post is refused" 403
check "issue29.2 users:read: nothing changed" "$(users_count)" "$BEFORE"
req GET "$P/users/$ADMIN_ID"
check_json "issue29.2 users:read: the admin is still active" .is_active true

# ---- no escalation, exactly as through the API ----
req POST "$P/roles" "{\"code\":\"usermgr\",\"name\":\"User managers\",\"permission_ids\":$(ids users:read users:create users:update)}"
MGR_ROLE=$(jq -r .id <<<"$BODY")
ADMIN_ROLE=$(db "select id from roles where project_id = '$PROJECT_ID' and code = 'admin'")
req POST "$P/users" "$(jq -cn --arg r "$MGR_ROLE" '{display_name:"Una",email:"una@example.com",password:"una password",role_id:$r}')"
# Una's own access token, through the app, for the API's answer
new_pkce
rm -f "$TMP/ujar"
JAR=$TMP/ujar authorize_post "$APP" "$REDIRECT" una@example.com "una password" st
exchange "$APP" "$REDIRECT" "$(query_value "$LOCATION" code)" "$VERIFIER"
UNA_TOKEN=$ACCESS
AUTH="Bearer $UNA_TOKEN" req POST "$P/users" "$(jq -cn --arg r "$ADMIN_ROLE" '{display_name:"Esc",email:"esc@example.com",password:"esc password",role_id:$r}')"
check_err "issue29.2 the API refuses Una an admin" 403 insufficient_permission
API_WHY=$(escaped "$(jq -r .error_description <<<"$BODY")")
AUTH="Bearer $UNA_TOKEN" req PUT "$P/users/$ADMIN_ID" '{"display_name":"Pwned","email":"admin@example.com","is_active":true}'
check_err "issue29.2 the API refuses Una the admin's update" 403 insufficient_permission
API_WHY2=$(escaped "$(jq -r .error_description <<<"$BODY")")
UNA_JAR=$TMP/una_console
JAR=$UNA_JAR console_sign_in una@example.com "una password"
WHO_JAR=$UNA_JAR
apage "${HOME_PATH}new-user"; TOK=$(form_token)
BEFORE=$(users_count)
apost "$U" display_name=Esc email=esc@example.com "password=esc password" "role_id=$ADMIN_ROLE"
check_status "issue29.2 the console refuses Una an admin: 403" 403
has "issue29.2 ... with the API's sentence" "$API_WHY"
check "issue29.2 ... nothing stored" "$(users_count)" "$BEFORE"
apost "$U/$ADMIN_ID" display_name=Pwned email=admin@example.com external_user_id= avatar_url= "role_id=$ADMIN_ROLE"
check_status "issue29.2 the console refuses Una the admin's update: 403" 403
has "issue29.2 ... with the API's sentence" "$API_WHY2"
apost "$U/$ADMIN_ID/active" is_active=false
check_status "issue29.2 ... and the admin's deactivation" 403
apost "$U/$ADMIN_ID/delete"
check_status "issue29.2 ... and the admin's deletion" 403
req GET "$P/users/$ADMIN_ID"
check_json "issue29.2 the admin is unchanged" '.display_name + " " + (.is_active|tostring)' "Admin true"
apost "$U" display_name=Fine email=fine@example.com "password=fine password" "role_id=$MGR_ROLE"
check_status "issue29.2 Una may give her own role" 302

finish
