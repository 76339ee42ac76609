/* Bearer token checks for the management API (docs/tokens.md §"Bearer check"). Every
 * failure is the same invalid_authorization_token: the caller learns no
 * more than that the token is not good. */
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>
#include <strings.h>
#include <time.h>

#include "auth.h"
#include "config.h"
#include "keyring.h"
#include "store.h"
#include "store_tokens.h"
#include "crypto.h"
#include "util.h"

static const char *claim_string(const json_t *claims, const char *key)
{
	const char *s = json_string_value(json_object_get(claims, key));
	return s && *s ? s : NULL;
}

void auth_principal_release(struct principal *p)
{
	free(p->project_id);
	free(p->client_id);
	free(p->user_id);
	free(p->jti);
	free(p->scope);
	free(p->kid);
	memset(p, 0, sizeof *p);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void principal_copy(struct principal *dst, const struct principal *src)
{
	dst->present = src->present;
	dst->project_id = dup_or_null(src->project_id);
	dst->client_id = dup_or_null(src->client_id);
	dst->user_id = dup_or_null(src->user_id);
	dst->jti = dup_or_null(src->jti);
	dst->scope = dup_or_null(src->scope);
	dst->kid = dup_or_null(src->kid);
	dst->iat = src->iat;
	dst->auth_time = src->auth_time;
	dst->exp = src->exp;
}

/* ---- verified tokens ----
 * The ECDSA check dominates a bearer request, and a client sends the same
 * token many times. So the claims of a token whose signature checked out are
 * kept, by the token's SHA-256, in a direct-mapped table. Revocation is read
 * from the store on every request; the rest of the store's verdict (client,
 * project and user active) is kept by jti at the store_stamp of that read,
 * so any commit, ours or the CLI's, has it read again. */
#define VERIFY_CACHE_SLOTS 1024

struct verified {
	unsigned char digest[32];
	struct principal p;       /* p.present: the slot is in use */
};

struct auth_cache {
	struct verified slots[VERIFY_CACHE_SLOTS];
	struct store_cache *holders_active;   /* jti -> &holders_were_active */
};

/* The one value of holders_active: only a passed check is kept. */
static char holders_were_active;

static void keep_static(void *v)
{
	(void)v;
}

void auth_cache_free(struct auth_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < VERIFY_CACHE_SLOTS; i++)
		auth_principal_release(&c->slots[i].p);
	store_cache_free(c->holders_active);
	free(c);
}

/* The server's auth cache, made on first use. */
static struct auth_cache *auth_cache(struct server *srv)
{
	if (!srv->auth_cache) {
		srv->auth_cache = xcalloc(1, sizeof *srv->auth_cache);
		srv->auth_cache->holders_active = store_cache_new(METRICS_CACHE_TOKEN_HOLDERS, keep_static);
	}
	return srv->auth_cache;
}

static struct verified *cache_slot(struct server *srv, const unsigned char digest[32])
{
	uint64_t h;

	memcpy(&h, digest, sizeof h);
	return &auth_cache(srv)->slots[h % VERIFY_CACHE_SLOTS];
}

/* Verifies the token's signature and reads its claims into *out (owned).
 * Returns 0, or -1 for anything malformed, forged or of another issuer;
 * *kid_unknown tells whether no published key has its kid. */
static int claims_read(struct server *srv, const char *token, struct principal *out,
                       bool *kid_unknown)
{
	const char *iss, *sub, *client_id, *project_id, *jti, *scope;
	struct keyring_verdict v;
	json_t *claims = keyring_verify(srv->keys, JWT_TYP_ACCESS, token, strlen(token), &v), *exp,
	       *iat;
	int rc = -1;

	*kid_unknown = v.kid_unknown;
	if (!claims)
		return -1;
	iss = claim_string(claims, "iss");
	sub = claim_string(claims, "sub");
	client_id = claim_string(claims, "client_id");
	project_id = claim_string(claims, "project_id");
	jti = claim_string(claims, "jti");
	scope = json_string_value(json_object_get(claims, "scope"));
	exp = json_object_get(claims, "exp");
	iat = json_object_get(claims, "iat");
	if (iss && sub && client_id && project_id && jti && scope && json_is_integer(exp) &&
	    json_is_integer(iat) && !strcmp(iss, srv->cfg->issuer)) {
		out->present = true;
		out->project_id = xstrdup(project_id);
		out->client_id = xstrdup(client_id);
		/* sub is the client itself for client_credentials */
		out->user_id = strcmp(sub, client_id) != 0 ? xstrdup(sub) : NULL;
		out->jti = xstrdup(jti);
		out->scope = xstrdup(scope);
		out->iat = (long long)json_integer_value(iat);
		out->auth_time = (long long)json_integer_value(json_object_get(claims, "auth_time"));
		out->exp = (long long)json_integer_value(exp);
		out->kid = xstrdup(v.kid);
		rc = 0;
	}
	json_decref(claims);
	return rc;
}

/* The token's claims, from the cache or from a verification. */
static int claims_get(struct server *srv, const char *token, struct principal *out,
                      bool *kid_unknown)
{
	unsigned char digest[32];
	struct verified *slot;

	crypto_sha256(token, strlen(token), digest);
	slot = cache_slot(srv, digest);
	if (slot->p.present && !memcmp(slot->digest, digest, sizeof digest)) {
		principal_copy(out, &slot->p);
		return 0;
	}
	if (claims_read(srv, token, out, kid_unknown) < 0)
		return -1;
	auth_principal_release(&slot->p);
	memcpy(slot->digest, digest, sizeof digest);
	principal_copy(&slot->p, out);
	return 0;
}

