/*
 * Signing users in (signin.h): a flow over the throttle, the store and the
 * worker pool. The password reaches only the hash job, which wipes its copy.
 * Loop thread only.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "passwords.h"
#include "signin.h"
#include "throttle.h"
#include "util.h"

void signin_code_mint(struct code_mint *m, struct server *srv, const struct code_request *req,
                      char **out, struct completion done)
{
	int64_t now = now_ms();

	*out = crypto_new_secret();
	m->family_id = crypto_new_id();
	crypto_hash_secret(*out, strlen(*out), m->hash);
	m->row = (struct new_code){
		.hash = m->hash, .family_id = m->family_id, .project_id = req->project_id,
		.client_id = req->client_id, .user_id = req->user_id,
		.redirect_uri = req->redirect_uri, .code_challenge = req->code_challenge,
		.expires_at = now + srv->cfg->code_ttl_s * 1000LL,
		.scope = req->scope, .nonce = req->nonce,
		.auth_time = req->auth_time ? req->auth_time : now, .session_id = req->session_id,
	};
	store_code_insert(srv->store, &m->row, done);
}

void code_mint_release(struct code_mint *m)
{
	free(m->family_id);
	memset(m, 0, sizeof *m);
}

void signin_result_release(struct signin_result *r)
{
	crypto_wipe_free(r->code);
	memset(r, 0, sizeof *r);
}

void signin_release(struct signin *s)
{
	for (size_t i = 0; i < SIGNIN_COUNT__N; i++)
		free(s->keys[i]);
	store_user_signin_release(&s->user);
	code_mint_release(&s->mint);
	memset(s, 0, sizeof *s);
}

static struct signin *signin_of(struct flow *f)
{
	return container_of(f, struct signin, flow);
}

/* ---- the counters ---- */

static struct throttle *counter(struct server *srv, enum signin_counter which)
{
	switch (which) {
	case SIGNIN_COUNT_ACCOUNT_ADDRESS: return srv->signin_account_addresses;
	case SIGNIN_COUNT_ACCOUNT: return srv->signin_accounts;
	default: return srv->signin_addresses;
	}
}

/* The account is the project and the email without regard to case (as the
 * look-up compares it); the address is the client's. */
static void throttle_keys(struct signin *s)
{
	const struct signin_request *in = s->in;
	char *account = xasprintf("%s:%s", in->project_id, in->email);

	for (char *c = account; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	s->keys[SIGNIN_COUNT_ACCOUNT_ADDRESS] = xasprintf("account:%s address:%s", account,
	                                                  in->address);
	s->keys[SIGNIN_COUNT_ACCOUNT] = xasprintf("account:%s", account);
	s->keys[SIGNIN_COUNT_ADDRESS] = xasprintf("address:%s", in->address);
	free(account);
}

/* Seconds until every counter lets the attempt through (0: now). */
static int throttle_wait(struct signin *s)
{
	int64_t now = now_ms();
	int wait = 0;

	for (size_t i = 0; i < SIGNIN_COUNT__N; i++) {
		int w = throttle_wait_s(counter(s->srv, i), s->keys[i], now);
		if (w > wait)
			wait = w;
	}
	return wait;
}

static void count_attempt(struct signin *s)
{
	int64_t now = now_ms();

	for (size_t i = 0; i < SIGNIN_COUNT__N; i++)
		throttle_fail(counter(s->srv, i), s->keys[i], now);
}

static void uncount_attempt(struct signin *s)
{
	for (size_t i = 0; i < SIGNIN_COUNT__N; i++)
		throttle_undo(counter(s->srv, i), s->keys[i]);
}

static void count_success(struct signin *s)
{
	throttle_reset(counter(s->srv, SIGNIN_COUNT_ACCOUNT_ADDRESS),
	               s->keys[SIGNIN_COUNT_ACCOUNT_ADDRESS]);
	throttle_reset(counter(s->srv, SIGNIN_COUNT_ACCOUNT), s->keys[SIGNIN_COUNT_ACCOUNT]);
	throttle_undo(counter(s->srv, SIGNIN_COUNT_ADDRESS), s->keys[SIGNIN_COUNT_ADDRESS]);
}

/* ---- the steps ---- */

static enum step_result ended(struct signin *s, enum signin_outcome outcome)
{
	s->out->outcome = outcome;
	return STEP_DONE;
}

static enum step_result throttle_check(struct flow *f)
{
	struct signin *s = signin_of(f);

	throttle_keys(s);
	s->out->retry_after_s = throttle_wait(s);
	return s->out->retry_after_s > 0 ? ended(s, SIGNIN_THROTTLED) : STEP_NEXT;
}

static enum step_result user_get(struct flow *f)
{
	struct signin *s = signin_of(f);

	store_signin_user(s->srv->store, s->in->project_id, s->in->email, &s->user,
	                  flow_completion(f));
	return STEP_WAIT;
}

/* The hash job's end, on the loop thread. */
static void password_checked(void *arg, int ok)
{
	struct signin *s = arg;

	s->verified = ok;
	flow_resume(&s->flow, NULL);
}

static enum step_result password_check(struct flow *f)
{
	struct signin *s = signin_of(f);
	const char *hash = s->user.found ? s->user.password_hash : NULL;

	count_attempt(s);
	if (passwords_verify(s->srv->passwords, hash, s->in->password, password_checked, s,
	                     &s->out->err) < 0) {
		uncount_attempt(s);
		return ended(s, SIGNIN_BUSY);
	}
	return STEP_WAIT;
}

static enum step_result password_judge(struct flow *f)
{
	struct signin *s = signin_of(f);

	if (s->verified != 1 || !s->user.found || !s->user.is_active)
		return ended(s, SIGNIN_REFUSED);
	count_success(s);
	return STEP_NEXT;
}

/* A code that cannot be stored ends the sign-in as SIGNIN_NO_CODE, not as a
 * failure: the user is sent back to the application with server_error. */
static void code_stored(void *arg, const struct api_error *err)
{
	struct signin *s = arg;

	s->code_failed = err != NULL;
	flow_resume(&s->flow, NULL);
}

static enum step_result code_mint(struct flow *f)
{
	struct signin *s = signin_of(f);
	const struct code_request req = {
		.project_id = s->in->project_id, .client_id = s->in->client_id,
		.user_id = s->user.user_id, .redirect_uri = s->in->redirect_uri,
		.code_challenge = s->in->code_challenge,
	};

	signin_code_mint(&s->mint, s->srv, &req, &s->out->code,
	                 (struct completion){ code_stored, s });
	return STEP_WAIT;
}

static enum step_result code_minted(struct flow *f)
{
	struct signin *s = signin_of(f);

	if (!s->code_failed)
		return ended(s, SIGNIN_SIGNED_IN);
	crypto_wipe_free(s->out->code);
	s->out->code = NULL;
	return ended(s, SIGNIN_NO_CODE);
}

static void signin_finish(struct flow *f, enum step_result r)
{
	struct signin *s = signin_of(f);

	complete(s->done, r == STEP_DONE ? 0 : -1, &f->err);
}

void signin_run(struct signin *s, struct server *srv, const struct signin_request *in,
                struct signin_result *out, struct completion done)
{
	static flow_step *const steps[] = {
		throttle_check, user_get, password_check, password_judge, code_mint, code_minted,
		NULL,
	};

	memset(s, 0, sizeof *s);
	memset(out, 0, sizeof *out);
	s->srv = srv;
	s->in = in;
	s->out = out;
	s->done = done;
	flow_run(&s->flow, steps, signin_finish);
}
