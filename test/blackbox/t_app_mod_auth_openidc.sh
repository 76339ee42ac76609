# issue27.3: the mod_auth_openidc recipe of docs/connecting-apps.md
# (docs/recipes/mod_auth_openidc.conf, the file the doc shows) protects an
# app: a throw-away Apache (Debian's apache2-bin and
# libapache2-mod-auth-openidc, its own config in a temp directory, a
# loopback port, no system service) includes the recipe, and a user signs
# in through it with curl's cookie jar; the app (a CGI) sees REMOTE_USER and
# OIDC_CLAIM_sub, and the next request rides Apache's session. Its one
# setting is OIDCPKCEMethod S256: without it edgeauth refuses the request.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/apps_lib.sh"
MODULES=/usr/lib/apache2/modules
APACHE=$(command -v apache2 || echo /usr/sbin/apache2)
[ -x "$APACHE" ] || missing_tool "Apache (Debian's apache2-bin)"
[ -f "$MODULES/mod_auth_openidc.so" ] || missing_tool "mod_auth_openidc (Debian's libapache2-mod-auth-openidc)"
start_server
app_client "Apache app" client_secret_basic /app/redirect_uri

# Apache's own directory: its children run as www-data when the test is
# root, and read the CGI there ($TMP is the test user's alone)
ADIR=$(mktemp -d /tmp/edgeauth-apache.XXXXXX)
chmod 0755 "$ADIR"
trap 'stop_app; stop_server; rm -rf "$ADIR"' EXIT
cat > "$ADIR/whoami" <<'CGI'
#!/bin/sh
printf 'Content-Type: application/json\n\n'
printf '{"remote_user":"%s","sub":"%s","email":"%s"}\n' "$REMOTE_USER" "$OIDC_CLAIM_sub" "$OIDC_CLAIM_email"
CGI
chmod 0755 "$ADIR/whoami"
{
	for m in mpm_prefork authn_core authz_core authz_user alias cgi auth_openidc; do
		echo "LoadModule ${m}_module $MODULES/mod_$m.so"
	done
	cat <<-CONF
	ServerRoot $ADIR
	ServerName 127.0.0.1
	Listen ${APP_URL#http://}
	PidFile $ADIR/apache2.pid
	DefaultRuntimeDir $ADIR
	Mutex file:$ADIR default
	ErrorLog $ADIR/error.log
	LogLevel warn auth_openidc:info
	ScriptAlias /app/whoami $ADIR/whoami
	Include $ADIR/recipe.conf
	CONF
	[ "$(id -u)" -eq 0 ] && printf 'User www-data\nGroup www-data\n'
} > "$ADIR/apache2.conf"

# apache RECIPE_EDIT: Apache in the foreground (APP_PID) with a copy of the
# recipe, changed by the sed expression RECIPE_EDIT (none: as it is). In a
# session of its own: prefork stops by signalling its whole process group.
apache() {
	cp "$RECIPES/mod_auth_openidc.conf" "$ADIR/recipe.conf"
	[ -n "$1" ] && sed -i -e "$1" "$ADIR/recipe.conf"
	env EDGEAUTH_ISSUER="$BASE" OIDC_CLIENT_ID="$CID" OIDC_CLIENT_SECRET="$CSECRET" APP_URL="$APP_URL" \
		OIDC_CRYPTO_PASSPHRASE="$(openssl rand -hex 16)" \
		setsid "$APACHE" -f "$ADIR/apache2.conf" -DFOREGROUND > "$TMP/app.log" 2>&1 &
	APP_PID=$!
	apache_up() { curl -s -o /dev/null "$APP_URL/" || ! kill -0 "$APP_PID" 2> /dev/null; }
	wait_for apache_up
	kill -0 "$APP_PID" 2> /dev/null
}

apache ""
check "issue27.3 Apache starts with the recipe: $(head -3 "$TMP/app.log") $(tail -3 "$ADIR/error.log")" "$?" 0
ua_browse "$APP_URL/app/whoami" "$EMAIL" "$PASSWORD"
check_status "issue27.3 mod_auth_openidc: the app's page" 200
check_json "issue27.3 mod_auth_openidc: REMOTE_USER" .remote_user "$USER"
check_json "issue27.3 mod_auth_openidc: OIDC_CLAIM_sub" .sub "$USER"
check_json "issue27.3 mod_auth_openidc: OIDC_CLAIM_email" .email "$EMAIL"
check "issue27.3 mod_auth_openidc: the sign-in form was shown and posted" \
	"$(grep -c '^POST 302 .*/api/v1/authorize' "$TMP/ua.log")" 1
check "issue27.3 mod_auth_openidc: it sent S256 PKCE" \
	"$(grep -c '^GET 200 .*/api/v1/authorize?.*code_challenge_method=S256' "$TMP/ua.log")" 1
ua_browse "$APP_URL/app/whoami" "$EMAIL" "$PASSWORD"
check "issue27.3 mod_auth_openidc: the next request rides Apache's session" \
	"$STATUS $(jq -r .sub <<<"$BODY") $(wc -l < "$TMP/ua.log")" "200 $USER 1"
stop_app

rm -f "$TMP/ua.jar"
apache '/^OIDCPKCEMethod/d'
ua_browse "$APP_URL/app/whoami" "$EMAIL" "$PASSWORD"
check "issue27.3 mod_auth_openidc without OIDCPKCEMethod: edgeauth refuses" \
	"$(grep -c "/app/redirect_uri?error=invalid_request&error_description=PKCE%20with%20S256%20is%20required" "$TMP/ua.log")" 1
check "issue27.3 mod_auth_openidc without OIDCPKCEMethod: the app is not reached" \
	"$(grep -c "remote_user" <<<"$BODY")" 0
stop_app
finish
