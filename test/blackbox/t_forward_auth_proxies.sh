# issue31.3: forward authentication behind real proxies (docs/forward-auth.md):
# Debian's nginx and Caddy, each started here on its own config in $TMP
# (never their services): the configs are docs/recipes/forward-auth-nginx.conf
# and forward-auth-Caddyfile with this run's ports and hosts put in, the
# files docs/forward-auth.md embeds (t_connecting_apps.sh holds the doc to
# them). Behind each, two apps (app1.localhost, app2.localhost; a small
# Python app that shows the headers it got), driven by Chromium
# (test/browser/forward_auth.mjs): sign in and the app sees the Remote-*
# headers; the second app by single sign-on without a form; a Remote-User
# the browser sends never reaches the app; logout ends both; an open
# redirect through the callback is refused; a user of a role app 2's
# allowed_role_ids excludes gets 403 (a live app session, and a new
# sign-in). Needs nginx, caddy, chromium,
# node and npm (scripts/install-deps test).
. "$(dirname "$0")/lib.sh"
. "$BB_DIR/signin_lib.sh"
BROWSER_DIR=$ROOT/test/browser
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
STEPS="launch app1_signs_in app1_headers forged_remote_user_dropped app2_single_sign_on app2_headers
excluded_role_403 rule_lifted open_redirect_refused logout ended_both excluded_signin_403"
for tool in nginx caddy "$CHROMIUM"; do
	if ! command -v "$tool" > /dev/null; then
		fail "$tool is needed for this test (scripts/install-deps test)"
		finish; exit 1
	fi
done
need_node_project "$BROWSER_DIR" playwright-core

start_server "server.trusted_proxies=127.0.0.1"
reader_user fa-user@example.com "fa user's password" "FA User"
req POST "$P/roles" '{"code":"fa-other","name":"Other","permission_ids":[]}'
OTHER_ROLE=$(jq -r .id <<<"$BODY")

# the app
python3 "$BB_DIR/forward_auth_app.py" > "$TMP/app.port" 2>> "$TMP/app.log" &
APP_PID=$!
wait_for test -s "$TMP/app.port"
APP_PORT=$(head -n 1 "$TMP/app.port")

# recipe FILE HOST APP_HOST_PORT...: the recipe with this run's addresses
recipe() {
	sed -e "s/127\.0\.0\.1:8080/127.0.0.1:$PORT/g" -e "s/127\.0\.0\.1:3000/127.0.0.1:$APP_PORT/g" \
		-e "s/dash\.box\.example/$2/g" "$ROOT/docs/recipes/$1"
}

# nginx: one server block per app, on NGINX_PORT
NGINX_PORT=$(free_port)
mkdir -p "$TMP/nginx"
for app in app1 app2; do
	recipe forward-auth-nginx.conf "$app.localhost" | sed "s/listen 80;/listen 127.0.0.1:$NGINX_PORT;/" \
		> "$TMP/nginx/$app.conf"
done
cat > "$TMP/nginx/nginx.conf" <<NGINX
pid $TMP/nginx/nginx.pid;
error_log $TMP/nginx/error.log;
events {}
http {
    access_log $TMP/nginx/access.log;
    client_body_temp_path $TMP/nginx/body;
    proxy_temp_path $TMP/nginx/proxy;
    fastcgi_temp_path $TMP/nginx/fastcgi;
    uwsgi_temp_path $TMP/nginx/uwsgi;
    scgi_temp_path $TMP/nginx/scgi;
    include $TMP/nginx/app1.conf;
    include $TMP/nginx/app2.conf;
}
NGINX
nginx -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" -g 'daemon off;' 2>> "$TMP/nginx/stderr" &
NGINX_PID=$!

# caddy: one site per app, on CADDY_PORT, admin off
CADDY_PORT=$(free_port)
mkdir -p "$TMP/caddy"
{
	printf '{\n\tadmin off\n\tauto_https off\n\tstorage file_system %s\n}\n' "$TMP/caddy"
	for app in app1 app2; do recipe forward-auth-Caddyfile "$app.localhost:$CADDY_PORT" | grep -v '^#'; done
} > "$TMP/caddy/Caddyfile"
XDG_DATA_HOME=$TMP/caddy XDG_CONFIG_HOME=$TMP/caddy HOME=$TMP/caddy \
	caddy run --config "$TMP/caddy/Caddyfile" --adapter caddyfile > "$TMP/caddy/log" 2>&1 &
CADDY_PID=$!
trap 'kill $APP_PID $NGINX_PID $CADDY_PID 2> /dev/null; stop_server' EXIT
wait_for curl -s -o /dev/null "http://127.0.0.1:$NGINX_PORT/"
wait_for curl -s -o /dev/null --resolve "app1.localhost:$CADDY_PORT:127.0.0.1" "http://app1.localhost:$CADDY_PORT/"

for proxy in nginx caddy; do
	[ $proxy = nginx ] && PPORT=$NGINX_PORT || PPORT=$CADDY_PORT
	A1="http://app1.localhost:$PPORT/"; A2="http://app2.localhost:$PPORT/"
	req POST "$P/clients" "$(jq -cn --arg u "$A1" '{name: "app1", forward_auth_urls: [$u]}')"
	check_status "issue31.3 $proxy: register app1" 201
	C1=$(jq -r .id <<<"$BODY")
	req POST "$P/clients" "$(jq -cn --arg u "$A2" '{name: "app2", forward_auth_urls: [$u]}')"
	C2=$(jq -r .id <<<"$BODY")
	OUT=$(cd "$BROWSER_DIR" && BASE=$BASE APP1=$A1 APP2=$A2 CLIENT1=$C1 USER_ID=$USER \
		CLIENT2=$C2 OTHER_ROLE=$OTHER_ROLE ADMIN_TOKEN=$TOKEN P=$P \
		USER_EMAIL=fa-user@example.com USER_PASSWORD="fa user's password" USER_NAME="FA User" \
		SCREENSHOT_DIR=$ROOT/build SHOT_TAG=$proxy CHROMIUM=$CHROMIUM timeout 120 node forward_auth.mjs 2>&1)
	RC=$?
	[ -n "${SHOW_BROWSER:-}" ] && printf '%s\n' "$OUT" >&2
	check_steps "issue31.3 $proxy" forward_auth.mjs "$RC" "$OUT" $STEPS
done
kill $APP_PID $NGINX_PID $CADDY_PID 2> /dev/null
finish
