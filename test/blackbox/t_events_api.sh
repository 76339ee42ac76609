# issue29 events API: GET /api/v1/projects/{project_id}/events (docs/api.md
# §"Audit trail"): the list shape and paging of every list, newest first,
# each filter, the four :read permissions, only the project's own events,
# strict input, and an API change by a client listed with it as actor.
. "$(dirname "$0")/lib.sh"
start_server
E="$P/events"
load_resources
READS=(users:read clients:read roles:read resources:read)

# ev QUERY: the list with that query string, as the admin; IDS: its targets
ev() { req GET "$E${1:+?$1}"; }
targets() { jq -c '[.data[].target]' <<<"$BODY"; }

# ---------------------------------------------------------------- an API change by a client
new_client writer roles:create "${READS[@]}"
WRITER=$CID
WTOKEN=$(client_token "$CID" "$CSECRET")
for code in r1 r2 r3; do
	AUTH="Bearer $WTOKEN" req POST "$P/roles" "{\"code\":\"$code\",\"name\":\"$code\"}"
	check_status "issue29.events: role $code by the writer" 201
	eval "ROLE_$code=\$(jq -r .id <<<\"\$BODY\")"
done
ev "actor=$WRITER"
check_status "issue29.events: by the writer" 200
check "issue29.events: the writer's changes, newest first" "$(jq -c '[.data[]|[.action, .actor]]' <<<"$BODY")" \
	"$(jq -nc --arg a "$WRITER" '[["role.create",$a],["role.create",$a],["role.create",$a]]')"
check "issue29.events: their targets" "$(targets)" "[\"$ROLE_r3\",\"$ROLE_r2\",\"$ROLE_r1\"]"
check "issue29.events: the address" "$(jq -r '.data[0].address' <<<"$BODY")" 127.0.0.1

# ---------------------------------------------------------------- the list shape
ev
check_status "issue29.events: the list" 200
check "issue29.events: the envelope" "$(jq -c 'keys' <<<"$BODY")" '["data","page_num","page_size","total"]'
check "issue29.events: defaults" "$(jq -c '[.page_num, .page_size, .total]' <<<"$BODY")" '[1,10,4]'
check "issue29.events: the record" "$(jq -c '.data[0]|keys' <<<"$BODY")" \
	'["action","actor","address","id","outcome","project_id","target","time"]'
check "issue29.events: newest first" "$(jq -c '[.data[].action]' <<<"$BODY")" \
	'["role.create","role.create","role.create","client.create"]'
check "issue29.events: ids fall" "$(jq '[.data[].id] == ([.data[].id]|sort|reverse)' <<<"$BODY")" true
check "issue29.events: only the project's" "$(jq -r --arg p "$PROJECT_ID" '[.data[]|select(.project_id != $p)]|length' <<<"$BODY")" 0
check_header "issue29.events: JSON" '^Content-Type: application/json'

# ---------------------------------------------------------------- paging and sort
ev "page_size=3&page_num=2"
check "issue29.events: page 2 of 3" "$(jq -c '[.page_num, .page_size, .total, (.data|length), .data[0].action]' <<<"$BODY")" \
	'[2,3,4,1,"client.create"]'
ev "page_size=3&page_num=3"
check "issue29.events: a page past the end" "$(jq -c '[.total, .data]' <<<"$BODY")" '[4,[]]'
ev "sort_dir=asc&page_size=2"
check "issue29.events: oldest first" "$(jq -c '[.data[].action]' <<<"$BODY")" '["client.create","role.create"]'
check "issue29.events: asc is desc reversed" "$(targets)" "[\"$WRITER\",\"$ROLE_r1\"]"
ev "sort_by=time&sort_dir=desc&page_size=1"
check "issue29.events: sort_by=time" "$(targets)" "[\"$ROLE_r3\"]"

# ---------------------------------------------------------------- filters
ev "action=client.create"
check "issue29.events: action" "$(jq -c '[.total, [.data[].target]]' <<<"$BODY")" "[1,[\"$WRITER\"]]"
ev "target=$ROLE_r2"
check "issue29.events: target" "$(jq -c '[.total, .data[0].action]' <<<"$BODY")" '[1,"role.create"]'
ev "actor=$CLIENT_ID"
check "issue29.events: actor (the admin)" "$(jq -c '[.total, .data[0].action]' <<<"$BODY")" '[1,"client.create"]'
ev "action=role.create&actor=$WRITER&target=$ROLE_r1&outcome=success"
check "issue29.events: filters combine" "$(jq -c '[.total, .data[0].target]' <<<"$BODY")" "[1,\"$ROLE_r1\"]"
ev "action=role.delete"
check "issue29.events: an action with none" "$(jq -c '[.total, .data]' <<<"$BODY")" '[0,[]]'
ev "action=&actor=&target=&outcome=&since=&until="
check "issue29.events: empty filters are none" "$(jq .total <<<"$BODY")" 4
# a refused sign-in's outcome, as the store holds it
db "UPDATE events SET outcome = 'access_denied' WHERE target = '$ROLE_r2'" > /dev/null
ev "outcome=access_denied"
check "issue29.events: outcome" "$(targets)" "[\"$ROLE_r2\"]"
ev "outcome=success"
check "issue29.events: outcome success" "$(jq .total <<<"$BODY")" 3

