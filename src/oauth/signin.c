/*
 * Signing users in (signin.h): a flow over the throttle, the store and the
 * worker pool. The password reaches only the hash job, which wipes its copy.
 * Loop thread only.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <openssl/crypto.h>

#include "cidr.h"
#include "config.h"
#include "metrics.h"
#include "passwords.h"
#include "store_sessions.h"
#include "signin.h"
#include "throttle.h"
#include "totp.h"
#include "util.h"

/* After the access rule let the user in: the session's bound, then the
 * code's row. */
static void code_allowed(void *arg, const struct api_error *err)
{
	struct code_mint *m = arg;
	int wait;

	if (err) {
		complete(m->done, -1, err);
		return;
	}
	if (!m->consent_skip && consent_needed(&m->access.facts, m->row.scope, m->consent_force)) {
		struct api_error ask;

		m->consent_scopes = consent_union(m->access.facts.consented, m->row.scope);
		api_fail(&ask, E_CONSENT_REQUIRED, "The user has not allowed the app yet.");
		complete(m->done, -1, &ask);
		return;
	}
	if (m->row.session_id &&
	    (wait = throttle_take(m->srv->session_codes, m->row.session_id, now_ms()))) {
		struct api_error busy;

		api_fail(&busy, E_THROTTLED, "The session was given too many codes in the last minute.");
		busy.retry_after_s = wait;
		complete(m->done, -1, &busy);
		return;
	}
	store_code_insert(m->srv->store, &m->row, m->done);
}

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
		.grant_scope = req->grant_scope,
	};
	m->srv = srv;
	m->done = done;
	m->consent_force = req->consent_force;
	m->consent_skip = req->consent_skip;
	access_rule_check(&m->access, srv->store, &(struct access_ask){ req->project_id,
	                  req->client_id, req->user_id, req->address },
	                  (struct completion){ code_allowed, m });
}

char *signin_oidc_scope(const char *scope)
{
	static const char *const known[] = SIGNIN_OIDC_SCOPES;
	bool asked[sizeof known / sizeof known[0]] = { false };
	char *out;
	size_t n = 0;

	for (const char *p = scope; p && *p;) {
		size_t len = strcspn(p, " ");

		for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
			if (strlen(known[i]) == len && !strncmp(p, known[i], len))
				asked[i] = true;
		p += len + (p[len] == ' ');
	}
	if (!asked[0])
		return NULL;   /* without openid: a plain OAuth request */
	out = xmalloc(sizeof "openid profile email roles");
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (asked[i])
			n += (size_t)sprintf(out + n, "%s%s", n ? " " : "", known[i]);
	return out;
}

const char *code_mint_permissions(const struct code_mint *m)
{
	return m->access.facts.permissions;
}

void code_mint_release(struct code_mint *m)
{
	access_check_release(&m->access);
	free(m->consent_scopes);
	free(m->family_id);
	memset(m, 0, sizeof *m);
}

void signin_result_release(struct signin_result *r)
{
	crypto_free_wiped(r->code);
	crypto_free_wiped(r->session_secret);
	free(r->factor_token);
	free(r->passkey_ids);
	free(r->consent_scopes);
	free(r->user_id);
	free(r->consent_permissions);
	crypto_free_wiped(r->enroll_sealed);
	if (r->recovery)
		recovery_batch_release(r->recovery);
	free(r->recovery);
	memset(r, 0, sizeof *r);
}

void signin_release(struct signin *s)
{
	for (size_t i = 0; i < SIGNIN_COUNT__N; i++)
		free(s->keys[i]);
	store_user_signin_release(&s->user);
	factor_pending_release(&s->pending);
	factor_enroll_release(&s->enroll);
	store_signin_factors_release(&s->factors);
	session_begin_release(&s->session);
	store_passkey_release(&s->passkey);
	free(s->alone_record);
	free(s->alone_email);
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
 * look-up compares it). */
