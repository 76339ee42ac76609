/*
 * The device authorization grant (device_grant.h, RFC 8628): the request
 * for codes, the token endpoint's polls, and the user's decision. The
 * device code is 256 random bits and the user code 8 letters; the store
 * sees only their hashes. The tokens are a code grant's: the approval
 * stores a code keyed by device_code_key, redeemed once by a poll.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "crypto.h"
#include "device_grant.h"
#include "metrics.h"
#include "signin.h"
#include "timestamp.h"
#include "validate.h"
#include "util.h"

#define WAIT_ON(f) flow_completion(f)

void device_start_release(struct device_start *d)
{
	crypto_free_wiped(d->device_code);
	memset(d, 0, sizeof *d);
}

int device_user_code_normalize(const char *typed, char out[DEVICE_USER_CODE_LEN + 1])
{
	size_t n = 0;

	for (const char *p = typed; p && *p; p++) {
		char c = *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;

		if (c == '-' || c == ' ')
			continue;
		if (n == DEVICE_USER_CODE_LEN || !strchr(DEVICE_USER_CODE_ALPHABET, c) || !c)
			return -1;
		out[n++] = c;
	}
	out[n] = '\0';
	return n == DEVICE_USER_CODE_LEN ? 0 : -1;
}

void device_user_code_hash(const char *code, char out[SECRET_HASH_LEN + 1])
{
	crypto_hash_secret(code, strlen(code), out);
}

void device_code_key(const char *device_hash, char out[SECRET_HASH_LEN + 1])
{
	crypto_hash_secret(device_hash, strlen(device_hash), out);
}

/* Eight letters of the alphabet, uniformly: bytes of 240 and above are
 * drawn again (240 is 12 times 20). */
static void user_code_new(char out[DEVICE_USER_CODE_LEN + 1])
{
	static const char alphabet[] = DEVICE_USER_CODE_ALPHABET;
	unsigned char b;
	size_t n = 0;

	while (n < DEVICE_USER_CODE_LEN) {
		crypto_random(&b, 1);
		if (b < 240)
			out[n++] = alphabet[b % 20];
	}
	out[n] = '\0';
}

/* ---- the request for codes (RFC 8628 §3.1-3.2) ---- */

static enum step_result authorize_form(struct flow *f)
{
	const struct grant_request *in = grant_of(f)->in;

	if (in->scope && utf8_chars(in->scope) > DEVICE_SCOPE_MAX_CHARS)
		return flow_fail(f, E_INVALID_PARAMS, "scope must be at most %d characters.",
		                 DEVICE_SCOPE_MAX_CHARS);
	return STEP_NEXT;
}

/* RFC 8628 §3.2 by way of RFC 6749 §5.2: a client not allowed the grant
 * (docs/device.md: off unless device_flow) is unauthorized_client. */
static enum step_result device_allowed(struct flow *f)
{
	if (!grant_of(f)->client.device_flow)
		return flow_fail(f, E_UNAUTHORIZED_CLIENT,
		                 "This client may not use the device grant (device_flow is off).");
	return STEP_NEXT;
}

static enum step_result authorize_store(struct flow *f)
{
	struct grant *g = grant_of(f);
	struct device_start *out = g->device_out;
	const struct config *cfg = g->srv->cfg;
	char code[DEVICE_USER_CODE_LEN + 1];
	int64_t now = now_ms();

	out->device_code = crypto_new_secret();
	user_code_new(code);
	snprintf(out->user_code, sizeof out->user_code, "%.4s-%s", code, code + 4);
	out->expires_in = cfg->device_code_ttl_s;
	out->interval = cfg->device_interval_s;
	crypto_hash_secret(out->device_code, strlen(out->device_code), g->device_hash);
	device_user_code_hash(code, g->next_hash);
	g->scope = signin_oidc_scope(g->in->scope);
	store_device_insert(g->srv->store, &(struct new_device){
		.device_hash = g->device_hash, .user_code_hash = g->next_hash,
		.project_id = g->client.project_id, .client_id = g->client_id, .scope = g->scope,
		.created_at = now, .expires_at = now + cfg->device_code_ttl_s * 1000LL,
		.interval_s = cfg->device_interval_s, .address = g->in->address,
		.ev = grant_event(g, g->client.project_id, EVENT_DEVICE_REQUEST, g->client_id, NULL),
	}, WAIT_ON(f));
	return STEP_WAIT;
}

