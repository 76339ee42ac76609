#!/usr/bin/env bash
# The short happy path against a running edgeauth: a token, then a resource,
# a role, a user and a client, and the lists. Run it against your own server:
#
#   scripts/smoke.sh PROJECT_ID CLIENT_ID CLIENT_SECRET [BASE_URL]
#
# with the JSON that `make run` (or `edgeauth project create`) printed.
# Needs curl and jq. Exits non-zero at the first unexpected answer.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,8p' "$0" >&2; exit 2; }
PROJECT=$1 CLIENT=$2 SECRET=$3 BASE=${4:-http://127.0.0.1:8080}
P="$BASE/api/v1/projects/$PROJECT"
RUN=$(date +%s)-$$

step() { printf '%-34s' "$1"; }
call() { # call EXPECTED_STATUS METHOD URL [JSON]
	local want=$1 method=$2 url=$3 out status
	out=$(mktemp)
	if [ $# -ge 4 ]; then
		status=$(curl -s -o "$out" -w '%{http_code}' -X "$method" -H "Authorization: Bearer $TOKEN" \
			-H 'Content-Type: application/json' --data "$4" "$url")
	else
		status=$(curl -s -o "$out" -w '%{http_code}' -X "$method" -H "Authorization: Bearer $TOKEN" "$url")
	fi
	BODY=$(cat "$out"); rm -f "$out"
	if [ "$status" != "$want" ]; then echo "FAILED: $status $BODY"; exit 1; fi
	echo "ok ($status)"
}

step "token (client_credentials)"
TOKEN=$(curl -s -u "$CLIENT:$SECRET" -d grant_type=client_credentials "$BASE/api/v1/tokens" | jq -r '.access_token // empty')
[ -n "$TOKEN" ] || { echo "FAILED: no access token"; exit 1; }
echo ok

step "create resource orders"
call 201 POST "$P/resources" "{\"name\":\"Orders\",\"code\":\"orders-$RUN\",\"permissions\":[{\"name\":\"Read orders\",\"code\":\"read\"}]}"
PERM=$(jq -r '.permissions[0].id' <<<"$BODY")
step "create role"
call 201 POST "$P/roles" "{\"code\":\"clerk-$RUN\",\"name\":\"Clerk\",\"permission_ids\":[\"$PERM\"]}"
ROLE=$(jq -r .id <<<"$BODY")
step "create user (BYOU)"
call 201 POST "$P/users" "{\"display_name\":\"Smoke\",\"external_user_id\":\"smoke-$RUN\",\"role_id\":\"$ROLE\"}"
step "get user by external ID"
call 200 GET "$P/users/external/smoke-$RUN?include_permissions=true"
[ "$(jq -r '.permissions[0]' <<<"$BODY")" = "orders-$RUN:read" ] || { echo "FAILED: permissions $BODY"; exit 1; }
step "create client"
call 201 POST "$P/clients" "{\"name\":\"smoke $RUN\",\"permission_ids\":[\"$PERM\"]}"
step "list resources"
call 200 GET "$P/resources?search=orders-$RUN"
step "list roles"
call 200 GET "$P/roles?sort_by=name&sort_dir=asc"
step "list users"
call 200 GET "$P/users?search=smoke"
step "list clients"
call 200 GET "$P/clients?is_active=true"
echo "smoke: all steps passed"
