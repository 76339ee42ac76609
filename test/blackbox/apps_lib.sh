# The recipes of docs/connecting-apps.md, run as the doc shows them (a file
# of docs/recipes/, byte for byte) by the t_app_*.sh files, and a user
# agent that signs a user in through an app as a browser does. Sourced after
# lib.sh and signin_lib.sh.
#
#   missing_tool WHAT              # skip the file, or fail under make test
#   ua_browse URL EMAIL PASSWORD   # follow redirects, post the sign-in form
#   run_recipe CMD FILE ENV...     # run a recipe in the background
#   stop_app                       # stop it
RECIPES=$ROOT/docs/recipes
APP_PID=
trap 'stop_app; stop_server' EXIT

# missing_tool WHAT: a tool a recipe needs is not installed. Under make
# test, whose scripts/install-deps test installs it, that is a failure;
# run alone, the file is skipped with what to install.
missing_tool() {
	if [ -n "${EDGEAUTH_MAKE_TEST:-}" ]; then fail "$1 is not installed (scripts/install-deps test installs it)"
	else echo "skip: $1 is not installed: run scripts/install-deps test"; fi
	finish; exit
}

unescape_html() {
	sed -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&quot;/"/g' -e "s/&#39;/'/g" -e "s/&#x27;/'/g" -e 's/&amp;/\&/g'
}

# ua_browse URL EMAIL PASSWORD: a browser's visit to URL with a cookie jar
# ($TMP/ua.jar): redirects are followed, and edgeauth's sign-in form, when
# shown, is posted once with EMAIL and PASSWORD (Origin: the issuer's, as a
# browser sends it). Sets STATUS and BODY of the last page; $TMP/ua.log
# lists each request as "METHOD STATUS URL".
ua_browse() {
	local url=$1 email=$2 password=$3 posted="" n action
	local args=(-s --max-time 120 -b "$TMP/ua.jar" -c "$TMP/ua.jar" -D "$TMP/ua.hdrs" -o "$TMP/ua.body"
		-w '%{http_code} %{redirect_url}')
	: > "$TMP/ua.log"
	for n in $(seq 12); do
		read -r STATUS next < <(curl "${args[@]}" "$url")
		echo "GET $STATUS $url" >> "$TMP/ua.log"
		if [ "${STATUS:0:1}" = 3 ] && [ -n "$next" ]; then url=$next; continue; fi
		BODY=$(cat "$TMP/ua.body")
		[ "$STATUS" = 200 ] && [ -z "$posted" ] && grep -q 'name="password"' "$TMP/ua.body" || return 0
		posted=1
		action=$(grep -o '<form method="post" action="[^"]*"' "$TMP/ua.body" | sed 's/.*action="//; s/"$//' | unescape_html)
		local form=(-H "Origin: $BASE" --data-urlencode "email=$email" --data-urlencode "password=$password")
		while IFS= read -r field; do form+=(--data-urlencode "$field"); done < <(
			grep -o '<input type="hidden" name="[^"]*" value="[^"]*">' "$TMP/ua.body" |
				sed -E 's/.*name="([^"]*)" value="([^"]*)".*/\1=\2/' | unescape_html)
		read -r STATUS next < <(curl "${args[@]}" "${form[@]}" "$action")
		echo "POST $STATUS $action" >> "$TMP/ua.log"
		[ "${STATUS:0:1}" = 3 ] && [ -n "$next" ] || { BODY=$(cat "$TMP/ua.body"); return 0; }
		url=$next
	done
	BODY="too many redirects"
}

