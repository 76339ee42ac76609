# Every connection limit holds over TLS as over plain HTTP (docs/operations.md
# §"TLS"): t_connections.sh again, its clients speaking TLS to a server with a
# certificate of the test CA (lib.sh, EDGEAUTH_TLS). Idle, slowloris,
# pipelining, reading nothing, the read-ahead bound, answers that close,
# clients that leave half-way, max_connections, max_connections_per_address.
export EDGEAUTH_TLS=1
. "$(dirname "$0")/t_connections.sh"
