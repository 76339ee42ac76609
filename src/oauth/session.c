/*
 * Browser sessions (session.h): the cookie, when a session spares the form,
 * and starting and finding one. A cookie value reaches only the hash and
 * the caller's Set-Cookie; it is never logged or stored. Loop thread only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "metrics.h"
#include "session.h"
#include "util.h"
#include "validate.h"

/* ---- the cookie ---- */

bool session_cookie_secure(const char *issuer)
{
	return strncmp(issuer, "https://", 8) == 0;
}

char *session_cookie_name(const char *project_id, bool secure)
{
	return xasprintf("%sedgeauth_%s", secure ? "__Host-" : "", project_id);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* s[0..*len) without the blanks around it. */
static const char *trim(const char *s, size_t *len)
{
	while (*len && blank(*s)) {
		s++;
		(*len)--;
	}
	while (*len && blank(s[*len - 1]))
		(*len)--;
	return s;
}

/* Counts the pairs called name in one header value; the last one's value
 * goes to *value, *value_len. A pair without '=' has no name (RFC 6265 §5.2
 * reads it as a value alone) and never matches. */
static size_t cookie_scan(const char *header, const char *name, const char **value,
                          size_t *value_len)
{
	size_t name_len = strlen(name), found = 0;

	for (const char *p = header; *p;) {
		const char *end = strchrnul(p, ';');
		const char *eq = memchr(p, '=', (size_t)(end - p));

		if (eq) {
			size_t klen = (size_t)(eq - p), vlen = (size_t)(end - eq - 1);
			const char *k = trim(p, &klen), *v = trim(eq + 1, &vlen);

			if (klen == name_len && memcmp(k, name, klen) == 0) {
				found++;
				*value = v;
				*value_len = vlen;
			}
		}
		p = *end ? end + 1 : end;
	}
	return found;
}

/* Every cookie called name in headers[0..n): how many, the last one's value. */
static size_t cookie_scan_all(const char *const *headers, size_t n, const char *name,
                              const char **value, size_t *value_len)
{
	size_t found = 0;

	for (size_t i = 0; i < n; i++)
		if (headers[i])
			found += cookie_scan(headers[i], name, value, value_len);
	return found;
}

size_t session_cookie_count(const char *const *headers, size_t n, const char *name)
{
	const char *value = NULL;
	size_t value_len = 0;

	return cookie_scan_all(headers, n, name, &value, &value_len);
}

char *session_cookie_value(const char *const *headers, size_t n, const char *name)
{
	const char *value = NULL;
	size_t value_len = 0;
	size_t found = cookie_scan_all(headers, n, name, &value, &value_len);

	return found == 1 && value_len > 0 ? xstrndup(value, value_len) : NULL;
}

/* docs/signin.md §"Sessions": a __Host- cookie must be Secure, for Path=/ and without
 * Domain (RFC 6265bis §4.1.3.2); over http it is Path=/ as well, since the
 * pages outside /api/v1/ (the console, the account page) need it. Lax: sent on the top-level GET an app sends the browser
 * with, not on another site's POST. */
char *session_cookie_header(const char *name, const char *value, bool secure, long max_age_s)
{
	return xasprintf("%s=%s; Path=/; Max-Age=%ld;%s HttpOnly; SameSite=Lax", name,
	                 value ? value : "", value ? max_age_s : 0,
	                 secure ? " Secure;" : "");
}

/* Until 0.1.0 the http cookie was for Path=/api/v1/ (CHANGELOG.md "Unreleased"). */
char *session_cookie_legacy_clear(const char *name)
{
	return xasprintf("%s=; Path=/api/v1/; Max-Age=0; HttpOnly; SameSite=Lax", name);
}

/* ---- when the form is spared ---- */

int session_ask_read(const char *prompt, const char *max_age, struct session_ask *out,
                     const char **why)
{
	bool other = false;

	memset(out, 0, sizeof *out);
	out->max_age = -1;
	for (const char *p = prompt; p && *p;) {
		size_t len = strcspn(p, " ");

		if (len == 4 && !strncmp(p, "none", 4))
			out->prompt_none = true;
		else if (len == 5 && !strncmp(p, "login", 5))
			out->prompt_login = true;
		else if (len > 0)
			other = true;   /* OIDC Core: other values are ignored */
		p += len + (p[len] == ' ');
	}
	if (out->prompt_none && (out->prompt_login || other)) {
		*why = "prompt=none cannot be combined with another value.";
		return -1;
	}
	if (max_age && parse_long_range(max_age, 0, SESSION_MAX_AGE_MAX, &out->max_age) < 0) {
		*why = "max_age must be a whole number of seconds from 0 to 2147483647.";
		return -1;
	}
	return 0;
}

enum session_verdict session_judge(const struct session_ask *ask, const struct session_row *live,
                                   int64_t now)
{
	bool form = !live || !live->found || ask->prompt_login ||
	            (ask->max_age >= 0 &&
	             (ask->max_age == 0 || ask->max_age * 1000LL < now - live->auth_time)) ||
	            (ask->user_hint && strcmp(ask->user_hint, live->user_id) != 0);

	if (!form)
		return SESSION_SILENT;
	return ask->prompt_none ? SESSION_LOGIN_REQUIRED : SESSION_FORM;
}

/* ---- starting and finding one ---- */

/* A session started, not one that went on under a new cookie, counts in
 * the metrics. */
static void begun(void *arg, const struct api_error *err)
{
	struct session_begin *b = arg;

	if (!err && b->sid && !strcmp(b->sid, b->id))
		metrics_session_started();
	b->done.fn(b->done.arg, err);
}

void session_begin(struct session_begin *b, struct server *srv, const char *project_id,
                   const char *user_id, const char *client_id, const char *old_cookie,
                   const char *amr, const struct event *ev, struct completion done)
{
	int64_t now = now_ms();

	b->secret = crypto_new_secret();
	crypto_hash_secret(b->secret, strlen(b->secret), b->hash);
	if (old_cookie)
		crypto_hash_secret(old_cookie, strlen(old_cookie), b->old_hash);
	b->id = crypto_new_id();
	b->auth_time = now;
	b->row = (struct new_session){
		.id = b->id, .secret_hash = b->hash,
		.old_secret_hash = old_cookie ? b->old_hash : NULL,
		.project_id = project_id, .user_id = user_id, .client_id = client_id, .now = now,
		.expires_at = now + srv->cfg->session_ttl_s * 1000LL, .event = ev, .amr = amr,
	};
	b->done = done;
	store_session_start(srv->store, &b->row, &b->sid, (struct completion){ begun, b });
}

void session_begin_release(struct session_begin *b)
{
	crypto_free_wiped(b->secret);
	free(b->id);
	free(b->sid);
	memset(b, 0, sizeof *b);
}

void session_find(struct session_lookup *l, struct server *srv, const char *cookie,
                  const char *project_id, struct completion done)
{
	session_lookup_release(l);
	if (!cookie) {
		complete(done, 0, NULL);
		return;
	}
	crypto_hash_secret(cookie, strlen(cookie), l->hash);
	store_session_find(srv->store, l->hash, project_id, now_ms(), &l->row, done);
}

void session_lookup_release(struct session_lookup *l)
{
	session_row_release(&l->row);
	memset(l, 0, sizeof *l);
}

void session_confirm_value(const char *cookie, char out[SECRET_HASH_LEN + 1])
{
	session_form_value("logout", cookie, out);
}

void session_form_value(const char *purpose, const char *cookie, char out[SECRET_HASH_LEN + 1])
{
	char *bound = xasprintf("%s:%s", purpose, cookie);

	crypto_hash_secret(bound, strlen(bound), out);
	crypto_free_wiped(bound);
}
