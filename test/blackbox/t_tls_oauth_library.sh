# The real OAuth 2.0 client library (t_oauth_library.sh: oauth4webapi,
# strict checks on) over TLS, against an https issuer: Node trusts the test
# CA through NODE_EXTRA_CA_CERTS (lib.sh, EDGEAUTH_TLS).
export EDGEAUTH_TLS=1
. "$(dirname "$0")/t_oauth_library.sh"
