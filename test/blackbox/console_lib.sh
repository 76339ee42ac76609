# Helpers for the admin console's tests (docs/console.md): a browser's
# sign-in as the console, its pages and its posts. Sourced after lib.sh,
# signin_lib.sh and start_server.
HOME_PATH="/console/projects/$PROJECT_ID/"
CONSOLE="console.$PROJECT_ID"
location() { printf '%s' "$HDRS" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p'; }
has() { if grep -Fq -- "$2" <<<"$BODY"; then pass; else fail "$1: no '$2' in ${BODY:0:400}"; fi; }
lacks() { if grep -Fq -- "$2" <<<"$BODY"; then fail "$1: '$2' is shown"; else pass; fi; }
# escaped TEXT: TEXT as a page shows it (html.c's escaping)
escaped() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g' -e "s/'/\&#39;/g" <<<"$1"; }
# console_sign_in EMAIL PASSWORD: the console's sign-in form, as a browser
# posts it after the redirect (no PKCE: the console gets no code), with JAR
console_sign_in() {
	STATUS=$(curl -s -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}' -b "$JAR" -c "$JAR" \
		-H "Origin: $BASE" --data-urlencode response_type=code \
		--data-urlencode "client_id=$CONSOLE" --data-urlencode "redirect_uri=$BASE$HOME_PATH" \
		--data-urlencode "email=$1" --data-urlencode "password=$2" "$BASE/api/v1/authorize")
	BODY=$(cat "$TMP/body"); HDRS=$(cat "$TMP/hdrs")
}
# apage PATH [curl args...]: GET a console page with the jar WHO_JAR
apage() { local path=$1; shift; AUTH=none req GET "$path" -b "$WHO_JAR" -c "$WHO_JAR" "$@"; }
# form_token: the form token in the page last read (BODY)
form_token() { grep -o 'name="form_token" value="[^"]*"' <<<"$BODY" | head -1 | sed 's/.*value="//; s/"$//'; }
# apost PATH FIELD=VALUE...: a browser's post of a console form with WHO_JAR,
# from ORIGIN_H (default our origin) with Sec-Fetch-Site SITE_H (default
# same-origin), and TOKEN_F as the form token (unset: TOK; "none": none)
apost() {
	local path=$1; shift
	local args=(-s -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}' -b "$WHO_JAR" -c "$WHO_JAR"
		-H "Origin: ${ORIGIN_H:-$BASE}" -H "Sec-Fetch-Site: ${SITE_H:-same-origin}")
	[ "${TOKEN_F:-}" != none ] && args+=(--data-urlencode "form_token=${TOKEN_F:-$TOK}")
	for f in "$@"; do args+=(--data-urlencode "$f"); done
	[ $# -eq 0 ] && [ "${TOKEN_F:-}" = none ] && args+=(-d "")
	STATUS=$(curl "${args[@]}" "$BASE$path")
	BODY=$(cat "$TMP/body"); HDRS=$(cat "$TMP/hdrs")
}
# no_form NAME: the page last read has no form but the navigation's sign-out
no_form() { check "$1" "$(grep -o '<form[^>]*>' <<<"$BODY" | grep -vc 'sign-out"')" 0; }
# console_admin: the first administrator made on the box (docs/console.md),
# signed in to the console with WHO_JAR ($TMP/admin_jar); sets ADMIN_ID
console_admin() {
	run role add --project "$PROJECT_ID" --code admin --name Administrators --permission '*'
	INPUT="admin password" run user add --project "$PROJECT_ID" --email admin@example.com \
		--name Admin --role admin --password-stdin
	ADMIN_ID=$(jq -r .id <<<"$OUT")
	WHO_JAR=$TMP/admin_jar
	JAR=$WHO_JAR console_sign_in admin@example.com "admin password"
}
# console_user NAME CODE PERMISSION...: a role CODE holding those named
# permissions and a user NAME (NAME@example.com, password "NAME password")
# of it, signed in with WHO_JAR ($TMP/NAME_jar)
console_user() {
	local name=$1 code=$2; shift 2
	load_resources
	req POST "$P/roles" "{\"code\":\"$code\",\"name\":\"$code\",\"permission_ids\":$(ids "$@")}"
	req POST "$P/users" "$(jq -cn --arg r "$(jq -r .id <<<"$BODY")" --arg n "$name" \
		'{display_name:$n,email:($n+"@example.com"),password:($n+" password"),role_id:$r}')"
	WHO_JAR=$TMP/${name}_jar
	JAR=$WHO_JAR console_sign_in "$name@example.com" "$name password"
}
