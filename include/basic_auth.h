#ifndef EDGEAUTH_BASIC_AUTH_H
#define EDGEAUTH_BASIC_AUTH_H
/* HTTP Basic client authentication (RFC 7617 with RFC 6749 §2.3.1). */

struct basic_credentials {
	char *client_id;
	char *secret;
};

/* Parses an Authorization header value. The ID and secret are
 * form-urlencoded before Base64 (RFC 6749 §2.3.1), so both are URL-decoded
 * after splitting at the first colon; either Base64 alphabet is accepted.
 * Returns 1 parsed (out filled, release with basic_auth_release), 0 no header,
 * -1 malformed or not Basic. */
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
};

/* Reads the request's client credentials: authorization is the
 * Authorization header (NULL: none), form_client_id and form_secret the
 * form's client_id and client_secret (NULL or "": none). *basic holds the
 * parsed header (release with basic_auth_release); *out borrows from it and
 * from the form. Returns 0, or -1 with invalid_params for a malformed
 * header, a secret sent both ways, or a form secret without a form
 * client_id. */
struct api_error;
int client_credentials_read(const char *authorization, const char *form_client_id,
                            const char *form_secret, struct basic_credentials *basic,
                            struct client_credentials *out, struct api_error *err);
/* The client that asks: the Basic header's, else the form's client_id;
 * a form client_id that differs from the Basic one, or none at all, is
 * invalid_params (CONTRACT.md §5). 0 with *id set (borrowed), or -1. */
int client_credentials_id(const struct client_credentials *c, const char **id,
                          struct api_error *err);
/* The same for a form body (RFC 6749 §2.3.1): its client_id and
 * client_secret, each given at most once (else invalid_params). */
struct evkeyvalq;
int client_credentials_form(const char *authorization, const struct evkeyvalq *form,
                            struct basic_credentials *basic, struct client_credentials *out,
                            struct api_error *err);

#endif