static char *account_of(const char *project_id, const char *email)
{
	char *account = xasprintf("%s:%s", project_id, email ? email : "");

	for (char *c = account; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	return account;
}

char *signin_account_key(const char *project_id, const char *email)
{
	char *account = account_of(project_id, email);
	char *key = xasprintf("account:%s", account);

	free(account);
	return key;
}

/* The address is the client's. */
static void throttle_keys(struct signin *s)
{
	const struct signin_request *in = s->in;
	char *account = account_of(in->project_id, s->email);
	char address[CIDR_GROUP_TEXT_MAX];

	/* an IPv6 client counts as its /64 (cidr_client_group) */
	cidr_client_group_text(in->address, address, sizeof address);

	s->keys[SIGNIN_COUNT_ACCOUNT_ADDRESS] = xasprintf("account:%s address:%s", account,
	                                                  address);
	s->keys[SIGNIN_COUNT_ACCOUNT] = signin_account_key(in->project_id, s->email);
	s->keys[SIGNIN_COUNT_ADDRESS] = xasprintf("address:%s", address);
	free(account);
}

/* Seconds until every counter lets the attempt through (0: now). */
static int throttle_wait(struct signin *s)
{
	int64_t now = now_ms();
	int wait = 0;

	for (size_t i = 0; i < SIGNIN_COUNT__N; i++) {
		int w = s->keys[i] ? throttle_wait_s(counter(s->srv, i), s->keys[i], now) : 0;
		if (w > wait)
			wait = w;
	}
	return wait;
}

static void count_attempt(struct signin *s)
{
	int64_t now = now_ms();

	for (size_t i = 0; i < SIGNIN_COUNT__N; i++)
		s->throttle_started[i] = s->keys[i] &&
		                         throttle_fail(counter(s->srv, i), s->keys[i], now);
}

static void uncount_attempt(struct signin *s)
{
	for (size_t i = 0; i < SIGNIN_COUNT__N; i++)
		if (s->keys[i])
			throttle_undo(counter(s->srv, i), s->keys[i]);
}

/* (a passkey alone of a user without an email knows the address only) */
static void count_success(struct signin *s)
{
	if (!s->keys[SIGNIN_COUNT_ACCOUNT]) {
		throttle_undo(counter(s->srv, SIGNIN_COUNT_ADDRESS), s->keys[SIGNIN_COUNT_ADDRESS]);
		return;
	}
	throttle_reset(counter(s->srv, SIGNIN_COUNT_ACCOUNT_ADDRESS),
	               s->keys[SIGNIN_COUNT_ACCOUNT_ADDRESS]);
	throttle_reset(counter(s->srv, SIGNIN_COUNT_ACCOUNT), s->keys[SIGNIN_COUNT_ACCOUNT]);
	throttle_undo(counter(s->srv, SIGNIN_COUNT_ADDRESS), s->keys[SIGNIN_COUNT_ADDRESS]);
}

/* ---- the steps ---- */

enum metrics_signin signin_metric(enum signin_outcome outcome)
{
	static const enum metrics_signin label[] = {
		[SIGNIN_SIGNED_IN] = METRICS_SIGNIN_SUCCESS, [SIGNIN_NO_CODE] = METRICS_SIGNIN_ERROR,
		[SIGNIN_REFUSED] = METRICS_SIGNIN_FAILURE, [SIGNIN_THROTTLED] = METRICS_SIGNIN_THROTTLED,
		[SIGNIN_BUSY] = METRICS_SIGNIN_ERROR, [SIGNIN_TOO_MANY_CODES] = METRICS_SIGNIN_THROTTLED,
		[SIGNIN_FACTOR_REFUSED] = METRICS_SIGNIN_FAILURE,
		[SIGNIN_FACTOR_EXPIRED] = METRICS_SIGNIN_FAILURE,
		/* the user proved who they are; a rule refused them the app */
		[SIGNIN_ACCESS_DENIED] = METRICS_SIGNIN_SUCCESS,
		[SIGNIN_CONSENT_NEEDED] = METRICS_SIGNIN_SUCCESS,
		[SIGNIN_ENROLL_NEEDED] = METRICS_SIGNIN_SUCCESS,   /* not counted: ended's */
		[SIGNIN_ENROLL_REFUSED] = METRICS_SIGNIN_FAILURE,
	};

	assert((size_t)outcome < sizeof label / sizeof label[0]);
	return label[outcome];
}

static enum step_result ended(struct signin *s, enum signin_outcome outcome)
{
	s->out->outcome = outcome;
	/* a first step that asks for the factor (or its enrollment) has not
	 * ended the sign-in */
	if (outcome != SIGNIN_FACTOR_NEEDED && outcome != SIGNIN_ENROLL_NEEDED)
		metrics_signin(signin_metric(outcome));
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

	/* again: on a store that answers later (PostgreSQL) attempts sent at
	 * the same time were all let through before any was counted */
	s->out->retry_after_s = throttle_wait(s);
	if (s->out->retry_after_s > 0)
		return ended(s, SIGNIN_THROTTLED);
	count_attempt(s);
	if (passwords_verify(s->srv->passwords, hash, s->in->password, password_checked, s,
	                     &s->out->err) < 0) {
		uncount_attempt(s);
		return ended(s, SIGNIN_BUSY);
	}
	return STEP_WAIT;
}

/* ---- a refusal's events ---- */

/* The user the email names, or NULL: never the email, which may hold a
 * password typed in the wrong field (docs/operations.md §"Audit trail"). */
static const char *target_user(const struct signin *s)
{
	return s->user.found ? s->user.user_id : NULL;
}

static void refusal_recorded(void *arg, const struct api_error *err)
{
	struct signin *s = arg;

	(void)err;   /* the store logged it; the attempt is refused all the same */
	flow_resume(&s->flow, NULL);
}

/* signin.failure, and signin.throttled for each counter this attempt
 * started: an account's names its user, the address's none. */
static enum step_result refusal_record(struct flow *f)
{
	struct signin *s = signin_of(f);
	size_t n = 0;

	s->events[n++] = (struct event){ &s->by, s->in->project_id, s->failure_action,
	                                 target_user(s), EVENT_ACCESS_DENIED };
	for (size_t i = 0; i < SIGNIN_COUNT__N; i++)
		if (s->throttle_started[i])
			s->events[n++] = (struct event){
				&s->by, s->in->project_id, EVENT_SIGNIN_THROTTLED,
				i == SIGNIN_COUNT_ADDRESS ? NULL : target_user(s), EVENT_THROTTLED,
			};
	store_event_record(s->srv->store, s->events, n, (struct completion){ refusal_recorded, s });
	return STEP_WAIT;
}

static enum step_result refused(struct flow *f)
{
	struct signin *s = signin_of(f);

	return ended(s, s->refusal);
}

static flow_step *const refusal_steps[] = { refusal_record, refused, NULL };

static enum step_result password_judge(struct flow *f)
{
	struct signin *s = signin_of(f);

	if (s->verified < 0) {
		/* no memory for the hash: nothing was checked, so no failure
		 * is counted or recorded (docs/decisions.md "A password hash that cannot run") */
		uncount_attempt(s);
		api_fail(&s->out->err, E_UNAVAILABLE,
		         "The password could not be checked; try again shortly.");
		return ended(s, SIGNIN_BUSY);
	}
	if (s->verified != 1 || !s->user.found || !s->user.is_active)
		return flow_branch(f, refusal_steps);
	return STEP_NEXT;   /* counted a success once a factor, if any, passed */
}

/* ---- the second factor ---- */

/* The TOTP factor, the passkeys and the recovery codes left: one read. */
static enum step_result factor_get(struct flow *f)
{
	struct signin *s = signin_of(f);

	store_signin_factors(s->srv->store, s->user.user_id, &s->factors, flow_completion(f));
	return STEP_WAIT;
}

/* The user's credential IDs for the second step's page (the browser's
 * allowCredentials), or NULL without a passkey. */
static char *passkey_ids(const struct store_passkey_list *l)
{
	size_t n = 1;
	char *out;

	if (l->n == 0)
		return NULL;
	for (size_t i = 0; i < l->n; i++)
		n += strlen(l->items[i].credential_id) + 1;
	out = xcalloc(1, n);
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			strcat(out, " ");
		strcat(out, l->items[i].credential_id);
	}
	return out;
}

