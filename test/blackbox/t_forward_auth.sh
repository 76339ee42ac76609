# Forward authentication (docs/forward-auth.md), issue 31. Part 1: a
# client's forward_auth_urls (docs/api.md §"Records"): base URLs, https or
# http, no query or fragment, deduplicated in order, read and written by
# create, update (omitted: kept), get and list; setting or changing them
# needs all twelve default-resource permissions, like redirect_uris; each
# registers <base URL>/.edgeauth/callback as a redirect URI of the client.
. "$(dirname "$0")/lib.sh"
start_server
AS_ADMIN="Bearer $TOKEN"
DENIED="403 insufficient_permission"

########## issue31.1: the field ##########
req POST "$P/clients" '{"name":"plain"}'
check_status "issue31.1: create without forward_auth_urls" 201
check_json "issue31.1: its default" '.forward_auth_urls|tostring' '[]'
check_json "issue31.1: key order" 'keys_unsorted|join(",")' \
	'id,name,description,is_active,permission_ids,redirect_uris,post_logout_redirect_uris,backchannel_logout_uri,token_endpoint_auth_method,id_token_signed_response_alg,forward_auth_urls,created_at,updated_at,client_secret'
PLAIN=$(jq -r .id <<<"$BODY")

req POST "$P/clients" '{"name":"dashboard","forward_auth_urls":["https://dash.example/","http://127.0.0.1:8080/red","https://dash.example/"]}'
check_status "issue31.1: create with forward_auth_urls" 201
check_json "issue31.1: written, deduplicated in order" '.forward_auth_urls|tostring' \
	'["https://dash.example/","http://127.0.0.1:8080/red"]'
DASH=$(jq -r .id <<<"$BODY")
CREATED=$(jq -c 'del(.client_secret)' <<<"$BODY")
req GET "$P/clients/$DASH"
check "issue31.1: get answers what create wrote" "$(jq -c . <<<"$BODY")" "$CREATED"
req GET "$P/clients?page_size=100"
check "issue31.1: the list answers it too" "$(jq -c --arg id "$DASH" '.data[]|select(.id==$id)' <<<"$BODY")" "$CREATED"
req PUT "$P/clients/$DASH" '{"name":"dashboard","is_active":true}'
check_json "issue31.1: an update without it keeps it" '.forward_auth_urls|tostring' \
	'["https://dash.example/","http://127.0.0.1:8080/red"]'
req PUT "$P/clients/$DASH" "$(jq -c '.name="dashboard"' <<<"$CREATED")"
check_status "issue31.1: the record sent back is taken" 200
req PUT "$P/clients/$DASH" '{"name":"dashboard","is_active":true,"forward_auth_urls":null}'
check_json "issue31.1: null clears it" '.forward_auth_urls|tostring' '[]'
req PUT "$P/clients/$DASH" '{"name":"dashboard","is_active":true,"forward_auth_urls":["https://dash.example"]}'
check_json "issue31.1: update writes it" '.forward_auth_urls|tostring' '["https://dash.example"]'

bad() { # bad NAME JSON_FIELDS: create and update with those fields both refused
	req POST "$P/clients" "{\"name\":\"x\",$2}"
	check_err "issue31.1: create: $1" 400 invalid_params
	req PUT "$P/clients/$DASH" "{\"name\":\"x\",\"is_active\":true,$2}"
	check_err "issue31.1: update: $1" 400 invalid_params
}
bad "a string" '"forward_auth_urls":"https://a.example/"'
bad "relative" '"forward_auth_urls":["/app"]'
bad "with a query" '"forward_auth_urls":["https://a.example/?x=1"]'
check_json "issue31.1: the error names the field" .error_description "forward_auth_urls[0] must not contain a query"
bad "with a fragment" '"forward_auth_urls":["https://a.example/#x"]'
bad "ftp" '"forward_auth_urls":["ftp://a.example/"]'
bad "javascript" '"forward_auth_urls":["javascript:alert(1)"]'
bad "empty" '"forward_auth_urls":[""]'
bad "a number" '"forward_auth_urls":[1]'
bad "over 2048" "\"forward_auth_urls\":[\"https://a.example/$(printf 'x%.0s' $(seq 2031))\"]"
URIS21=$(for i in $(seq 21); do printf '"https://a.example/%d",' "$i"; done)
bad "21 of them" "\"forward_auth_urls\":[${URIS21%,}]"
check "issue31.1: no refused create was written" "$(db "select count(*) from clients where name = 'x'")" 0

