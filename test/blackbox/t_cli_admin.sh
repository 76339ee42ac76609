#!/usr/bin/env bash
# issue27.cliargs: the older commands (project, key, events, cert, backup,
# restore, invalidate-all, check-config) read their arguments as user, role
# and client do (docs/commands.md, "Exit status and errors"): an unknown
# option, a missing value and a stray argument are usage errors (exit 2, a
# first line naming the fault, then the command's own usage); --help prints
# the usage on stdout without a config; the forms an option parser allows
# (--name=VALUE, "--" before an operand) work. IDs that begin with "--":
# taken as an option's value, and as an operand where the operand is due.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cli_lib.sh"
TEST_NAME=t_cli_admin
start_server
cd "$TMP" || exit 1   # where an old binary's `backup --frob` wrote its file "--frob"

# usage NAME WHAT USAGE ARGS...: `edgeauth ARGS...` is a usage error saying WHAT
usage() {
	local name=$1 what=$2 of=$3
	shift 3
	run "$@"
	check_usage "issue27.cliargs $name" "$what" "$of"
}

# help NAME USAGE ARGS...: `edgeauth -c /nonexistent ARGS...` prints the usage USAGE on stdout, 0
help() {
	local name=$1 of=$2 out
	shift 2
	out=$("$EDGEAUTH" -c "$TMP/no-such.conf" "$@" 2> "$TMP/help.err")
	check "issue27.cliargs $name --help: the usage, exit 0, no config" \
		"$? $(head -1 <<<"$out") $(wc -c < "$TMP/help.err")" "0 edgeauth [-c FILE] $of 0"
}

# ---- project ----
usage "project list: an unknown option" "unknown option --frob" "project list" project list --frob
usage "project create: a missing value" "--name needs a value" "project create" project create --name
usage "project create: an empty value" "--name needs a value" "project create" project create --name=
usage "project activate: a stray argument" "argument 2 is one too many" "project activate" \
	project activate "$PROJECT_ID" extra
usage "project activate: no ID" "ID is required" "project activate" project activate
help "project create" "project create --name NAME" project create --help
help "project" "project create --name NAME" project --help
help "project create -h" "project create --name NAME" project create -h
help "project -h" "project create --name NAME" project -h
run project create --name=second
check "issue27.cliargs project create --name=VALUE" "$RC $(jq -r 'keys | join(",")' <<<"$OUT")" \
	"0 client_id,client_secret,project_id"
run project deactivate -- "$PROJECT_ID"
check_ok "issue27.cliargs project deactivate -- ID"
run project activate -- "$PROJECT_ID"
check_ok "issue27.cliargs project activate -- ID"

# ---- key ----
usage "key list: an unknown option" "unknown option --frob" "key list" key list --frob
usage "key rotate: a missing value" "--alg needs a value" "key rotate" key rotate --alg
usage "key rotate: a bad value" "--alg is ES256 or RS256" "key rotate" key rotate --alg HS256
usage "key retire: a stray argument" "argument 2 is one too many" "key retire" key retire some-kid extra
usage "key: no such subcommand" "no command frob" "key list" key frob
help "key rotate" "key rotate [--alg ES256|RS256]" key rotate --help
run key rotate --alg=ES256
check "issue27.cliargs key rotate --alg=ES256" "$RC $(jq -r '[.[].alg] | join(",")' <<<"$OUT")" "0 ES256"

# ---- events ----
EV_USAGE="events [--project ID] [--since RFC3339] [--action A]"
usage "events: an unknown option" "unknown option --frob" "$EV_USAGE" events --frob x
usage "events: a missing value" "--since needs a value" "$EV_USAGE" events --since
usage "events: a bad time" "--since is an RFC 3339 time" "$EV_USAGE" events --since yesterday
usage "events: a stray argument" "argument 1 is one too many" "$EV_USAGE" events extra
help "events" "$EV_USAGE" events --help
run events --project="$PROJECT_ID" --action=project.deactivate
check "issue27.cliargs events --project=ID --action=A" "$RC $(jq -sr 'map(.action) | join(",")' <<<"$OUT")" \
	"0 project.deactivate"

