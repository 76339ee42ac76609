# issue27.3: the oauth4webapi recipe of docs/connecting-apps.md
# (docs/recipes/oauth4webapi.mjs, the file the doc shows) signs a user in:
# authorization code + PKCE with a public client against the test server,
# its ID token and UserInfo. On an http issuer it needs its one setting, the
# option [allowInsecureRequests]: true: the recipe without it fails as the
# README's example did ("only requests to HTTPS are allowed").
# t_tls_app_oauth4webapi.sh runs it against an https issuer.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/signin_lib.sh"
. "$(dirname "$0")/apps_lib.sh"
command -v node > /dev/null || missing_tool "node (Debian's nodejs)"
need_node_project "$ROOT/test/oauth-client" oauth4webapi
start_server
app_client "oauth4webapi app" none
check_node_recipe oauth4webapi.mjs oauth4webapi \
	"s/issuer.protocol === 'http:' ? { \[oauth.allowInsecureRequests\]: true }/false ? {}/" \
	ISSUER="$BASE" CLIENT_ID="$CID" APP_URL="$APP_URL"
finish
