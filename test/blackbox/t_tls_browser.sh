# The sign-in page in Chromium over https: t_browser.sh, every step, with
# the server's certificate trusted by its SPKI hash
# (--ignore-certificate-errors-spki-list). Twice: with hsts_max_age_s set,
# the page must carry Strict-Transport-Security; by default it must not.
# (The session cookie's Secure and __Host- flags: t_tls_browser_sso.sh.)
export EDGEAUTH_TLS=1
passed=0 failed=0
for hsts in 600 ""; do
	out=$(HSTS_MAX_AGE=$hsts bash "$(dirname "$0")/t_browser.sh")
	line=$(printf '%s\n' "$out" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -1)
	[ -z "$line" ] && { echo "FAIL [t_tls_browser] no summary from t_browser.sh (HSTS_MAX_AGE=$hsts)" >&2; line="0 passed, 1 failed"; }
	passed=$((passed + $(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/')))
	failed=$((failed + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
done
echo "t_tls_browser: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