########## issue31.1: who may set them (docs/signin.md §"Who may change where tokens go") ##########
load_resources
new_client "client manager" clients:create clients:read clients:update users:read
AS_CM="Bearer $(client_token "$CID" "$CSECRET")"
expect "$AS_CM" 201 "issue31.1: create with [] needs no more" POST "$P/clients" '{"name":"m1","forward_auth_urls":[]}'
M1=$(jq -r .id <<<"$BODY")
expect "$AS_CM" "$DENIED" "issue31.1: create setting forward_auth_urls" POST "$P/clients" '{"name":"m2","forward_auth_urls":["https://evil.example/"]}'
check_json "issue31.1: it says why" '.error_description|test("all twelve")' true
check "issue31.1: the refused create was not written" "$(db "select count(*) from clients where name = 'm2'")" 0
expect "$AS_CM" "$DENIED" "issue31.1: update setting forward_auth_urls" PUT "$P/clients/$M1" '{"name":"m1","is_active":true,"forward_auth_urls":["https://evil.example/"]}'
expect "$AS_CM" "$DENIED" "issue31.1: update changing forward_auth_urls" PUT "$P/clients/$DASH" '{"name":"dashboard","is_active":true,"forward_auth_urls":["https://evil.example"]}'
expect "$AS_CM" "$DENIED" "issue31.1: update clearing forward_auth_urls" PUT "$P/clients/$DASH" '{"name":"dashboard","is_active":true,"forward_auth_urls":[]}'
expect "$AS_CM" 200 "issue31.1: the same value sent back" PUT "$P/clients/$DASH" '{"name":"dashboard","is_active":true,"forward_auth_urls":["https://dash.example"]}'
expect "$AS_CM" 200 "issue31.1: omitted, kept" PUT "$P/clients/$DASH" '{"name":"dashboard","is_active":true}'
check_json "issue31.1: still there" '.forward_auth_urls|tostring' '["https://dash.example"]'

########## issue31.1: the callback is a redirect URI of the client ##########
# an unregistered redirect_uri is answered without a redirect (400 page);
# a registered one goes on to the sign-in form (200)
authorize() { # authorize CLIENT REDIRECT_URI: STATUS of the authorization request
	req GET "/api/v1/authorize?response_type=code&client_id=$1&redirect_uri=$(jq -rn --arg u "$2" '$u|@uri')&code_challenge=E9Melhoe2OwvFXL4ZSu1Ow8eA0qKLfmu5-kDdUtrEF0&code_challenge_method=S256&state=s"
}
authorize "$DASH" "https://dash.example/.edgeauth/callback"
check_status "issue31.1: <base URL>/.edgeauth/callback accepted" 200
authorize "$DASH" "https://dash.example/other"
check_status "issue31.1: another path under the base refused" 400
authorize "$PLAIN" "https://dash.example/.edgeauth/callback"
check_status "issue31.1: another client's callback refused" 400
AUTH="$AS_ADMIN" req PUT "$P/clients/$DASH" '{"name":"dashboard","is_active":true,"forward_auth_urls":["https://dash.example/","http://box.example/red/"]}'
authorize "$DASH" "http://box.example/red/.edgeauth/callback"
check_status "issue31.1: a base with a path and a trailing /" 200
authorize "$DASH" "http://box.example/red//.edgeauth/callback"
check_status "issue31.1: not with a doubled /" 400

finish
