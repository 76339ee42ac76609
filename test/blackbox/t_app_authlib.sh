# issue27.3: the Authlib recipe of docs/connecting-apps.md
# (docs/recipes/authlib_app.py, the file the doc shows) signs a user in with
# Debian's python3-authlib: authorization code + PKCE with a confidential
# client against the test server, the ID token checked against JWKS, and
# UserInfo. Its one setting is code_challenge_method="S256": Authlib sends
# no PKCE without it, and edgeauth refuses such a request.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/apps_lib.sh"
# Debian's package is for Debian's python3, which a python3 earlier on PATH
# (pyenv, a venv) may not be
PY=""
for py in python3 /usr/bin/python3; do
	"$py" -c 'import authlib, requests' 2> /dev/null && { PY=$py; break; }
done
[ -n "$PY" ] || missing_tool "Authlib (Debian's python3-authlib and python3-requests)"
start_server
app_client "Authlib app" client_secret_basic
APP_ENV=(ISSUER="$BASE" CLIENT_ID="$CID" CLIENT_SECRET="$CSECRET" APP_URL="$APP_URL")
run_recipe "$PY" authlib_app.py "${APP_ENV[@]}"
check "issue27.3 Authlib recipe starts: $(head -3 "$TMP/app.log")" "$?" 0
ua_browse "$APP_URL/login" "$EMAIL" "$PASSWORD"
check_signed_in "issue27.3 Authlib recipe"
stop_app

EDIT='s/code_challenge_method="S256", //' run_recipe "$PY" authlib_app.py "${APP_ENV[@]}"
ua_browse "$APP_URL/login" "$EMAIL" "$PASSWORD"
check "issue27.3 Authlib without S256 PKCE: refused, and why" "$STATUS $BODY" \
	"400 sign-in refused: PKCE with S256 is required: send code_challenge and code_challenge_method=S256."
stop_app
finish