/* The latest use of any of the user's passkeys (0: none used). */
static int64_t passkeys_used_at(const struct store_passkey_list *l)
{
	int64_t latest = 0;

	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].last_used_at > latest)
			latest = l->items[i].last_used_at;
	return latest;
}

static void request_binding(const struct signin_request *in, char out[SECRET_HASH_LEN + 1])
{
	factor_binding(in->client_id, in->redirect_uri, in->code_challenge, in->scope, in->nonce,
	               out);
}

static enum step_result enroll_begin(struct flow *f);

/* After a right password: a user without a confirmed factor is signed in,
 * or enrolls one first when the role requires it; one with it is handed
 * the value of the second step. */
static enum step_result factor_judge(struct flow *f)
{
	struct signin *s = signin_of(f);
	struct factor_pending p = {
		.user_id = s->user.user_id, .email = (char *)s->email,
		.last_step = s->factors.totp.last_step, .recovery_left = s->factors.recovery_left,
		.passkey_used_at = passkeys_used_at(&s->factors.passkeys),
		.expires_at = now_ms() + FACTOR_PENDING_TTL_S * 1000LL,
	};

	if ((!s->factors.totp.found || !s->factors.totp.confirmed) && s->factors.passkeys.n == 0) {
		if (s->factors.second_factor_required)
			return enroll_begin(f);
		count_success(s);
		return STEP_NEXT;
	}
	request_binding(s->in, p.binding);
	s->out->factor_token = factor_pending_seal(s->srv->keys, s->in->project_id, &p);
	s->out->passkey_ids = passkey_ids(&s->factors.passkeys);
	return ended(s, SIGNIN_FACTOR_NEEDED);
}

/* The second step's value: of this project and request, not expired. */
static enum step_result pending_open(struct flow *f)
{
	struct signin *s = signin_of(f);
	char binding[SECRET_HASH_LEN + 1];

	request_binding(s->in, binding);
	if (factor_pending_open(s->srv->keys, s->in->project_id, s->in->factor_token, now_ms(),
	                        &s->pending) < 0 || !crypto_equal(binding, s->pending.binding))
		return ended(s, SIGNIN_FACTOR_EXPIRED);
	s->email = s->pending.email;
	s->user.found = true;
	s->user.is_active = true;   /* the session's start checks it again */
	s->user.user_id = xstrdup(s->pending.user_id);
	s->out->factor_token = xstrdup(s->in->factor_token);   /* for the form again */
	return STEP_NEXT;
}

/* A refused second step's page offers the user's passkeys again. */
static enum step_result passkeys_offer(struct flow *f)
{
	struct signin *s = signin_of(f);

	s->out->passkey_ids = passkey_ids(&s->factors.passkeys);
	return STEP_NEXT;
}

static flow_step *const factor_refusal_steps[] = {
	passkeys_offer, refusal_record, refused, NULL,
};

/* A second step refused: recorded and counted as a failed attempt. */
static enum step_result second_step_refused(struct flow *f)
{
	struct signin *s = signin_of(f);

	s->failure_action = EVENT_FACTOR_FAILURE;
	s->refusal = SIGNIN_FACTOR_REFUSED;
	return flow_branch(f, factor_refusal_steps);
}