static enum step_result authorize_done(struct flow *f)
{
	(void)f;
	metrics_device(METRICS_DEVICE_REQUESTED);
	return STEP_DONE;
}

void grants_device_authorize(struct grant *g, struct server *srv,
                             const struct grant_request *in, struct device_start *out,
                             struct completion done)
{
	static flow_step *const steps[] = {
		authorize_form, grant_user_client, grant_client_authenticate, grant_client_proven,
		grant_client_usable, device_allowed, authorize_store, authorize_done, NULL,
	};

	memset(g, 0, sizeof *g);
	g->srv = srv;
	g->in = in;
	g->device = true;
	g->device_out = out;
	g->done = done;
	flow_run(&g->flow, steps, grant_finish);
}

/* ---- the polls (RFC 8628 §3.4-3.5) ---- */

static enum step_result poll_form(struct flow *f)
{
	if (grant_missing(grant_of(f)->in->device_code))
		return flow_fail(f, E_INVALID_PARAMS, "device_code is required.");
	return STEP_NEXT;
}

static enum step_result poll_store(struct flow *f)
{
	struct grant *g = grant_of(f);
	const char *code = g->in->device_code;

	crypto_hash_secret(code, strlen(code), g->device_hash);
	store_device_poll(g->srv->store, g->device_hash, now_ms(), &g->device_row, WAIT_ON(f));
	return STEP_WAIT;
}

/* docs/device.md "Audit and metrics": a poll that ends the flow without
 * tokens is audited (target: the user who decided, if one did), then
 * answered by poll_refusal; pending polls are only counted. */
static enum step_result poll_refuse(struct flow *f, enum api_code code)
{
	struct grant *g = grant_of(f);
	const struct device_row *r = &g->device_row;

	g->device_refused = true;
	g->device_refusal = code;
	metrics_device(code == E_ACCESS_DENIED ? METRICS_DEVICE_POLL_DENIED :
	               METRICS_DEVICE_EXPIRED);
	store_event_record(g->srv->store, grant_event(g, r->project_id, EVENT_DEVICE_POLL,
	                                              r->user_id, api_code_string(code)),
	                   1, WAIT_ON(f));
	return STEP_WAIT;
}

/* Unknown or another client's -> used -> expired -> denied -> too soon ->
 * pending; an approval goes on to its code. */
static enum step_result poll_check(struct flow *f)
{
	struct grant *g = grant_of(f);
	const struct device_row *r = &g->device_row;

	if (!r->found || strcmp(r->client_id, g->client_id) != 0)
		return flow_fail(f, E_INVALID_GRANT, "The device code is invalid.");
	if (r->state == DEVICE_ISSUED)
		return flow_fail(f, E_INVALID_GRANT, "The device code was already used.");
	if (now_ms() >= r->expires_at)
		return poll_refuse(f, E_EXPIRED_TOKEN);
	if (r->state == DEVICE_DENIED)
		return poll_refuse(f, E_ACCESS_DENIED);
	if (r->state == DEVICE_PENDING && r->slowed) {
		metrics_device(METRICS_DEVICE_SLOW_DOWN);
		return flow_fail(f, E_SLOW_DOWN, "Poll at most every %d seconds.", r->interval_s);
	}
	if (r->state == DEVICE_PENDING) {
		metrics_device(METRICS_DEVICE_PENDING);
		return flow_fail(f, E_AUTHORIZATION_PENDING, "The user has not decided yet.");
	}
	device_code_key(g->device_hash, g->hash);
	store_code_get(g->srv->store, g->hash, &g->record, WAIT_ON(f));
	return STEP_WAIT;
}

