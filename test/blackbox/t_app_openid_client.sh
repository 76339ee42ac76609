# issue27.3: the openid-client recipe of docs/connecting-apps.md
# (docs/recipes/openid-client.mjs, the file the doc shows) signs a user in:
# authorization code + PKCE with a confidential client against the test
# server, its ID token and UserInfo. On an http issuer it needs its one
# setting, allowInsecureRequests: the recipe without it fails as the
# README's example did ("only requests to HTTPS are allowed").
# t_tls_app_openid_client.sh runs it against an https issuer.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/apps_lib.sh"
command -v node > /dev/null || missing_tool "node (Debian's nodejs)"
need_node_project "$ROOT/test/oauth-client" openid-client
start_server
app_client "openid-client app" client_secret_basic
check_node_recipe openid-client.mjs openid-client \
	"s/issuer.protocol === 'http:' ? \[client.allowInsecureRequests\]/false ? []/" \
	ISSUER="$BASE" CLIENT_ID="$CID" CLIENT_SECRET="$CSECRET" APP_URL="$APP_URL"
finish