static enum step_result factor_refused(struct flow *f)
{
	metrics_totp(METRICS_TOTP_FAILED);
	return second_step_refused(f);
}

/* ---- a passkey as the second factor (docs/signin.md §"Passkeys") ---- */

static enum step_result passkey_find(struct flow *f)
{
	struct signin *s = signin_of(f);

	store_passkey_find(s->srv->store, s->in->passkey->credential_id
	                   ? s->in->passkey->credential_id : "", &s->passkey, &s->passkey_found,
	                   flow_completion(f));
	return STEP_WAIT;
}

static enum step_result passkey_refused(struct flow *f, enum webauthn_status st)
{
	struct signin *s = signin_of(f);

	/* §7.2 step 21: a count that goes back may be a cloned authenticator */
	if (st == WEBAUTHN_COUNT_WENT_BACK)
		log_warn("passkey %s of user %s: its sign count went back; refused", s->passkey.id,
		         s->user.user_id);
	metrics_passkey(METRICS_PASSKEY_FAILED);
	if (s->in->passkey_token) {   /* alone: one answer for all, as a wrong password's */
		s->failure_action = EVENT_FACTOR_FAILURE;
		return flow_branch(f, refusal_steps);
	}
	return second_step_refused(f);
}

/* Counted before it is checked, as a password is: the passkey must be the
 * first step's user's, and the assertion good for this step's challenge. */
static enum step_result passkey_check(struct flow *f)
{
	struct signin *s = signin_of(f);
	char challenge[SECRET_HASH_LEN + 1];
	enum webauthn_status st = WEBAUTHN_MALFORMED;

	count_attempt(s);
	passkey_signin_challenge(s->in->factor_token, challenge);
	if (s->passkey_found && !strcmp(s->passkey.user_id, s->user.user_id))
		st = passkey_assertion_check(s->srv->cfg->issuer, challenge, &s->passkey,
		                             s->in->passkey, false, &s->passkey_use);
	return st == WEBAUTHN_OK ? STEP_NEXT : passkey_refused(f, st);
}

/* The count moves only from the one checked: of two uses of one assertion
 * one wins. */
static enum step_result passkey_use(struct flow *f)
{
	struct signin *s = signin_of(f);

