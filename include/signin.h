#ifndef EDGEAUTH_SIGNIN_H
#define EDGEAUTH_SIGNIN_H
/*
 * Signing users in (CONTRACT.md §6): the code a sign-in ends with. The rest
 * of the sign-in service (throttle keys, the user look-up, the password
 * check) joins it here as api_authorize.c moves to steps. Nothing here knows
 * HTTP.
 */
#include "crypto.h"
#include "flow.h"
#include "server.h"
#include "store_tokens.h"

/* Whom a new code is for. Strings borrowed for the call's life. */
struct code_request {
	const char *project_id;
	const char *client_id;
	const char *user_id;
	const char *redirect_uri;
	const char *code_challenge;   /* S256 (RFC 7636) */
};

/* A code being stored; the caller keeps it until done runs. */
struct code_mint {
	char hash[SECRET_HASH_LEN + 1];
	char *family_id;
	struct new_code row;
};

/* Makes a new authorization code: random (256 bits), stored only as its
 * hash, bound to the client, redirect URI, challenge and user, living
 * [tokens] code_ttl_s, the first of a new sign-in family. On success *out
 * is the code (caller wipes and frees: crypto_wipe_free). */
void signin_code_mint(struct code_mint *m, struct server *srv, const struct code_request *req,
                      char **out, struct completion done);
void code_mint_release(struct code_mint *m);

#endif
