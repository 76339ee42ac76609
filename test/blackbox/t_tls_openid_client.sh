# The openid-client flow (t_openid_client.sh) over TLS, against an https
# issuer: Node trusts the test CA through NODE_EXTRA_CA_CERTS (lib.sh,
# EDGEAUTH_TLS), and the library runs without allowInsecureRequests, its
# defaults all on. The apps' own listener stays plain http on 127.0.0.1.
export EDGEAUTH_TLS=1
. "$(dirname "$0")/t_openid_client.sh"
