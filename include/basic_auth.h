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

/* Who asks, at the token and revocation endpoints: the client ID the form
 * names, and the credentials of an Authorization: Basic header (RFC 6749
 * §2.3.1), when one came. Strings borrowed. */
struct client_credentials {
	const char *form_client_id;   /* NULL: none */
	const char *basic_client_id;  /* NULL: no Basic header */
	const char *basic_secret;
};

/* Reads the request's client credentials: authorization is the
 * Authorization header (NULL: none), form_client_id the form's client_id.
 * *basic holds the parsed header (release with basic_auth_release); *out borrows
 * from it. Returns 0, or -1 with invalid_params for a malformed header. */
struct api_error;
int client_credentials_read(const char *authorization, const char *form_client_id,
                            struct basic_credentials *basic, struct client_credentials *out,
                            struct api_error *err);

#endif
