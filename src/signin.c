/* Signing users in (signin.h). */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "signin.h"
#include "util.h"

void signin_code_mint(struct code_mint *m, struct server *srv, const struct code_request *req,
                      char **out, struct completion done)
{
	*out = crypto_new_secret();
	m->family_id = crypto_new_id();
	crypto_hash_secret(*out, strlen(*out), m->hash);
	m->row = (struct new_code){
		.hash = m->hash, .family_id = m->family_id, .project_id = req->project_id,
		.client_id = req->client_id, .user_id = req->user_id,
		.redirect_uri = req->redirect_uri, .code_challenge = req->code_challenge,
		.expires_at = now_ms() + srv->cfg->code_ttl_s * 1000LL,
	};
	store_code_insert(srv->store, &m->row, done);
}

void code_mint_release(struct code_mint *m)
{
	free(m->family_id);
	memset(m, 0, sizeof *m);
}