const char *auth_bearer_token(const char *header)
{
	if (!header || strncasecmp(header, "Bearer ", 7) != 0)
		return NULL;
	header += 7;
	while (*header == ' ')
		header++;
	return *header ? header : NULL;
}

static struct bearer_check *check_of(struct flow *f)
{
	return container_of(f, struct bearer_check, flow);
}

static enum step_result invalid(struct flow *f, int sent)
{
	flow_fail(f, E_INVALID_AUTHORIZATION_TOKEN, sent ? "The access token is invalid or expired."
	          : "A bearer access token is required.");
	f->err.token_was_sent = sent;
	return STEP_FAIL;
}

static flow_step bearer_verify, bearer_keys_forced, bearer_revoked, bearer_keys, bearer_holders,
	bearer_accept;

/* bearer_verify's second try, after the ring was read again for a kid it
 * did not know. */
static flow_step *const after_forced_keys[] = {
	bearer_keys_forced, bearer_verify, bearer_revoked, bearer_keys, bearer_holders,
	bearer_accept, NULL,
};

/* The signature (or the cache of tokens whose signature checked out), the
 * claims, exp, and an iat not ahead of this clock: a token from before a
 * clock was stepped back is refused, so that a cut-off set after the step
 * (invalidate-all, a deactivation) cannot fall before it. A kid the ring
 * does not publish has the ring read again once (another process may sign
 * with a key this one has not read yet). */
static enum step_result bearer_verify(struct flow *f)
{
	struct bearer_check *c = check_of(f);
	long long now = (long long)time(NULL);

	if (!c->token)
		return invalid(f, 0);
	if (strlen(c->token) > JWT_MAX_LEN)
		return invalid(f, 1);
	c->kid_unknown = false;
	if (claims_get(c->srv, c->token, c->out, &c->kid_unknown) < 0) {
		if (c->kid_unknown && !c->keys_forced)
			return flow_branch(f, after_forced_keys);
		return invalid(f, 1);
	}
	if (c->out->exp <= now || c->out->iat > now + AUTH_IAT_LEEWAY_S)
		return invalid(f, 1);
	return STEP_NEXT;
}

static enum step_result bearer_keys_forced(struct flow *f)
{
	struct bearer_check *c = check_of(f);

	c->keys_forced = true;
	keyring_refresh(&c->keys, c->srv->keys, c->srv->store, true, flow_completion(f));
	return STEP_WAIT;
}

/* After the revocation read (so the store's stamp is this request's): the
 * ring as the store has it, so that a retirement counts at once. */
static enum step_result bearer_keys(struct flow *f)
{
	struct bearer_check *c = check_of(f);

	keyring_refresh(&c->keys, c->srv->keys, c->srv->store, false, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result bearer_revoked(struct flow *f)
{
	struct bearer_check *c = check_of(f);

	store_token_is_revoked(c->srv->store, c->out->jti, &c->revoked, &c->stamp,
	                       flow_completion(f));
	return STEP_WAIT;
}

/* Revocation is read on every request; the rest of the store's verdict
 * (store_token_holders_ok) is kept by jti at the stamp of that read, so any
 * commit, ours or the CLI's, has it read again. */
static enum step_result bearer_holders(struct flow *f)
{
	struct bearer_check *c = check_of(f);

	if (c->revoked || !keyring_find(c->srv->keys, c->out->kid))
		return invalid(f, 1);
	if (store_cache_get(auth_cache(c->srv)->holders_active, c->out->jti, c->stamp)) {
		c->holders_ok = true;
		return STEP_NEXT;
	}
	store_token_holders_ok(c->srv->store, c->out->project_id, c->out->client_id,
	                       c->out->user_id, c->out->iat, &c->holders_ok, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result bearer_accept(struct flow *f)
{
	struct bearer_check *c = check_of(f);

	if (!c->holders_ok)
		return invalid(f, 1);
	store_cache_put(auth_cache(c->srv)->holders_active, c->out->jti, c->stamp,
	                  &holders_were_active);
	return STEP_DONE;
}

static void bearer_finish(struct flow *f, enum step_result r)
{
	struct bearer_check *c = check_of(f);

	if (r != STEP_DONE)
		auth_principal_release(c->out);
	keyring_refresh_release(&c->keys);
	complete(c->done, r == STEP_DONE ? 0 : -1, &f->err);
}

void auth_token(struct bearer_check *c, struct server *srv, const char *token,
                struct principal *out, struct completion done)
{
	static flow_step *const steps[] = {
		bearer_verify, bearer_revoked, bearer_keys, bearer_holders, bearer_accept, NULL,
	};

	memset(c, 0, sizeof *c);
	c->srv = srv;
	c->token = token;
	c->out = out;
	c->done = done;
	flow_run(&c->flow, steps, bearer_finish);
}

void auth_bearer(struct bearer_check *c, struct server *srv, const char *header,
                 struct principal *out, struct completion done)
{
	auth_token(c, srv, auth_bearer_token(header), out, done);
}

/* Whether the scope s holds the named permission permission[0..n). */
static bool scope_holds(const char *s, const char *permission, size_t n)
{
	while (s && *s) {
		const char *end = strchrnul(s, ' ');
		if ((size_t)(end - s) == n && strncmp(s, permission, n) == 0)
			return true;
		s = *end ? end + 1 : end;
	}
	return false;
}

bool auth_principal_has(const struct principal *p, const char *permission)
{
	return scope_holds(p->scope, permission, strlen(permission));
}

const char *auth_principal_lacks(const struct principal *p, const char *permissions,
                                 size_t *len)
{
	const char *w = permissions;

	while (*w) {
		const char *end = strchrnul(w, ' ');

		*len = (size_t)(end - w);
		if (!scope_holds(p->scope, w, *len))
			return w;
		w = *end ? end + 1 : end;
	}
	return NULL;
}
