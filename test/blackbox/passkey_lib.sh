# Helpers of the passkey tests (t_passkeys.sh, t_passkey_alone.sh): the
# passkeys page (/account/passkeys) in a cookie jar, its fields and data
# attributes, its form's post, and a registration answered by
# webauthn_tool.py. Sourced after lib.sh and signin_lib.sh, with ISSUER and
# PROJECT_ID set.
JAR=$TMP/jar
TOOL="python3 $(dirname "$0")/webauthn_tool.py"
PAGE="/account/passkeys?project_id=$PROJECT_ID"
location() { printf '%s' "$HDRS" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p'; }
has() { if grep -Fq -- "$2" <<<"$BODY"; then pass; else fail "$1: no '$2' in ${BODY:0:600}"; fi; }
lacks() { if grep -Fq -- "$2" <<<"$BODY"; then fail "$1: '$2' is shown"; else pass; fi; }
page() { AUTH=none req GET "$PAGE" -b "$JAR" -c "$JAR"; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" <<<"$BODY" | head -1 | sed 's/.*value="//; s/"$//'; }
data() { grep -o "data-$1=\"[^\"]*\"" <<<"$BODY" | head -1 | sed 's/.*="//; s/"$//'; }
# post FIELD=VALUE...: the page's form as a browser posts it (our origin, the form token)
post() {
	local args=(-s -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}' -b "$JAR" -c "$JAR"
		-H "Origin: ${ORIGIN_H:-$ISSUER}")
	[ "${TOKEN_F:-}" != none ] && args+=(--data-urlencode "form_token=${TOKEN_F:-$FTOK}")
	for f in "$@"; do args+=(--data-urlencode "$f"); done
	STATUS=$(curl "${args[@]}" "$BASE$PAGE")
	BODY=$(cat "$TMP/body"); HDRS=$(cat "$TMP/hdrs")
}
# register KEYFILE [ORIGIN] [RP_ID] [FLAGS]: the page's challenge answered by a new credential
register() {
	page
	FTOK=$(field form_token)
	set -- $($TOOL register "$1" "$(data challenge)" "${2:-$ISSUER}" "${3:-localhost}" ${4:-})
	CRED=$1
	post action=add "issued=$(field issued)" "client_data=$2" "attestation_object=$3" "name=${NAME:-My laptop}"
}