	s->events[0] = (struct event){ &s->by, s->in->project_id, EVENT_FACTOR_USE,
	                               s->user.user_id, NULL };
	store_passkey_use(s->srv->store, s->passkey.id, s->passkey.sign_count,
	                  s->passkey.last_used_at,
	                  s->passkey_use.sign_count, &s->events[0], &s->won, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result passkey_used(struct flow *f)
{
	struct signin *s = signin_of(f);

	if (!s->won)
		return passkey_refused(f, WEBAUTHN_COUNT_WENT_BACK);
	count_success(s);
	metrics_passkey(METRICS_PASSKEY_USED);
	if (!strcmp(webauthn_amr_method(s->passkey_use.flags), "swk"))
		s->amr = s->in->passkey_token ? SESSION_AMR_SWK_USER : SESSION_AMR_PASSWORD_SWK;
	else
		s->amr = s->in->passkey_token ? SESSION_AMR_HWK_USER : SESSION_AMR_PASSWORD_HWK;
	return STEP_NEXT;
}

static enum step_result session_start(struct flow *f);
static enum step_result user_gone_check(struct flow *f);
static enum step_result code_mint(struct flow *f);
static enum step_result code_minted(struct flow *f);

/* Counted before it is checked, as a password is; a TOTP factor gone or
 * used since the first step (its last step moved), a recovery code used
 * since (fewer are left) or a passkey used since (its last use moved)
 * spends the value. A user without a confirmed
 * TOTP factor may still have recovery codes (with a passkey). */
static enum step_result factor_check(struct flow *f)
{
	struct signin *s = signin_of(f);
	static flow_step *const passkey_steps[] = {
		passkey_find, passkey_check, passkey_use, passkey_used,
		session_start, user_gone_check, code_mint, code_minted, NULL,
	};

	s->out->retry_after_s = throttle_wait(s);
	if (s->out->retry_after_s > 0)
		return ended(s, SIGNIN_THROTTLED);
	if (s->factors.totp.last_step != s->pending.last_step ||
	    s->factors.recovery_left != s->pending.recovery_left ||
	    passkeys_used_at(&s->factors.passkeys) != s->pending.passkey_used_at)
		return ended(s, SIGNIN_FACTOR_EXPIRED);
	if (s->in->passkey)
		return flow_branch(f, passkey_steps);
	count_attempt(s);
	s->recovery = factor_recovery_hash(s->in->factor_code, s->recovery_hash) == 0;
	if (s->recovery)
		return STEP_NEXT;   /* factor_use spends it, or refuses it */
	if (!s->factors.totp.found || !s->factors.totp.confirmed)
		return factor_refused(f);
	s->step = factor_totp_check(s->srv->keys, s->user.user_id, s->factors.totp.sealed,
	                            s->in->factor_code, now_ms() / 1000,
	                            s->factors.totp.last_step);
	return s->step < 0 ? factor_refused(f) : STEP_NEXT;
}

/* RFC 6238 §5.2: the step is stored before anything starts, by a write only
 * one use of the code wins. */
static enum step_result factor_use(struct flow *f)
{
	struct signin *s = signin_of(f);

	s->events[0] = (struct event){ &s->by, s->in->project_id,
	                               s->recovery ? EVENT_FACTOR_RECOVERY_USE : EVENT_FACTOR_USE,
	                               s->user.user_id, NULL };
	if (s->recovery) {   /* a recovery code is good once, as a TOTP step is */
		store_recovery_use(s->srv->store, s->user.user_id, s->recovery_hash,
		                   s->pending.recovery_left, &s->events[0], &s->won,
		                   flow_completion(f));
		return STEP_WAIT;
	}
	store_totp_use(s->srv->store, s->user.user_id, s->step, false, &s->events[0], &s->won,
	               flow_completion(f));
	return STEP_WAIT;
}

static enum step_result factor_used(struct flow *f)
{
	struct signin *s = signin_of(f);

	if (!s->won)
		return factor_refused(f);
	count_success(s);
	if (s->recovery)
		metrics_recovery(METRICS_RECOVERY_USED);
	else
		metrics_totp(METRICS_TOTP_USED);
	s->amr = SESSION_AMR_PASSWORD_OTP;
	return STEP_NEXT;
}

/* A session or code that cannot be stored ends the sign-in as
 * SIGNIN_NO_CODE, not as a failure: the user is sent back to the
 * application with server_error. */
static void code_stored(void *arg, const struct api_error *err)
{
	struct signin *s = arg;

	s->too_many_codes = err && err->api_code == E_THROTTLED;
	s->access_denied = err && err->api_code == E_ACCESS_DENIED;
	s->consent_needed = err && err->api_code == E_CONSENT_REQUIRED;
	s->code_failed = s->code_failed ||
	                 (err != NULL && !s->too_many_codes && !s->access_denied &&
	                  !s->consent_needed);
	if (s->too_many_codes)
		s->out->retry_after_s = err->retry_after_s;
	flow_resume(&s->flow, NULL);
}

/* A user deleted or deactivated while the password was checked is refused
 * as one that was not there (no session, no code); any other failure is
 * code_stored's. */
static void session_stored(void *arg, const struct api_error *err)
{
	struct signin *s = arg;

	if (err && err->api_code == E_USER_NOT_FOUND) {
		s->user_gone = true;
		err = NULL;
	}
	code_stored(s, err);
}

static enum step_result session_start(struct flow *f)
{
	struct signin *s = signin_of(f);

	s->events[0] = (struct event){ &s->by, s->in->project_id, EVENT_SIGNIN_SUCCESS,
	                               s->user.user_id, NULL };
	session_begin(&s->session, s->srv, s->in->project_id, s->user.user_id,
	              s->in->session_only ? NULL : s->in->client_id, s->in->session_cookie,
	              s->amr ? s->amr : s->won ? SESSION_AMR_PASSWORD_OTP : SESSION_AMR_PASSWORD,
	              &s->events[0],
	              (struct completion){ session_stored, s });
	return STEP_WAIT;
}

static enum step_result user_gone_check(struct flow *f)
{
	return signin_of(f)->user_gone ? flow_branch(f, refusal_steps) : STEP_NEXT;
}

static enum step_result code_mint(struct flow *f)
{
	struct signin *s = signin_of(f);
	const struct code_request req = {
		.project_id = s->in->project_id, .client_id = s->in->client_id,
		.user_id = s->user.user_id, .redirect_uri = s->in->redirect_uri,
		.code_challenge = s->in->code_challenge, .scope = s->in->scope,
		.nonce = s->in->nonce, .auth_time = s->session.auth_time,
		.session_id = s->session.sid, .consent_force = s->in->consent_force,
		.address = s->in->address,
	};

	if (s->code_failed || s->in->session_only)
		return STEP_NEXT;
	signin_code_mint(&s->mint, s->srv, &req, &s->out->code,
	                 (struct completion){ code_stored, s });
	return STEP_WAIT;
}

static enum step_result code_minted(struct flow *f)
{
	struct signin *s = signin_of(f);

	if (!s->code_failed) {
		s->out->session_secret = s->session.secret;   /* handed over */
		s->session.secret = NULL;
		if (s->too_many_codes || s->access_denied || s->consent_needed) {
			crypto_free_wiped(s->out->code);
			s->out->code = NULL;
			if (s->consent_needed) {
				s->out->consent_scopes = xstrdup(s->mint.consent_scopes);
				free(s->out->user_id);   /* an enrollment's step set it */
				s->out->user_id = xstrdup(s->user.user_id);
				if (code_mint_permissions(&s->mint))
					s->out->consent_permissions =
						xstrdup(code_mint_permissions(&s->mint));
				return ended(s, SIGNIN_CONSENT_NEEDED);
			}
			return ended(s, s->access_denied ? SIGNIN_ACCESS_DENIED : SIGNIN_TOO_MANY_CODES);
		}
		return ended(s, SIGNIN_SIGNED_IN);
	}
	crypto_free_wiped(s->out->code);
	s->out->code = NULL;
	return ended(s, SIGNIN_NO_CODE);
}

/* ---- a passkey alone (docs/signin.md §"Passkeys") ---- */

/* The sign-in page's value: ours, of this project and request, not
 * expired. */
static enum step_result alone_open(struct flow *f)
{
	struct signin *s = signin_of(f);
	char binding[SECRET_HASH_LEN + 1], sealed[SECRET_HASH_LEN + 1];

	request_binding(s->in, binding);
	if (passkey_alone_open(s->srv->keys, s->in->project_id, s->in->passkey_token, now_ms(),
	                       sealed, &s->alone_issued_at) < 0 || !crypto_equal(binding, sealed))
		return ended(s, SIGNIN_FACTOR_EXPIRED);
	return STEP_NEXT;
}

/* A user not of this project is one not known: the credential ID is
 * unique across projects, its owner is no business of this one. */
static void alone_user_got(void *arg, const struct api_error *err)
{
	struct signin *s = arg;

	if (err && err->api_code == E_USER_NOT_FOUND)
		err = NULL;
	flow_resume(&s->flow, err);
}

static enum step_result alone_user_get(struct flow *f)
{
	struct signin *s = signin_of(f);

	if (!s->passkey_found)
		return STEP_NEXT;
	store_user_get(s->srv->store, s->in->project_id, s->passkey.user_id, &s->alone_record,
	               (struct completion){ alone_user_got, s });
	return STEP_WAIT;
}

/* The user, when the passkey is of this project's, names the throttle's
 * account; else the address alone is counted. */
static enum step_result alone_user_read(struct flow *f)
{
	struct signin *s = signin_of(f);
	json_t *record = s->alone_record ? json_loads(s->alone_record, 0, NULL) : NULL;
	const char *email = json_string_value(json_object_get(record, "email"));

	if (record) {
		s->user.found = true;
		s->user.user_id = xstrdup(s->passkey.user_id);
		s->user.is_active = json_is_true(json_object_get(record, "is_active"));
		s->alone_email = email ? xstrdup(email) : NULL;
	}
	json_decref(record);
	s->email = s->alone_email;
	throttle_keys(s);
	if (!s->email) {
		free(s->keys[SIGNIN_COUNT_ACCOUNT_ADDRESS]);
		free(s->keys[SIGNIN_COUNT_ACCOUNT]);
		s->keys[SIGNIN_COUNT_ACCOUNT_ADDRESS] = s->keys[SIGNIN_COUNT_ACCOUNT] = NULL;
	}
	s->out->retry_after_s = throttle_wait(s);
	return s->out->retry_after_s > 0 ? ended(s, SIGNIN_THROTTLED) : STEP_NEXT;
}

/* Counted before it is checked, as a password is. §7.2 step 6: no user was
 * identified before the ceremony, so the credential must be a passkey of
 * ours whose owner the userHandle names. The passkey is the only factor, so
 * §7.2 step 17 requires the UV flag: the authenticator verified its user (a
 * PIN, a fingerprint), which makes it two factors in one. */
static enum step_result alone_check(struct flow *f)
{
	struct signin *s = signin_of(f);
	char challenge[SECRET_HASH_LEN + 1];
	enum webauthn_status st;

	count_attempt(s);
	if (!s->user.found || !s->user.is_active ||
	    !passkey_user_handle_is(s->in->passkey->user_handle, s->passkey.user_id) ||
	    s->passkey.last_used_at >= s->alone_issued_at)   /* used with this value already */
		return passkey_refused(f, WEBAUTHN_MALFORMED);
	passkey_signin_challenge(s->in->passkey_token, challenge);
	st = passkey_assertion_check(s->srv->cfg->issuer, challenge, &s->passkey, s->in->passkey,
	                             true, &s->passkey_use);
	return st == WEBAUTHN_OK ? STEP_NEXT : passkey_refused(f, st);
}

static flow_step *const alone_steps[] = {
	alone_open, passkey_find, alone_user_get, alone_user_read, alone_check, passkey_use,
	passkey_used, session_start, user_gone_check, code_mint, code_minted, NULL,
};
/* ---- enrollment before the code (docs/signin.md §"Second factors") ---- */

/* A new secret, 160 random bits sealed, waits for its first code; it
 * replaces one an account page's set-up left waiting. */
static enum step_result enroll_store(struct flow *f)
{
	struct signin *s = signin_of(f);
	unsigned char key[TOTP_SECRET_BYTES];

	crypto_random(key, sizeof key);
	s->out->enroll_sealed = factor_totp_seal(s->srv->keys, s->user.user_id, key, sizeof key);
	OPENSSL_cleanse(key, sizeof key);
	if (!s->out->enroll_sealed)
		return ended(s, SIGNIN_NO_CODE);
	store_totp_begin(s->srv->store, s->user.user_id, s->out->enroll_sealed, &s->won,
	                 flow_completion(f));
	return STEP_WAIT;
}

/* The enrollment step's value names the secret by its hash: a later set-up
 * replaces it, which spends the value. A factor confirmed meanwhile (*begun
 * false) asks for a sign-in again, which asks for it. */
static enum step_result enroll_offer(struct flow *f)
{
	struct signin *s = signin_of(f);
	struct factor_enroll e = {
		.user_id = s->user.user_id, .email = (char *)s->email,
		.expires_at = now_ms() + FACTOR_PENDING_TTL_S * 1000LL,
	};
	bool begun = s->won;

	s->won = false;
	if (!begun)
		return ended(s, SIGNIN_FACTOR_EXPIRED);
	crypto_hash_secret(s->out->enroll_sealed, strlen(s->out->enroll_sealed), e.secret_hash);
	request_binding(s->in, e.binding);
	s->out->factor_token = factor_enroll_seal(s->srv->keys, s->in->project_id, &e);
	s->out->user_id = xstrdup(s->user.user_id);
	return ended(s, SIGNIN_ENROLL_NEEDED);
}

static enum step_result enroll_begin(struct flow *f)
{
	static flow_step *const begin_steps[] = { enroll_store, enroll_offer, NULL };

	return flow_branch(f, begin_steps);
}

/* The enrollment step's value: of this project and request, not expired. */
static enum step_result enroll_open(struct flow *f)
{
	struct signin *s = signin_of(f);
	char binding[SECRET_HASH_LEN + 1];

	request_binding(s->in, binding);
	if (factor_enroll_open(s->srv->keys, s->in->project_id, s->in->enroll_token, now_ms(),
	                       &s->enroll) < 0 || !crypto_equal(binding, s->enroll.binding))
		return ended(s, SIGNIN_FACTOR_EXPIRED);
	s->email = s->enroll.email;
	s->user.found = true;
	s->user.is_active = true;   /* the session's start checks it again */
	s->user.user_id = xstrdup(s->enroll.user_id);
	s->out->factor_token = xstrdup(s->in->enroll_token);   /* for the form again */
	s->out->user_id = xstrdup(s->enroll.user_id);
	return STEP_NEXT;
}

/* Counted before it is checked, as a password is. The secret must still
 * be the value's and wait for its first code; a wrong code shows the same
 * secret again. */
static enum step_result enroll_check(struct flow *f)
{
	struct signin *s = signin_of(f);
	const struct store_totp_row *t = &s->factors.totp;
	char hash[SECRET_HASH_LEN + 1];

	if (!t->found || t->confirmed)
		return ended(s, SIGNIN_FACTOR_EXPIRED);
	crypto_hash_secret(t->sealed, strlen(t->sealed), hash);
	if (!crypto_equal(hash, s->enroll.secret_hash))
		return ended(s, SIGNIN_FACTOR_EXPIRED);
	count_attempt(s);
	s->step = factor_totp_check(s->srv->keys, s->user.user_id, t->sealed,
	                            s->in->factor_code ? s->in->factor_code : "", now_ms() / 1000,
	                            t->last_step);
	if (s->step >= 0)
		return STEP_NEXT;
	metrics_totp(METRICS_TOTP_FAILED);
	s->out->enroll_sealed = xstrdup(t->sealed);
	s->failure_action = EVENT_FACTOR_FAILURE;
	s->refusal = SIGNIN_ENROLL_REFUSED;
	return flow_branch(f, refusal_steps);
}

/* The first code confirms the factor, once (store_totp_use), as the
 * account page's set-up does. */
static enum step_result enroll_use(struct flow *f)
{
	struct signin *s = signin_of(f);

	s->events[0] = (struct event){ &s->by, s->in->project_id, EVENT_FACTOR_ENROLL,
	                               s->user.user_id, NULL };
	store_totp_use(s->srv->store, s->user.user_id, s->step, true, &s->events[0], &s->won,
	               flow_completion(f));
	return STEP_WAIT;
}

/* The first factor brings recovery codes, as on the account page. */
static enum step_result enroll_used(struct flow *f)
{
	struct signin *s = signin_of(f);

	if (!s->won)   /* another use of the value confirmed it first */
		return ended(s, SIGNIN_FACTOR_EXPIRED);
	count_success(s);
	metrics_totp(METRICS_TOTP_ENROLLED);
	s->amr = SESSION_AMR_PASSWORD_OTP;
	s->out->recovery = xcalloc(1, sizeof *s->out->recovery);
	recovery_batch_store(s->srv->store, &s->by, s->in->project_id, s->user.user_id,
	                     s->out->recovery, flow_completion(f));
	return STEP_WAIT;
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
		throttle_check, user_get, password_check, password_judge, factor_get, factor_judge, session_start, user_gone_check, code_mint, code_minted, NULL,
	};
	static flow_step *const second_steps[] = {
		pending_open, throttle_check, factor_get, factor_check, factor_use, factor_used,
		session_start, user_gone_check, code_mint, code_minted, NULL,
	};
	static flow_step *const enroll_steps[] = {
		enroll_open, throttle_check, factor_get, enroll_check, enroll_use, enroll_used,
		session_start, user_gone_check, code_mint, code_minted, NULL,
	};

	memset(s, 0, sizeof *s);
	memset(out, 0, sizeof *out);
	s->srv = srv;
	s->in = in;
	s->email = in->email;
	s->failure_action = EVENT_SIGNIN_FAILURE;
	s->refusal = SIGNIN_REFUSED;
	s->out = out;
	s->done = done;
	s->by = (struct event_origin){ in->client_id, *in->address ? in->address : NULL };
	flow_run(&s->flow, in->enroll_token ? enroll_steps : in->factor_token ? second_steps
	                   : in->passkey_token ? alone_steps : steps,
	         signin_finish);
}

/* ---- single sign-on ---- */

static struct signin_silent *silent_of(struct flow *f)
{
	return container_of(f, struct signin_silent, flow);
}

static enum step_result silent_find(struct flow *f)
{
	struct signin_silent *s = silent_of(f);

