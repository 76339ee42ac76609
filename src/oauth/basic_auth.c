/* HTTP Basic client credentials as OAuth clients send them. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <openssl/crypto.h>

#include "b64url.h"
#include "basic_auth.h"
#include "crypto.h"
#include "error.h"
#include "form.h"
#include "validate.h"

void basic_auth_release(struct basic_credentials *b)
{
	free(b->client_id);
	crypto_free_wiped(b->secret);
	memset(b, 0, sizeof *b);
}

/* RFC 7617 with RFC 6749 §2.3.1: the ID and secret are form-urlencoded
 * before Base64, so both are URL-decoded after splitting at the first colon.
 * The scheme is a token (RFC 9110 §11.4) matched without regard to case.
 * Returns BASIC_PARSED, BASIC_NONE, BASIC_MALFORMED or BASIC_OTHER_SCHEME. */
int basic_auth_parse(const char *header, struct basic_credentials *out)
{
	unsigned char *raw;
	size_t len, scheme;
	char *colon;
	int rc = BASIC_MALFORMED;

	if (!header)
		return BASIC_NONE;
	scheme = http_token_span(header);
	if (!scheme || (header[scheme] && header[scheme] != ' '))
		return BASIC_MALFORMED;
	if (scheme != 5 || strncasecmp(header, "Basic", 5) != 0)
		return BASIC_OTHER_SCHEME;
	header += scheme;
	while (*header == ' ')
		header++;
	raw = b64url_decode_any(header, strlen(header), &len);
	if (!raw)
		return -1;
	colon = memchr(raw, ':', len);
	if (colon && !memchr(raw, '\0', len)) {
		out->client_id = form_percent_decode((char *)raw, (size_t)(colon - (char *)raw), true);
		out->secret = form_percent_decode(colon + 1, len - (size_t)(colon + 1 - (char *)raw), true);
		if (out->client_id && out->secret && *out->client_id)
			rc = BASIC_PARSED;
		else
			basic_auth_release(out);
	}
	OPENSSL_cleanse(raw, len);
	free(raw);
	return rc;
}


int client_credentials_read(const char *authorization, const char *form_client_id,
                            const char *form_secret, struct basic_credentials *basic,
                            struct client_credentials *out, struct api_error *err)
{
	int parsed = basic_auth_parse(authorization, basic);
	bool basic_sent = parsed == BASIC_PARSED;

	memset(out, 0, sizeof *out);
	if (parsed == BASIC_MALFORMED)
		return api_fail(err, E_INVALID_PARAMS, "The Authorization header is malformed.");
	if (form_secret && !*form_secret)
		form_secret = NULL;   /* some public clients send it empty */
	/* docs/tokens.md §"Client authentication": one secret, one way */
	if (basic_sent && form_secret)
		return api_fail(err, E_INVALID_PARAMS,
		                "Send the client secret once: in the Basic header or as client_secret.");
	if (form_secret && (!form_client_id || !*form_client_id))
		return api_fail(err, E_INVALID_PARAMS, "client_secret needs client_id.");
	out->form_client_id = form_client_id;
	out->basic_client_id = basic_sent ? basic->client_id : NULL;
	out->secret = basic_sent ? basic->secret : form_secret;
	out->other_scheme = parsed == BASIC_OTHER_SCHEME;
	return 0;
}

int client_credentials_scheme(const struct client_credentials *c, struct api_error *err)
{
	if (c->other_scheme)
		return api_fail(err, E_INVALID_CLIENT_CREDENTIALS, "The client authenticates with "
		                "HTTP Basic or client_secret, not another Authorization scheme.");
	return 0;
}

int client_credentials_id(const struct client_credentials *c, const char **id,
                          struct api_error *err)
{
	if (client_credentials_scheme(c, err) < 0)
		return -1;
	if (c->basic_client_id) {
		if (c->form_client_id && strcmp(c->form_client_id, c->basic_client_id) != 0)
			return api_fail(err, E_INVALID_PARAMS,
			                "client_id differs from the Basic credentials.");
		*id = c->basic_client_id;
		return 0;
	}
	if (!c->form_client_id || !*c->form_client_id)
		return api_fail(err, E_INVALID_PARAMS, "client_id is required.");
	*id = c->form_client_id;
	return 0;
}

int client_credentials_form(const char *authorization, const struct evkeyvalq *form,
                            struct basic_credentials *basic, struct client_credentials *out,
                            struct api_error *err)
{
	const char *client_id = NULL, *secret = NULL;

	if (form_get(form, "client_id", &client_id, err) < 0 ||
	    form_get(form, "client_secret", &secret, err) < 0)
		return -1;
	return client_credentials_read(authorization, client_id, secret, basic, out, err);
}
