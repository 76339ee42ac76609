# The admin console (issue 29, docs/console.md): its pages under /console/,
# its sign-in through the project's own sign-in page as the project's
# built-in client (no client record, no code; SSO with the project's
# session), the headers every page carries, what each named permission
# shows, and the form token and Origin / Sec-Fetch-Site checks of its posts.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/cli_lib.sh"
start_server
JAR=$TMP/jar
HOME_PATH="/console/projects/$PROJECT_ID/"
CONSOLE="console.$PROJECT_ID"
location() { printf '%s' "$HDRS" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p'; }
has() { if grep -Fq -- "$2" <<<"$BODY"; then pass; else fail "$1: no '$2' in ${BODY:0:400}"; fi; }
lacks() { if grep -Fq -- "$2" <<<"$BODY"; then fail "$1: '$2' is shown"; else pass; fi; }
# page PATH [curl args...]: GET a console page with the browser's jar
page() { local path=$1; shift; AUTH=none req GET "$path" -b "$JAR" -c "$JAR" "$@"; }
# console_sign_in EMAIL PASSWORD: the console's sign-in form, as a browser
# posts it after the redirect (no PKCE: the console gets no code)
console_sign_in() {
	STATUS=$(curl -s -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}' -b "$JAR" -c "$JAR" \
		-H "Origin: $BASE" --data-urlencode response_type=code \
		--data-urlencode "client_id=$CONSOLE" --data-urlencode "redirect_uri=$BASE$HOME_PATH" \
		--data-urlencode "email=$1" --data-urlencode "password=$2" "$BASE/api/v1/authorize")
	BODY=$(cat "$TMP/body"); HDRS=$(cat "$TMP/hdrs")
}
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

finish