# since (at or after) and until (before), on times the test sets: the
# events of the project at 2001-09-09T01:46:40Z + 1 s per place in ID order
T0=1000000000
db "UPDATE events SET time = ($T0 + (SELECT count(*) FROM events o WHERE o.project_id = events.project_id AND o.id < events.id)) * 1000 WHERE project_id = '$PROJECT_ID'" > /dev/null
at() { date -u -d "@$(( T0 + $1 ))" +%Y-%m-%dT%H:%M:%SZ; }
ev "since=$(at 1)&sort_dir=asc"
check "issue29.events: since is at or after" "$(targets)" "[\"$ROLE_r1\",\"$ROLE_r2\",\"$ROLE_r3\"]"
ev "until=$(at 1)"
check "issue29.events: until is before" "$(targets)" "[\"$WRITER\"]"
ev "since=$(at 1)&until=$(at 3)&sort_dir=asc"
check "issue29.events: since and until" "$(targets)" "[\"$ROLE_r1\",\"$ROLE_r2\"]"
ev "since=$(date -u -d "@$(( T0 + 2 ))" +%Y-%m-%dT%H:%M:%S.000%%2B00:00)&page_size=100"
check "issue29.events: an offset and a fraction" "$(jq .total <<<"$BODY")" 2
ev "since=2001-09-09T03:46:41%2B02:00"
check "issue29.events: +02:00 (encoded)" "$(targets)" "[\"$ROLE_r3\",\"$ROLE_r2\",\"$ROLE_r1\"]"
ev "until=$(at 0)"
check "issue29.events: until the first" "$(jq -c '[.total, .data]' <<<"$BODY")" '[0,[]]'

# ---------------------------------------------------------------- permissions
for lacking in "${READS[@]}"; do
	others=()
	for p in "${READS[@]}"; do [ "$p" != "$lacking" ] && others+=("$p"); done
	new_client "no-$lacking" "${others[@]}"
	expect "Bearer $(client_token "$CID" "$CSECRET")" "403 insufficient_permission" \
		"issue29.events: without $lacking" GET "$E"
	check "issue29.events: names $lacking" "$(jq -r .error_description <<<"$BODY")" \
		"The token lacks the permission $lacking."
	check_header "issue29.events: insufficient_scope without $lacking" 'WWW-Authenticate: Bearer error="insufficient_scope"'
done
new_client reader "${READS[@]}"
expect "Bearer $(client_token "$CID" "$CSECRET")" 200 "issue29.events: the four reads suffice" GET "$E"
expect none "401 invalid_authorization_token" "issue29.events: no token" GET "$E"
expect "Bearer nope" "401 invalid_authorization_token" "issue29.events: a bad token" GET "$E"

# ---------------------------------------------------------------- another project
NP=$("$EDGEAUTH" -c "$CONF" project create --name Other)
NPID=$(jq -r .project_id <<<"$NP")
NTOKEN=$(client_token "$(jq -r .client_id <<<"$NP")" "$(jq -r .client_secret <<<"$NP")")
AUTH="Bearer $NTOKEN" req POST "/api/v1/projects/$NPID/roles" '{"code":"theirs","name":"Theirs"}'
check_status "issue29.events: a role of the other project" 201
THEIRS=$(jq -r .id <<<"$BODY")
ev "target=$THEIRS"
check "issue29.events: another project's event is not listed" "$(jq .total <<<"$BODY")" 0
ev "page_size=100"
check "issue29.events: nor any of its events" \
	"$(jq -r --arg p "$NPID" '[.data[]|select(.project_id == $p)]|length' <<<"$BODY")" 0
expect "Bearer $NTOKEN" "403 insufficient_permission" "issue29.events: another project's token" GET "$E"
AUTH="Bearer $NTOKEN" req GET "/api/v1/projects/$NPID/events"
check "issue29.events: the other project's own list" "$(jq -c '[.data[].action]' <<<"$BODY")" \
	'["role.create","project.create"]'
expect "Bearer $TOKEN" "404 project_not_found" "issue29.events: no such project" GET "/api/v1/projects/nope/events"

# ---------------------------------------------------------------- invalid params
bad() {
	ev "$1"
	check_err "issue29.events: $1" 400 invalid_params
	[ -n "${2:-}" ] && check "issue29.events: $1 says" "$(jq -r .error_description <<<"$BODY")" "$2"
	return 0
}
bad "action=role.frob" "action has a value that is not allowed"
bad "action=ROLE.CREATE"
bad "since=yesterday" "since must be an RFC 3339 date-time (2026-11-22T12:00:00Z)"
bad "until=2026-13-01T00:00:00Z" "until must be an RFC 3339 date-time (2026-11-22T12:00:00Z)"
bad "since=1700000000"
bad "search=x" 'unknown query parameter "search"'
bad "acter=x" 'unknown query parameter "acter"; did you mean "actor"?'
bad "page=2" 'unknown query parameter "page"; did you mean "page_num"?'
bad "page_size=101" "page_size must be an integer from 1 to 100"
bad "page_num=0"
bad "sort_by=id" "sort_by must be one of time"
bad "sort_dir=up"
bad "action=role.create&action=role.delete" "action must not be given more than once"
bad "target=$(printf 'x%.0s' $(seq 65))" "target must be at most 64 characters"
bad "actor=%ff"

finish
