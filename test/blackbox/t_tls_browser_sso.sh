# Single sign-on in Chromium over https (issue 17): t_browser_sso.sh, every
# step, with the server's certificate trusted by its SPKI hash; the session
# cookie must then be __Host-edgeauth_<project_id> with Secure and Path=/.
export EDGEAUTH_TLS=1
. "$(dirname "$0")/t_browser_sso.sh"
