/*
 * Forward authentication's rules (forward_auth.h, docs/forward-auth.md):
 * reading what a trusted proxy says the original request was, matching it
 * to an app's base URLs, and the sealed state of a sign-in a proxy
 * started. Never trusts a header of a peer that is not a trusted proxy.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "b64url.h"
#include "crypto.h"
#include "forward_auth.h"
#include "util.h"
#include "validate.h"

void forward_request_release(struct forward_request *r)
{
	free(r->url);
	memset(r, 0, sizeof *r);
}

/* A host as X-Forwarded-Host may carry it: a name or address with an
 * optional port, nothing that would end the authority or start a path. */
static bool host_ok(const char *h)
{
	if (!h || !*h || strlen(h) > 255)
		return false;
	for (const char *p = h; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f || strchr("/\\@?#", *p))
			return false;
	return true;
}

/* Whether url's path has a "." or ".." segment (also percent-encoded) or a
 * backslash: such a URL may resolve outside the base it seems to lie under. */
static bool has_dot_segment(const char *url)
{
	const char *path = strstr(url, "://");

	path = path ? strchr(path + 3, '/') : NULL;
	if (!path)
		return false;
	for (const char *p = path; *p && *p != '?' && *p != '#'; p++) {
		if (*p == '\\')
			return true;
		if (p[0] != '/')
			continue;
		size_t n = strspn(p + 1, ".");
		bool encoded = !strncasecmp(p + 1, "%2e", 3);
		const char *after = p + 1 + (encoded ? 3 : n);

		if ((n > 0 || encoded) && (n <= 2 || encoded) &&
		    (*after == '/' || *after == '\0' || *after == '?' || *after == '#' ||
		     !strncasecmp(after, "%2e", 3) || *after == '.'))
			return true;
	}
	return false;
}

static bool scheme_ok(const char *proto)
{
	return proto && (!strcasecmp(proto, "http") || !strcasecmp(proto, "https"));
}

int forward_request_read(const struct forward_headers *h, bool trusted,
                         struct forward_request *out)
{
	const char *method;

	memset(out, 0, sizeof *out);
	if (!trusted)
		return -1;
	if (h->original_url) {
		out->url = xstrdup(h->original_url);
		out->nginx = true;
		method = h->original_method;
	} else {
		if (!scheme_ok(h->proto) || !host_ok(h->host) || !h->uri || h->uri[0] != '/')
			return -1;
		out->url = xasprintf("%s://%s%s", h->proto, h->host, h->uri);
		method = h->method;
	}
	if (!validate_http_url(out->url) || has_dot_segment(out->url)) {
		forward_request_release(out);
		return -1;
	}
	snprintf(out->method, sizeof out->method, "%s", method ? method : "");
	return 0;
}

/* The length of url's scheme and authority ("https://a.example:8443"). */
static size_t origin_len(const char *url)
{
	const char *auth = strstr(url, "://");

	if (!auth)
		return 0;
	auth += 3;
	return (size_t)(auth - url) + strcspn(auth, "/?#");
}

bool forward_url_under(const char *url, const char *base)
{
	size_t o = origin_len(base), n = strlen(base);

	if (o == 0 || o != origin_len(url) || strncasecmp(url, base, o) != 0 ||
	    strncmp(url + o, base + o, n - o) != 0)
		return false;
	return base[n - 1] == '/' || strchr("/?#", url[n]) != NULL;
}

const char *forward_url_base(const char *url, const char *const *bases, size_t n)
{
	const char *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (forward_url_under(url, bases[i]) && (!best || strlen(bases[i]) > strlen(best)))
			best = bases[i];
	return best;
}

char *forward_callback_uri(const char *base)
{
	size_t n = strlen(base);

	while (n > 0 && base[n - 1] == '/')
		n--;
	return xasprintf("%.*s%s", (int)n, base, FORWARD_AUTH_CALLBACK_PATH);
}

void forward_pkce_new(char **verifier, char **challenge)
{
	unsigned char digest[32];

	*verifier = crypto_new_secret();
	crypto_sha256(*verifier, strlen(*verifier), digest);
	*challenge = b64url_encode(digest, sizeof digest);
}

void forward_state_release(struct forward_state *s)
{
	crypto_free_wiped(s->verifier);
	crypto_free_wiped(s->nonce);
	free(s->url);
	memset(s, 0, sizeof *s);
}

/* The associated data that binds a state to its client. */
static char *state_aad(const char *client_id)
{
	return xasprintf("forward-auth:%s", client_id);
}

char *forward_state_seal(const struct keyring *r, const char *client_id,
                         const struct forward_state *s)
{
	char *aad = state_aad(client_id);
	char *text = keyring_seal_fields(r, aad, "%" PRId64 "\n%s\n%s\n%s", s->expires_at,
	                                 s->verifier, s->nonce, s->url);

	free(aad);
	return text;
}

int forward_state_open(const struct keyring *r, const char *client_id, const char *text,
                       int64_t now, struct forward_state *out)
{
	char *aad = state_aad(client_id), *plain, *fields[4], *p;
	size_t len = 0, n = 0;
	unsigned char *raw;
	int rc = -1;

	memset(out, 0, sizeof *out);
	raw = text ? keyring_open_text(r, aad, text, &len) : NULL;
	free(aad);
	if (!raw)
		return -1;
	plain = xstrndup((const char *)raw, len);
	crypto_free_wiped(raw);
	/* the URL last: it is the one field that may hold a newline */
	for (p = plain; n < 3 && p; n++)
		fields[n] = strsep(&p, "\n");
	if (n == 3 && p) {
		fields[3] = p;
		out->expires_at = strtoll(fields[0], NULL, 10);
		out->verifier = xstrdup(fields[1]);
		out->nonce = xstrdup(fields[2]);
		out->url = xstrdup(fields[3]);
		rc = now < out->expires_at ? 0 : -1;
	}
	crypto_free_wiped(plain);
	if (rc < 0)
		forward_state_release(out);
	return rc;
}
