# The store's files changed under the running server (SQLite's "how to
# corrupt" list; issue 24's fault injection): the WAL unlinked, truncated,
# the store file replaced by a rename. Each is found before the next batch
# commits: that write answers 503, the log says why, /healthz answers 503
# and the metrics say so; reads go on; what was answered before is kept.
# A store damaged under a server that then died is refused at start; a
# directory made unreadable for a while fails nothing that committed.
# SQLite alone: run-tests leaves it out on PostgreSQL, whose files are the
# database's.
. "$(dirname "$0")/lib.sh"
if [ "$BACKEND" != sqlite ]; then
	echo "skip: SQLite's files only"
	finish; exit
fi
MPORT=$(free_port)

# fresh NAME: a server on a store of its own, $TMP/NAME/edgeauth.db (STORE),
# with one user created (USER_ID)
fresh() {
	STORE=$TMP/$1/edgeauth.db
	start_server "store.path=$STORE" "metrics.listen=127.0.0.1:$MPORT"
	req POST "$P/users" "{\"display_name\":\"Before\",\"external_user_id\":\"before-$1\"}"
	check_status "issue24.$1: a create before the fault" 201
	USER_ID=$(jq -r .id <<<"$BODY")
}
# refused WHAT LOGGED [READ]: the next write answers 503, the log says
# LOGGED (a regex), /healthz and the metrics say the store refuses writes;
# a read answers 200 (what SQLite reads is whole; "any": not checked)
refused() {
	req POST "$P/users" "{\"display_name\":\"After\",\"external_user_id\":\"after-$1\"}"
	check_err "issue24.$1: a create after the fault is refused" 503 system_error
	check "issue24.$1: the log says why" "$(grep -Ec "$2" "$TMP/server.log")" 1
	req GET "$P/users/$USER_ID"
	[ "${3:-}" = any ] || check_status "issue24.$1: a read answers 200" 200
	req GET /healthz
	check_status "issue24.$1: /healthz answers 503" 503
	check "issue24.$1: the metric" \
		"$(curl -s "http://127.0.0.1:$MPORT/metrics" | grep -E '^edgeauth_store_writes_refused ')" \
		"edgeauth_store_writes_refused 1"
	req POST "$P/users" "{\"display_name\":\"Later\",\"external_user_id\":\"later-$1\"}"
	check_err "issue24.$1: and every write after it" 503 system_error
	stop_server
	: > "$TMP/server.log"
}

# the WAL unlinked (issue 24.9): SQLite would go on writing into a file no
# restart finds. What was answered before is kept (copied into the store
# file); nothing is answered after.
fresh 9-wal-unlinked
rm "$STORE-wal"
refused 9-wal-unlinked "WAL .*-wal was unlinked under the running server"
check "issue24.9: the create answered before the unlink survives the restart" \
	"$(db "SELECT count(*) FROM users WHERE external_user_id = 'before-9-wal-unlinked'" "$STORE")" 1
check "issue24.9: the refused create is not there" \
	"$(db "SELECT count(*) FROM users WHERE external_user_id LIKE '%er-9-wal-unlinked'" "$STORE")" 0

# the data directory renamed away: the store file's name leads nowhere
fresh 9-dir-renamed
mv "$TMP/9-dir-renamed" "$TMP/9-dir-moved"
refused 9-dir-renamed "edgeauth.db(-wal)? was removed or renamed under the running server"

# the WAL truncated (issue 24.17): its frames are gone; a checkpoint would
# write garbage into the store file
fresh 17-wal-truncated
for i in 1 2 3; do req POST "$P/users" "{\"display_name\":\"More $i\",\"external_user_id\":\"more-$i\"}" > /dev/null; done
truncate -s 32 "$STORE-wal"
# (a read of a page that was in it fails, 503 as the store is unavailable;
# one SQLite still holds in its cache answers)
refused 17-wal-truncated "WAL .*-wal was truncated under the running server" any

# the store file replaced by a rename beside it (issue 24.17)
fresh 17-db-replaced
cp "$STORE" "$STORE.new"
mv "$STORE.new" "$STORE"
refused 17-db-replaced "edgeauth.db was replaced by another file under the running server"

