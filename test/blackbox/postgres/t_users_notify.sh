# Users on PostgreSQL tell the fleet what its caches derive from them
# (docs/operations.md §"A fleet on PostgreSQL", schema/postgres/016): a user's deactivation, role change
# and deletion NOTIFY channel edgeauth in the writing transaction, so that
# every node drops the bearer verdicts and scopes it keeps; an update that
# changes none of those (a rename, a PUT sending the same values) does not
# empty every node's caches.
. "$(dirname "$0")/../lib.sh"
if [ "$BACKEND" != postgres ]; then
	fail "t_users_notify runs on PostgreSQL: EDGEAUTH_BACKEND=postgres test/blackbox/run.sh postgres/t_users_notify.sh"
	finish
	exit 1
fi
start_server

db "INSERT INTO roles (id, project_id, code, name, created_at, updated_at)
    VALUES ('role_n', '$PROJECT_ID', 'role_n', 'Notified', 0, 0)"
req POST "$P/users" '{"display_name":"Nia","external_user_id":"nia"}'
check_status "a user" 201
U=$(jq -r .id <<<"$BODY")

check "a rename: no notification" \
	"$(notified PUT "$P/users/$U" '{"display_name":"Nia A","is_active":true,"external_user_id":"nia"}')" "200 0"
check "the same values again: none" \
	"$(notified PUT "$P/users/$U" '{"display_name":"Nia A","is_active":true,"external_user_id":"nia"}')" "200 0"
check "a role given: notified" \
	"$(notified PUT "$P/users/$U" '{"display_name":"Nia A","is_active":true,"external_user_id":"nia","role_id":"role_n"}')" "200 1"
check "deactivated: notified" \
	"$(notified PUT "$P/users/$U" '{"display_name":"Nia A","is_active":false,"external_user_id":"nia"}')" "200 1"
check "reactivated: notified" \
	"$(notified PUT "$P/users/$U" '{"display_name":"Nia A","is_active":true,"external_user_id":"nia"}')" "200 1"
check "the role taken away: notified" \
	"$(notified PUT "$P/users/$U" '{"display_name":"Nia A","is_active":true,"external_user_id":"nia","role_id":null}')" "200 1"
check "deleted: notified" "$(notified DELETE "$P/users/$U")" "204 1"
finish
