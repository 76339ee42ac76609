# Helpers for the sign-in tests: PKCE pairs, the authorize form, the code in
# a redirect, and token requests. Sourced after lib.sh.

# new_pkce: sets VERIFIER and CHALLENGE (RFC 7636 S256)
new_pkce() {
	VERIFIER=$(openssl rand -base64 48 | tr '+/' '-_' | tr -d '=\n')
	CHALLENGE=$(printf '%s' "$VERIFIER" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=\n')
}

# authorize_post CLIENT REDIRECT EMAIL PASSWORD [STATE] [extra form fields...]:
# posts the sign-in form, sets STATUS, LOCATION, BODY. FROM=127.0.0.N sends
# it from another loopback address.
authorize_post() {
	local client=$1 redirect=$2 email=$3 password=$4 state=${5:-}; shift 5 2>/dev/null || shift $#
	local args=(-s -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}' ${FROM:+--interface "$FROM"}
		--data-urlencode response_type=code --data-urlencode "client_id=$client"
		--data-urlencode "redirect_uri=$redirect" --data-urlencode "code_challenge=$CHALLENGE"
		--data-urlencode code_challenge_method=S256
		--data-urlencode "email=$email" --data-urlencode "password=$password")
	[ -n "$state" ] && args+=(--data-urlencode "state=$state")
	for extra in "$@"; do args+=(--data-urlencode "$extra"); done
	STATUS=$(curl "${args[@]}" "$BASE/api/v1/authorize")
	BODY=$(cat "$TMP/body"); HDRS=$(cat "$TMP/hdrs")
	LOCATION=$(printf '%s' "$HDRS" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
}

# query_value URL NAME: the decoded value of a query parameter
query_value() {
	python3 -c 'import sys, urllib.parse as u; q = u.parse_qs(u.urlsplit(sys.argv[1]).query); print(q.get(sys.argv[2], [""])[0])' "$1" "$2"
}

# sign_in CLIENT REDIRECT EMAIL PASSWORD: sets CODE (and VERIFIER/CHALLENGE)
sign_in() {
	new_pkce
	authorize_post "$1" "$2" "$3" "$4" "st-1"
	CODE=$(query_value "$LOCATION" code)
}

# token_req FORM... : POST /api/v1/tokens with --data-urlencode fields
token_req() {
	local args=(-s -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}')
	[ -n "${BASIC:-}" ] && args+=(-u "$BASIC")
	for f in "$@"; do args+=(--data-urlencode "$f"); done
	STATUS=$(curl "${args[@]}" "$BASE/api/v1/tokens")
	BODY=$(cat "$TMP/body"); HDRS=$(cat "$TMP/hdrs")
}

# exchange CLIENT REDIRECT CODE VERIFIER: sets ACCESS and REFRESH on success
exchange() {
	token_req grant_type=authorization_code "client_id=$1" "redirect_uri=$2" "code=$3" "code_verifier=$4"
	ACCESS=$(printf '%s' "$BODY" | jq -r '.access_token // empty')
	REFRESH=$(printf '%s' "$BODY" | jq -r '.refresh_token // empty')
}

# refresh CLIENT TOKEN: sets ACCESS and REFRESH on success
refresh() {
	token_req grant_type=refresh_token "client_id=$1" "refresh_token=$2"
	ACCESS=$(printf '%s' "$BODY" | jq -r '.access_token // empty')
	REFRESH=$(printf '%s' "$BODY" | jq -r '.refresh_token // empty')
}

# jwt_claim TOKEN CLAIM
jwt_claim() {
	local p
	p=$(printf '%s' "$1" | cut -d. -f2 | tr '_-' '/+')
	while [ $(( ${#p} % 4 )) -ne 0 ]; do p="$p="; done
	printf '%s' "$p" | base64 -d 2>/dev/null | jq -r ".$2"
}

# reader_user EMAIL PASSWORD NAME: a role "reader" holding users:read and a
# user with that email and password in it; sets ROLE and USER.
reader_user() {
	req GET "$P/resources?page_size=100"
	local read_id
	read_id=$(printf '%s' "$BODY" | jq -r '.data[]|select(.code=="users")|.permissions[]|select(.code=="read")|.id')
	req POST "$P/roles" "{\"code\":\"reader\",\"name\":\"Reader\",\"permission_ids\":[\"$read_id\"]}"
	check_status "create role" 201
	ROLE=$(printf '%s' "$BODY" | jq -r .id)
	req POST "$P/users" "$(jq -cn --arg e "$1" --arg p "$2" --arg n "$3" --arg r "$ROLE" '{display_name:$n,email:$e,password:$p,role_id:$r}')"
	check_status "create user" 201
	USER=$(printf '%s' "$BODY" | jq -r .id)
}
