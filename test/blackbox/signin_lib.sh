# Helpers for the sign-in tests: PKCE pairs, the authorize form, the code in
# a redirect, and token requests. Sourced after lib.sh.

# new_pkce: sets VERIFIER and CHALLENGE (RFC 7636 S256): 48 random bytes,
# base64url. The file's own shell takes them from a pool one python3 made
# (PKCE_POOL, 64 pairs a call), not 8 forks of openssl, tr and base64 a pair
# (issue26.5); a subshell, whose pool would not go down in its parent's,
# makes its own pair.
PKCE_POOL=() PKCE_SHELL=
new_pkce() {
	if [ "$BASHPID" != "$$" ]; then
		VERIFIER=$(openssl rand -base64 48 | tr '+/' '-_' | tr -d '=\n')
		CHALLENGE=$(printf '%s' "$VERIFIER" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=\n')
		return
	fi
	[ ${#PKCE_POOL[@]} -gt 0 ] || mapfile -t PKCE_POOL < <(python3 -c '
import base64, hashlib, os
b = lambda x: base64.urlsafe_b64encode(x).rstrip(b"=").decode()
for _ in range(64):
    v = b(os.urandom(48))
    print(v, b(hashlib.sha256(v.encode()).digest()))')
	VERIFIER=${PKCE_POOL[0]% *} CHALLENGE=${PKCE_POOL[0]#* }
	PKCE_POOL=("${PKCE_POOL[@]:1}")
}

# authorize_post CLIENT REDIRECT EMAIL PASSWORD [STATE] [extra form fields...]:
# posts the sign-in form, sets STATUS, LOCATION, BODY. FROM=127.0.0.N sends
# it from another loopback address; JAR=FILE is the browser's cookie jar
# (read and written); ORIGIN=VALUE sends that Origin header; XFF=VALUE
# that X-Forwarded-For header.
authorize_post() {
	local client=$1 redirect=$2 email=$3 password=$4 state=${5:-}; shift 5 2>/dev/null || shift $#
	local args=(-s -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}' ${FROM:+--interface "$FROM"}
		${JAR:+-b "$JAR" -c "$JAR"} ${ORIGIN:+-H "Origin: $ORIGIN"}
		${XFF:+-H "X-Forwarded-For: $XFF"}
		--data-urlencode response_type=code --data-urlencode "client_id=$client"
		--data-urlencode "redirect_uri=$redirect" --data-urlencode "code_challenge=$CHALLENGE"
		--data-urlencode code_challenge_method=S256
		--data-urlencode "email=$email" --data-urlencode "password=$password")
	[ -n "$state" ] && args+=(--data-urlencode "state=$state")
	for extra in "$@"; do args+=(--data-urlencode "$extra"); done
	# keepalive_client's process sends it when no curl option is needed
	local REQ_HEADERS=(${ORIGIN:+"Origin: $ORIGIN"} ${XFF:+"X-Forwarded-For: $XFF"}) fields=() i
	for ((i = 0; i < ${#args[@]}; i++)); do [ "${args[i]}" = --data-urlencode ] && fields+=("${args[i + 1]}"); done
	if [ -n "${FROM:-}${JAR:-}" ] || ! AUTH=none form_kept POST /api/v1/authorize "${fields[@]}"; then
		STATUS=$(curl "${args[@]}" "$BASE/api/v1/authorize")
		BODY=$(< "$TMP/body"); HDRS=$(< "$TMP/hdrs")
	fi
	location_of
}

# authorize_get CLIENT REDIRECT [extra query fields NAME=VALUE...]: GET the
# authorization endpoint with a new PKCE pair and state st-g (JAR as for
# authorize_post); sets STATUS, LOCATION, BODY, HDRS, and CODE when it
# redirected with one.
authorize_get() {
	local client=$1 redirect=$2; shift 2
	local args=(-s -G -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}' ${JAR:+-b "$JAR" -c "$JAR"}
		--data-urlencode response_type=code --data-urlencode "client_id=$client"
		--data-urlencode "redirect_uri=$redirect" --data-urlencode code_challenge_method=S256
		--data-urlencode state=st-g)
	new_pkce
	args+=(--data-urlencode "code_challenge=$CHALLENGE")
	for extra in "$@"; do args+=(--data-urlencode "$extra"); done
	local fields=() i
	for ((i = 0; i < ${#args[@]}; i++)); do [ "${args[i]}" = --data-urlencode ] && fields+=("${args[i + 1]}"); done
	if [ -n "${JAR:-}" ] || ! AUTH=none form_kept GET /api/v1/authorize "${fields[@]}"; then
		STATUS=$(curl "${args[@]}" "$BASE/api/v1/authorize")
		BODY=$(< "$TMP/body"); HDRS=$(< "$TMP/hdrs")
	fi
	location_of
	CODE=$(query_value "$LOCATION" code)
}

# secret_hash VALUE: how the store keys a code, refresh token or session
# cookie (base64url of its SHA-256, no padding)
secret_hash() {
	printf '%s' "$1" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=\n'
}

# query_value URL NAME: the decoded value of a query parameter (the first
# that is not blank, as Python's parse_qs reads it). A query of URL
# characters and %XX escapes of ASCII is decoded here; any other goes to
# Python: a python3 start per value cost more than the checks (issue26.5).
query_value() {
	local url=${1%%#*} q= f name val fields
	local plain='^[-A-Za-z0-9._~!$()*+,;=:@/?&%'"'"']*$' bad='%([^0-9A-Fa-f]|.[^0-9A-Fa-f]|.?$|[89A-Fa-f])'
	[[ $url == *\?* ]] && q=${url#*\?}
	if ! [[ $q =~ $plain ]] || [[ $q =~ $bad ]]; then
		query_value_py "$1" "$2"
		return
	fi
	IFS='&' read -r -a fields <<< "$q"
	for f in "${fields[@]}"; do
		[[ $f == *=* ]] || continue
		val=${f#*=}
		[ -n "$val" ] || continue
		name=${f%%=*}; name=${name//+/ }
		printf -v name '%b' "${name//%/\\x}"
		if [ "$name" == "$2" ]; then
			val=${val//+/ }
			printf '%b\n' "${val//%/\\x}"
			return
		fi
	done
	echo
}
query_value_py() {
	python3 -c 'import sys, urllib.parse as u; q = u.parse_qs(u.urlsplit(sys.argv[1]).query); print(q.get(sys.argv[2], [""])[0])' "$1" "$2"
}

# sign_in CLIENT REDIRECT EMAIL PASSWORD: sets CODE (and VERIFIER/CHALLENGE)
sign_in() {
	new_pkce
	authorize_post "$1" "$2" "$3" "$4" "st-1"
	CODE=$(query_value "$LOCATION" code)
}

# token_req FORM... : POST /api/v1/tokens (or ENDPOINT, a path) with
# --data-urlencode fields; BASIC=id:secret sends Basic credentials,
# AUTHORIZATION=value any Authorization header
token_req() {
	local args=(-s -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}')
	[ -n "${BASIC:-}" ] && args+=(-u "$BASIC")
	[ -n "${AUTHORIZATION:-}" ] && args+=(-H "Authorization: $AUTHORIZATION")
	for f in "$@"; do args+=(--data-urlencode "$f"); done
	if [ $# -gt 0 ] && kept; then   # through keepalive_client's process
		local auth=none
		[ -n "${BASIC:-}" ] && auth="Basic $(printf '%s' "$BASIC" | base64 -w0)"
		[ -n "${AUTHORIZATION:-}" ] && auth=$AUTHORIZATION
		AUTH=$auth form_kept POST "${ENDPOINT:-/api/v1/tokens}" "$@" && return 0
	fi
	STATUS=$(curl "${args[@]}" "$BASE${ENDPOINT:-/api/v1/tokens}")
	BODY=$(< "$TMP/body"); HDRS=$(< "$TMP/hdrs")
}

# tokens_of: ACCESS and REFRESH of a token answer (BODY), empty when it has
# none (one jq for both)
tokens_of() {
	local t
	t=$(jq -r '(.access_token // ""), (.refresh_token // "")' 2> /dev/null <<<"$BODY")
	ACCESS=${t%%$'\n'*} REFRESH=
	[[ $t == *$'\n'* ]] && REFRESH=${t#*$'\n'}
}

# exchange CLIENT REDIRECT CODE VERIFIER: sets ACCESS and REFRESH on success
exchange() {
	token_req grant_type=authorization_code "client_id=$1" "redirect_uri=$2" "code=$3" "code_verifier=$4"
	tokens_of
}

# signed_in CLIENT REDIRECT EMAIL PASSWORD: sign_in then exchange, for a
# test whose subject is not the code's expiry but whose server runs with a
# code_ttl_s of a second or two: a code that expired on a loaded machine is
# tried again (twice at most), any other failure is left for the caller's
# check_status.
signed_in() {
	local i
	for i in 1 2 3; do
		sign_in "$@"
		exchange "$1" "$2" "$CODE" "$VERIFIER"
		[ "$(printf '%s' "$BODY" | jq -r '.error // empty')" = auth_code_expired ] || break
	done
}

# refresh CLIENT TOKEN: sets ACCESS and REFRESH on success
refresh() {
	token_req grant_type=refresh_token "client_id=$1" "refresh_token=$2"
	tokens_of
}

# jwt_claim TOKEN CLAIM
jwt_claim() {
	local p
	p=$(printf '%s' "$1" | cut -d. -f2 | tr '_-' '/+')
	while [ $(( ${#p} % 4 )) -ne 0 ]; do p="$p="; done
	printf '%s' "$p" | base64 -d 2>/dev/null | jq -r ".$2"
}

# rita_and_app: the reader user rita@example.com (EMAIL, PASSWORD; USER,
# ROLE) and a client "app" without permissions whose redirect URI is
# REDIRECT (APP, APP_SECRET)
rita_and_app() {
	EMAIL="rita@example.com"; PASSWORD="rita's password"
	reader_user "$EMAIL" "$PASSWORD" "Rita"
	REDIRECT="http://127.0.0.1:9/callback"
	req POST "$P/clients" "{\"name\":\"app\",\"redirect_uris\":[\"$REDIRECT\"],\"permission_ids\":[]}"
	check_status "create client" 201
	APP=$(printf '%s' "$BODY" | jq -r .id); APP_SECRET=$(printf '%s' "$BODY" | jq -r .client_secret)
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

# recent_token TOKEN: a token of a recent sign-in for TOKEN's user: TOKEN
# itself when it carries auth_time (a sign-in's token, once tokens carry
# it), else TOKEN re-signed with auth_time now (with_auth_time).
recent_token() {
	if [ "$(jwt_claim "$1" auth_time)" != null ]; then printf '%s\n' "$1"
	else with_auth_time "$1" 0; fi
}

# jwt_json TOKEN PART: a JWT's header (1) or claims (2) as compact JSON
jwt_json() {
	local p
	p=$(printf '%s' "$1" | cut -d. -f"$2" | tr '_-' '/+')
	while [ $(( ${#p} % 4 )) -ne 0 ]; do p="$p="; done
	printf '%s' "$p" | base64 -d 2>/dev/null | jq -c .
}

# with_auth_time TOKEN SECONDS_AGO: TOKEN with the claim auth_time set to
# that many seconds ago, signed again with the server's own key file
# ($TMP/signing-key.pem), header and every other claim kept. A sign-in's own
# token carries auth_time (RFC 9068 §2.2.1) and is the recent one; this
# makes the token of a stale sign-in, which no test can wait for.
# NOW_S=EPOCH_S counts the seconds back from then instead of from now (a
# test that froze the server's clock there, lib.sh's fake_clock).
with_auth_time() {
	es256_sign "$(jwt_json "$1" 1)" \
		"$(jwt_json "$1" 2 | jq -c --argjson t "$(( ${NOW_S:-$(date +%s)} - $2 ))" '.auth_time = $t')"
}

# id_token_hint SUB AUD SID [CLAIMS_JQ]: an ID token as the logout endpoint
# reads one (typ JWT, iss, sub, aud, sid), signed with the server's key file
# under the kid of its access tokens; CLAIMS_JQ edits the claims (a jq
# filter, e.g. 'del(.sid)'). Until ID tokens are issued (the token side),
# this is how a test holds one; KEY=FILE signs with another key.
id_token_hint() {
	local header claims now
	now=$(date +%s)
	header=$(jwt_json "$TOKEN" 1 | jq -c '.typ = "JWT"')
	claims=$(jq -cn --arg iss "$BASE" --arg sub "$1" --arg aud "$2" --arg sid "$3" --argjson now "$now" \
		'{iss:$iss, sub:$sub, aud:$aud, sid:$sid, iat:$now, exp:($now + 3600)}' | jq -c "${4:-.}")
	es256_sign "$header" "$claims"
}

# es256_sign HEADER_JSON CLAIMS_JSON: the JWS of them, signed ES256 with
# KEY (default: the server's key file, $TMP/signing-key.pem).
es256_sign() {
	python3 - "$1" "$2" "${KEY:-$TMP/signing-key.pem}" <<'PY'
import base64, subprocess, sys
header, claims, key = sys.argv[1], sys.argv[2], sys.argv[3]
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
signing_input = b64(header.encode()) + "." + b64(claims.encode())
der = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key], input=signing_input.encode(),
                     capture_output=True, check=True).stdout
# DER SEQUENCE { INTEGER r, INTEGER s } -> r || s, 32 bytes each (RFC 7518 §3.4)
def integer(buf, i):
    assert buf[i] == 2
    n = buf[i + 1]
    return int.from_bytes(buf[i + 2:i + 2 + n], "big"), i + 2 + n
i = 2 if der[1] < 0x80 else 3
r, i = integer(der, i)
s, _ = integer(der, i)
# edgeauth takes only the low-S form (jwt.c): s and n - s both verify
n = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
s = min(s, n - s)
print(signing_input + "." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big")))
PY
}

# byou_code EXTERNAL_ID CLIENT REDIRECT [SCOPE [NONCE]]: as the admin
# (TOKEN), a BYOU code for that user (docs/signin.md §"BYOU codes"; scope and nonce as an
# OpenID Connect request's, §7); sets CODE (empty on an error: STATUS and
# BODY say which), VERIFIER and CHALLENGE
byou_code() {
	new_pkce
	AUTH="Bearer $TOKEN" req POST "$P/users/external/$1/authorization-codes" "$(jq -cn \
		--arg c "$2" --arg r "$3" --arg ch "$CHALLENGE" --arg s "${4:-}" --arg n "${5:-}" \
		'{client_id: $c, redirect_uri: $r, code_challenge: $ch, code_challenge_method: "S256"}
		 + (if $s != "" then {scope: $s} else {} end) + (if $n != "" then {nonce: $n} else {} end)')"
	CODE=$(jq -r '.code // empty' <<<"$BODY")
}

# at_hash TOKEN: OIDC Core §3.1.3.6 for RS256 and ES256 (SHA-256)
at_hash() {
	printf '%s' "$1" | openssl dgst -sha256 -binary | head -c 16 | base64 | tr '+/' '-_' | tr -d '='
}

# redirected_error WHAT STATE ERROR: the last answer is the error redirect
# to the app (REDIRECT) with state and iss (issue 31), and no code
redirected_error() {
	check "$1" "$STATUS ${LOCATION%%\?*} $(query_value "$LOCATION" error) $(query_value "$LOCATION" state) $(query_value "$LOCATION" iss) [$(query_value "$LOCATION" code)]" \
		"302 $REDIRECT $3 $2 $BASE []"
}