# the store's directory made unreadable for a while (issue 24.9): the
# sync goes through the WAL's descriptor, not its name, so a write that
# committed is answered as such, never 500; nothing proves that the files
# changed, so writes go on. The server runs as nobody (root reads anything).
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
	DIR=$TMP/9-unreadable KEYS=$TMP/9-keys
	mkdir -p "$DIR" "$KEYS"
	chown 65534 "$DIR" "$KEYS"
	chmod 711 "$TMP"   # its config file, for nobody
	EDGEAUTH_WRAPPER="setpriv --reuid=65534 --regid=65534 --clear-groups" start_server \
		"store.path=$DIR/edgeauth.db" store.synchronous=full "tokens.signing_key=$KEYS/signing-key.pem" \
		"tokens.key_encryption_key_file=$KEYS/key-encryption.key"
	req POST "$P/users" '{"display_name":"Open","external_user_id":"open"}'
	check_status "issue24.9-unreadable: a create" 201
	chmod 000 "$DIR"
	req POST "$P/users" '{"display_name":"Locked","external_user_id":"locked"}'
	check_status "issue24.9-unreadable: a create while the directory is unreadable is answered as committed" 201
	chmod 700 "$DIR"
	check "issue24.9-unreadable: ... and is in the store" \
		"$(db "SELECT count(*) FROM users WHERE external_user_id = 'locked'" "$DIR/edgeauth.db")" 1
	req POST "$P/users" '{"display_name":"Again","external_user_id":"again"}'
	check_status "issue24.9-unreadable: writes go on" 201
	stop_server
	chmod 700 "$TMP"
	: > "$TMP/server.log"
else
	echo "skip: the unreadable directory needs root and setpriv"
fi

# a store damaged while no server ran, after one died (issue 24.17): the
# start runs PRAGMA quick_check and refuses it, naming the file
fresh 17-quick-check
for i in $(seq 1 100); do req POST "$P/users" "{\"display_name\":\"Seed $i\",\"external_user_id\":\"seed-$i\"}" > /dev/null; done
stop_server   # a clean stop: everything is in the store file
: > "$TMP/server.log"
SAVED=("$PROJECT_ID" "$CLIENT_ID" "$CLIENT_SECRET")
start_server "store.path=$STORE"
PROJECT_ID=${SAVED[0]} CLIENT_ID=${SAVED[1]} CLIENT_SECRET=${SAVED[2]}
P="/api/v1/projects/$PROJECT_ID" TOKEN=$(admin_token)
req POST "$P/users" '{"display_name":"Last","external_user_id":"last"}'
check_status "issue24.17: a create, then the server is killed" 201
kill -KILL "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=
check "issue24.17: the killed server left its WAL" "$([ -s "$STORE-wal" ] && echo yes)" yes
# garbage over a page the check reads: the roles table's root, which the
# create did not write (so the WAL holds no newer copy). Its number is read
# from a copy of the store file alone: SQLite on the store itself would
# checkpoint the WAL at its clean close and remove it. (A page in the middle
# of the file could be a free page, which the check rightly does not read.)
cp "$STORE" "$TMP/copy.db"
ROOT=$(sqlite3 "$TMP/copy.db" "select rootpage from sqlite_schema where name = 'roles'")
rm -f "$TMP"/copy.db*
dd if=/dev/urandom of="$STORE" bs=4096 seek=$((ROOT - 1)) count=1 conv=notrunc status=none
"$EDGEAUTH" -c "$CONF" serve > /dev/null 2> "$TMP/start.log" &
PID=$!
# until it exits or answers (it must not): the check of a whole file may take
# long on a slow machine (under the sanitizers it took over 30 s), so the bound is 10 min
DEADLINE=$((SECONDS + 600))
while kill -0 "$PID" 2>/dev/null && [ "$SECONDS" -lt "$DEADLINE" ]; do
	curl -s -o /dev/null "$BASE/healthz" && break; sleep 0.1
done
if kill -0 "$PID" 2>/dev/null; then kill -KILL "$PID"; fi
wait "$PID"; RC=$?
check "issue24.17: a damaged store after an unclean stop: the start fails" "$([ "$RC" -ne 0 ] && echo yes)" yes
check "issue24.17: ... saying so, naming the file" \
	"$(grep -c "the store $STORE is damaged (PRAGMA quick_check after an unclean stop" "$TMP/start.log")" 1
finish