	session_find(&s->session, s->srv, s->in->session_cookie, s->in->project_id,
	             flow_completion(f));
	return STEP_WAIT;
}

static enum step_result silent_judge(struct flow *f)
{
	struct signin_silent *s = silent_of(f);

	switch (session_judge(&s->in->ask, &s->session.row, now_ms())) {
	case SESSION_SILENT:
		/* docs/signin.md §"Second factors": a session without one is no
		 * sign-in for a user whose role requires it; the form asks
		 * for it (prompt=none: login_required) */
		if (!s->session.row.second_factor_missing)
			return STEP_NEXT;
		if (s->in->ask.prompt_none)
			break;
		*s->outcome = SILENT_FORM;
		return STEP_DONE;
	case SESSION_FORM:
		*s->outcome = SILENT_FORM;
		return STEP_DONE;
	case SESSION_LOGIN_REQUIRED:
		break;
	}
	*s->outcome = SILENT_LOGIN_REQUIRED;
	return STEP_DONE;
}

/* As for a password sign-in: a store that fails here sends the user back
 * with server_error. */
static void silent_stored(void *arg, const struct api_error *err)
{
	struct signin_silent *s = arg;

	s->too_many_codes = err && err->api_code == E_THROTTLED;
	s->access_denied = err && err->api_code == E_ACCESS_DENIED;
	s->consent_needed = err && err->api_code == E_CONSENT_REQUIRED;
	s->code_failed = s->code_failed || err != NULL;
	if (s->too_many_codes)
		s->retry_after_s = err->retry_after_s;
	flow_resume(&s->flow, NULL);
}

/* Recorded before the code is: no client holds a code of a session that
 * does not know it. */
static enum step_result silent_record_client(struct flow *f)
{
	struct signin_silent *s = silent_of(f);