# run_recipe CMD FILE ENV...: docs/recipes/FILE run by CMD (node, python3)
# in the background (APP_PID; its output in $TMP/app.log) with those
# NAME=VALUE settings, from a copy beside test/oauth-client's pinned
# node_modules; returns once its
# listener (APP_URL) answers, or fails when it exited first. EDIT=SED_EXPR
# runs a changed copy (sed -e), failing when the expression changed nothing.
run_recipe() {
	local cmd=$1 file=$2; shift 2
	mkdir -p "$TMP/app"
	ln -sfn "$ROOT/test/oauth-client/node_modules" "$TMP/app/node_modules"
	cp "$RECIPES/$file" "$TMP/app/$file"
	if [ -n "${EDIT:-}" ]; then
		sed -i -e "$EDIT" "$TMP/app/$file"
		cmp -s "$RECIPES/$file" "$TMP/app/$file" && { fail "$file: '$EDIT' changed nothing"; return 1; }
	fi
	(cd "$TMP/app" && exec env "$@" "$cmd" "$file" > "$TMP/app.log" 2>&1) &
	APP_PID=$!
	app_up() { curl -s -o /dev/null "$APP_URL/" || ! kill -0 "$APP_PID" 2> /dev/null; }
	wait_for app_up
	kill -0 "$APP_PID" 2> /dev/null
}

stop_app() {
	[ -n "$APP_PID" ] || return 0
	kill "$APP_PID" 2> /dev/null
	wait "$APP_PID" 2> /dev/null
	APP_PID=
}

# check_signed_in WHAT: the app's last page (BODY) is its JSON of a sign-in
# of USER (EMAIL): the ID token's sub and the UserInfo answer
check_signed_in() {
	check_status "$1: the app's callback page" 200
	check_json "$1: the ID token's sub" .sub "$USER"
	check_json "$1: UserInfo's sub" .userinfo.sub "$USER"
	check_json "$1: UserInfo's email" .userinfo.email "$EMAIL"
	check "$1: the sign-in form was shown and posted" "$(grep -c '^POST 302 .*/api/v1/authorize' "$TMP/ua.log")" 1
}

# app_client NAME METHOD [REDIRECT_PATH]: the user Ada (EMAIL, PASSWORD,
# USER) and a client NAME with token_endpoint_auth_method METHOD whose
# redirect URI is APP_URL (a free loopback port) + REDIRECT_PATH
# (/callback); sets CID and CSECRET (empty for a public client)
app_client() {
	EMAIL="ada@example.com"; PASSWORD='ada signs in to the app'
	reader_user "$EMAIL" "$PASSWORD" "Ada"
	APP_URL="http://127.0.0.1:$(free_port)"
	req POST "$P/clients" "$(jq -cn --arg n "$1" --arg m "$2" --arg u "$APP_URL${3:-/callback}" \
		'{name: $n, redirect_uris: [$u], token_endpoint_auth_method: $m}')"
	check_status "issue27.3 register $1" 201
	CID=$(jq -r .id <<<"$BODY"); CSECRET=$(jq -r '.client_secret // empty' <<<"$BODY")
}

# check_node_recipe FILE WHAT HTTP_SETTING_OFF ENV...: the Node recipe FILE
# signs Ada in through its /login (check_signed_in); on an http issuer, the
# copy whose one http setting is turned off by the sed expression
# HTTP_SETTING_OFF stops at discovery with the library's refusal of http.
check_node_recipe() {
	local file=$1 what=$2 off=$3; shift 3
	run_recipe node "$file" "$@"
	check "issue27.3 $what recipe starts: $(head -3 "$TMP/app.log")" "$?" 0
	ua_browse "$APP_URL/login" "$EMAIL" "$PASSWORD"
	check_signed_in "issue27.3 $what recipe"
	stop_app
	[ -n "${EDGEAUTH_TLS:-}" ] && return 0
	EDIT=$off run_recipe node "$file" "$@"
	check "issue27.3 $what without allowInsecureRequests stops at discovery" "$?" 1
	check "issue27.3 $what without allowInsecureRequests: why" \
		"$(grep -m1 -o 'only requests to HTTPS are allowed' "$TMP/app.log")" "only requests to HTTPS are allowed"
	stop_app
}
