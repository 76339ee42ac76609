#ifndef EDGEAUTH_BASIC_AUTH_H
#define EDGEAUTH_BASIC_AUTH_H
/* HTTP Basic client authentication (RFC 7617 with RFC 6749 §2.3.1). */
#include <stdbool.h>

struct basic_credentials {
	char *client_id;
	char *secret;
};

/* Parses an Authorization header value. The ID and secret are
 * form-urlencoded before Base64 (RFC 6749 §2.3.1), so both are URL-decoded
 * after splitting at the first colon; either Base64 alphabet is accepted.
 * Returns BASIC_PARSED (out filled, release with basic_auth_release),
 * BASIC_NONE (no header), BASIC_MALFORMED (a Basic header that does not
 * decode, or a value that does not start with a scheme), or
 * BASIC_OTHER_SCHEME (Bearer, Digest, any scheme but Basic). */
enum { BASIC_MALFORMED = -1, BASIC_NONE = 0, BASIC_PARSED = 1, BASIC_OTHER_SCHEME = 2 };
int basic_auth_parse(const char *header, struct basic_credentials *out);
/* Frees and wipes. */
void basic_auth_release(struct basic_credentials *b);

/* Who asks, at the token, revocation and introspection endpoints: the
 * client ID the form names, the client of an Authorization: Basic header
 * (RFC 6749 §2.3.1), and the secret, from that header or from the form's
 * client_secret (client_secret_post, RFC 6749 §2.3.1), never both. Strings
 * borrowed. */
struct client_credentials {
	const char *form_client_id;   /* NULL: none */
	const char *basic_client_id;  /* NULL: no Basic header */
	const char *secret;           /* Basic's or the form's; NULL: none sent */
	bool other_scheme;            /* an Authorization header of a scheme but Basic */
};

/* Reads the request's client credentials: authorization is the
 * Authorization header (NULL: none), form_client_id and form_secret the
 * form's client_id and client_secret (NULL or "": none). *basic holds the
 * parsed header (release with basic_auth_release); *out borrows from it and
 * from the form. Returns 0, or -1 with invalid_params for a Basic header
 * that does not decode, a secret sent both ways, or a form secret without
 * a form client_id. A header of another scheme is no error here: it is
 * noted (other_scheme) for client_credentials_scheme, so that the form's
 * own errors come first (docs/tokens.md "Token endpoint errors and their RFC 6749 meaning"). */
struct api_error;
int client_credentials_read(const char *authorization, const char *form_client_id,
                            const char *form_secret, struct basic_credentials *basic,
                            struct client_credentials *out, struct api_error *err);
/* Where client credentials are expected, an Authorization header of
 * another scheme (a Bearer token, Digest, ...) is a failed client
 * authentication, not a malformed request: 401 invalid_client_credentials
 * (RFC 6749 §5.2 invalid_client, RFC 7662 §2.1, RFC 7009 §2.1). 0 or -1. */
int client_credentials_scheme(const struct client_credentials *c, struct api_error *err);
/* The client that asks: the Basic header's, else the form's client_id;
 * after client_credentials_scheme, a form client_id that differs from the
 * Basic one, or none at all, is invalid_params (docs/tokens.md §"Client authentication"). 0 with *id
 * set (borrowed), or -1. */
int client_credentials_id(const struct client_credentials *c, const char **id,
                          struct api_error *err);
/* The same for a form body (RFC 6749 §2.3.1): its client_id and
 * client_secret, each given at most once (else invalid_params). */
struct evkeyvalq;
int client_credentials_form(const char *authorization, const struct evkeyvalq *form,
                            struct basic_credentials *basic, struct client_credentials *out,
                            struct api_error *err);

#endif
