# t_app_openid_client.sh against an https issuer: the recipe as the doc
# shows it, Node trusting the test CA (NODE_EXTRA_CA_CERTS, lib.sh), and
# allowInsecureRequests not set (the recipe sets it for http issuers only).
export EDGEAUTH_TLS=1
. "$(dirname "$0")/t_app_openid_client.sh"