# ---- cert ----
CERT_USAGE="cert self-signed --host NAME [--cert FILE] [--key FILE]"
usage "cert self-signed: an unknown option" "unknown option --frob" "$CERT_USAGE" \
	cert self-signed --host 127.0.0.1 --frob x
usage "cert self-signed: a missing value" "--cert needs a value" "$CERT_USAGE" \
	cert self-signed --host 127.0.0.1 --cert
usage "cert self-signed: no --host" "--host is required" "$CERT_USAGE" cert self-signed
usage "cert self-signed: a stray argument" "argument 3 is one too many" "$CERT_USAGE" \
	cert self-signed --host 127.0.0.1 extra
help "cert self-signed" "$CERT_USAGE" cert self-signed --help
run cert self-signed --host=127.0.0.1 --cert="$TMP/c.pem" --key="$TMP/k.pem"
check "issue27.cliargs cert self-signed --host=NAME" "$RC $(grep -c fingerprint <<<"$OUT")" "0 1"

# ---- backup, restore, invalidate-all, check-config ----
usage "backup: an unknown option" "unknown option --frob" "backup FILE" backup --frob
usage "backup: no FILE" "FILE is required" "backup FILE" backup
usage "backup: a stray argument" "argument 2 is one too many" "backup FILE" backup "$TMP/b.db" extra
help "backup" "backup FILE" backup --help
usage "restore: an unknown option" "unknown option --frob" "restore FILE" restore --frob
usage "restore: no FILE" "FILE is required" "restore FILE" restore
usage "restore: a stray argument" "argument 2 is one too many" "restore FILE" restore "$TMP/b.db" extra
help "restore" "restore FILE" restore --help
usage "invalidate-all: an unknown option" "unknown option --frob" "invalidate-all" invalidate-all --frob
usage "invalidate-all: a stray argument" "argument 1 is one too many" "invalidate-all" invalidate-all extra
help "invalidate-all" "invalidate-all" invalidate-all --help
usage "check-config: an unknown option" "unknown option --frob" "check-config" check-config --frob
usage "check-config: a stray argument" "argument 1 is one too many" "check-config" check-config extra
help "check-config" "check-config" check-config --help
run check-config --
check "issue27.cliargs check-config --" "$RC $(grep -c '^\[store\]' <<<"$OUT")" "0 1"
run invalidate-all --
check "issue27.cliargs invalidate-all --" "$RC $(grep -c 'is invalid' <<<"$OUT")" "0 1"
run backup -- "$TMP/b.db"
if [ "$BACKEND" = postgres ]; then
	check "issue27.cliargs backup -- FILE on PostgreSQL: refused" "$RC" 1
else
	check "issue27.cliargs backup -- FILE" "$RC $(grep -c 'written and checked' <<<"$OUT")" "0 1"
fi

# ---- the user, role and client commands: --help too; an unknown command says so ----
help "user add" "user add --project P (--email E | --external-id X) --name N [--role R] [--password-stdin]" \
	user add --help
help "client" "client add --project P --name N [--redirect-uri U]... [--permission NAMED]..." client --help
usage "no such command" "no command frob" "[serve]" frob
usage "serve: a stray argument" "serve takes no argument" "[serve]" serve extra
check "issue27.cliargs serve --help" "$("$EDGEAUTH" -c "$TMP/no-such.conf" serve --help | head -1 | cut -c1-33)" \
	"usage: edgeauth [-c FILE] [serve]"

# ---- IDs that begin with "--" ----
DASHED=--AAAAAAAAAAAAAAAAAAAA   # the shape of an ID (22 base64url characters)
run user list --project "$DASHED"
check_fail "issue27.cliargs --project VALUE that begins with --: a value" project_not_found
run user show --project "$PROJECT_ID" -- "$DASHED"
check_fail "issue27.cliargs an operand after --" user_not_found
run project activate "$DASHED"
check "issue27.cliargs an ID-shaped operand that begins with --" "$RC $(cat "$TMP/cli.err")" \
	"1 edgeauth: no project $DASHED"

stop_server
run restore -- "$TMP/b.db"
if [ "$BACKEND" = postgres ]; then
	check "issue27.cliargs restore -- FILE on PostgreSQL: refused" "$RC" 1
else
	check "issue27.cliargs restore -- FILE" "$RC $(grep -c 'restored into' <<<"$OUT")" "0 1"
fi
finish
