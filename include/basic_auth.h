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
 * Returns 1 parsed (out filled, release with basic_release), 0 no header,
 * -1 malformed or not Basic. */
int basic_parse(const char *header, struct basic_credentials *out);
/* Frees and wipes. */
void basic_release(struct basic_credentials *b);

#endif