	if (s->in->session_only)
		return STEP_NEXT;
	store_session_add_client(s->srv->store, s->session.row.id, s->in->client_id,
	                         (struct completion){ silent_stored, s });
	return STEP_WAIT;
}

static enum step_result silent_code_mint(struct flow *f)
{
	struct signin_silent *s = silent_of(f);
	const struct code_request req = {
		.project_id = s->in->project_id, .client_id = s->in->client_id,
		.user_id = s->session.row.user_id, .redirect_uri = s->in->redirect_uri,
		.code_challenge = s->in->code_challenge, .scope = s->in->scope,
		.nonce = s->in->nonce, .auth_time = s->session.row.auth_time,
		.session_id = s->session.row.id, .consent_force = s->in->consent_force,
		.address = s->in->address,
	};

	if (s->code_failed || s->in->session_only)
		return STEP_NEXT;
	signin_code_mint(&s->mint, s->srv, &req, s->code, (struct completion){ silent_stored, s });
	return STEP_WAIT;
}

static enum step_result silent_code_minted(struct flow *f)
{
	struct signin_silent *s = silent_of(f);

	*s->outcome = s->too_many_codes ? SILENT_TOO_MANY_CODES :
	              s->access_denied ? SILENT_ACCESS_DENIED :
	              s->consent_needed ? SILENT_CONSENT_NEEDED :
	              s->code_failed ? SILENT_NO_CODE : SILENT_SIGNED_IN;
	if (s->code_failed) {
		crypto_free_wiped(*s->code);
		*s->code = NULL;
	}
	if (s->consent_needed)
		s->consent_scopes = xstrdup(s->mint.consent_scopes);
	return STEP_DONE;
}

static void silent_finish(struct flow *f, enum step_result r)
{
	struct signin_silent *s = silent_of(f);

	complete(s->done, r == STEP_DONE ? 0 : -1, &f->err);
}

void signin_silent_run(struct signin_silent *s, struct server *srv,
                       const struct signin_silent_request *in,
                       enum signin_silent_outcome *outcome, char **code, struct completion done)
{
	static flow_step *const steps[] = {
		silent_find, silent_judge, silent_record_client, silent_code_mint,
		silent_code_minted, NULL,
	};

	memset(s, 0, sizeof *s);
	s->srv = srv;
	s->in = in;
	s->outcome = outcome;
	s->code = code;
	*code = NULL;
	s->done = done;
	flow_run(&s->flow, steps, silent_finish);
}

void signin_silent_release(struct signin_silent *s)
{
	session_lookup_release(&s->session);
	code_mint_release(&s->mint);
	free(s->consent_scopes);
	memset(s, 0, sizeof *s);
}