/* A refused poll's answer, once audited; else the approval's code, read. */
static enum step_result poll_refusal(struct flow *f)
{
	struct grant *g = grant_of(f);

	if (!g->device_refused)
		return STEP_NEXT;
	return flow_fail(f, g->device_refusal, g->device_refusal == E_ACCESS_DENIED ?
	                 "The user denied the request." : "The device code has expired.");
}

/* The approval's code (stored before the approval): gone with its
 * session or user, used, or dead by a deactivation, is invalid_grant,
 * without the code grant's revocation: a device that polls twice at once is
 * no thief. */
static enum step_result poll_code(struct flow *f)
{
	struct grant *g = grant_of(f);
	const struct store_token_row *r = &g->record;

	if (!r->found || strcmp(r->client_id, g->client_id) != 0 || r->used || r->revoked ||
	    r->predates_deactivation)
		return flow_fail(f, E_INVALID_GRANT, "The approval is no longer valid.");
	return STEP_NEXT;
}

/* Exactly once: of two polls at the same time, the one whose single use
 * lost is refused. */
static enum step_result poll_won(struct flow *f)
{
	struct grant *g = grant_of(f);

	if (!g->won)
		return flow_fail(f, E_INVALID_GRANT, "The device code was already used.");
	store_device_issued(g->srv->store, g->device_hash,
	                    grant_event(g, g->device_row.project_id, EVENT_DEVICE_POLL,
	                                g->device_row.user_id, NULL), WAIT_ON(f));
	return STEP_WAIT;
}

static enum step_result poll_hand_out(struct flow *f)
{
	grant_hand_out(grant_of(f));
	return STEP_DONE;
}

flow_step *const device_code_steps[] = {
	poll_form, grant_user_client, grant_client_authenticate, grant_client_proven,
	grant_client_usable, device_allowed, poll_store, poll_check, poll_refusal, poll_code,
	grant_user_read, grant_user_active, grant_user_scope, grant_keys_fresh, grant_code_redeem,
	poll_won, poll_hand_out, NULL,
};

/* ---- the user's decision ---- */

void device_decision_release(struct device_decision *d)
{
	free(d->family_id);
	d->family_id = NULL;
}

static void decision_store(struct device_decision *d)
{
	store_device_decide(d->srv->store, d->user_code_hash, d->approve, d->user_id,
	                    d->session_id, now_ms(), d->ev, &d->won, d->done);
}

/* The approval's code is stored: now the decision. */
static void code_stored(void *arg, const struct api_error *err)
{
	struct device_decision *d = arg;

	if (err) {
		complete(d->done, -1, err);
		return;
	}
	decision_store(d);
}

/* An approval stores its code first, so that a poll that sees the
 * approval finds the code, and an approval without its code is one whose
 * session or user ended since; the code of an approval that then loses
 * (decided already, expired) is never reached and goes with the purge. */
void device_decide(struct device_decision *d, struct completion done)
{
	const struct device_row *r = d->row;

	d->done = done;
	d->won = false;
	if (!d->approve) {
		decision_store(d);
		return;
	}
	device_code_key(r->device_hash, d->key);
	d->family_id = crypto_new_id();
	d->code = (struct new_code){
		.hash = d->key, .family_id = d->family_id, .project_id = r->project_id,
		.client_id = r->client_id, .user_id = d->user_id,
		/* never a redirect URI or a verifier: only a device's poll redeems it */
		.redirect_uri = DEVICE_GRANT_TYPE, .code_challenge = "",
		.expires_at = r->expires_at, .scope = r->scope, .auth_time = d->auth_time,
		.session_id = d->session_id,
	};
	store_code_insert(d->srv->store, &d->code, (struct completion){ code_stored, d });
}
