/*
 * Recovery codes on the account page (account_recovery.h). A code's text
 * exists only while its page is written; the store gets its hash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>

#include "account_recovery.h"
#include "console.h"
#include "metrics.h"
#include "store_factors.h"
#include "util.h"

void account_recovery_store(struct request_ctx *ctx, struct recovery_batch *b,
                            struct completion done)
{
	recovery_batch_store(ctx->http.srv->store, request_origin(ctx), console_of(ctx)->project_id,
	                     ctx->principal.user_id, b, done);
}

void account_recovery_show(struct console_page *p, const struct recovery_batch *b)
{
	static const char *const heads[] = { "Recovery code" };

	console_page_heading(p, "Recovery codes");
	console_page_text(p, "Write these codes down and keep them apart from your phone: each "
	                     "signs you in once in place of the app's code or a passkey. They are not shown "
	                     "again; any earlier codes no longer work.");
	console_page_table_begin(p, "Your recovery codes", heads, 1);
	for (size_t i = 0; i < FACTOR_RECOVERY_CODES; i++)
		console_page_table_row(p, (const char *const[]){ b->codes[i] }, 1);
	console_page_table_end(p);
}

/* ---- the page's part ---- */

struct recovery_state {
	long long remaining;
	struct recovery_batch batch;
};

static void recovery_state_release(void *state)
{
	recovery_batch_release(&((struct recovery_state *)state)->batch);
}

static struct recovery_state *state_of(struct request_ctx *ctx)
{
	return request_state(ctx, sizeof (struct recovery_state), recovery_state_release);
}

static bool has_factor(struct request_ctx *ctx)
{
	return json_array_size(json_object_get(account_user(ctx), "second_factors")) > 0;
}

enum step_result account_recovery_count(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	store_recovery_count(ctx->http.srv->store, ctx->principal.user_id,
	                     &state_of(ctx)->remaining, flow_completion(f));
	return STEP_WAIT;
}

void account_section_recovery(struct request_ctx *ctx, struct console_page *p, bool recent)
{
	char text[96], *action;

	if (!has_factor(ctx))
		return;
	console_page_heading(p, "Recovery codes");
	snprintf(text, sizeof text, "You have %lld unused recovery code%s.", state_of(ctx)->remaining,
	         state_of(ctx)->remaining == 1 ? "" : "s");
	console_page_text(p, text);
	if (!recent)
		return;
	action = account_action_path(ctx, "recovery/new");
	console_page_form_begin(p, action, "post", console_of(ctx)->token);
	console_page_submit(p, "New recovery codes");
	console_page_form_end(p);
	free(action);
}

/* ---- POST /account/recovery/new ---- */

static enum step_result new_store(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	if (!has_factor(ctx))
		return account_refuse(ctx, 409, "Recovery codes replace a second factor: set one up "
		                                "first. Nothing was changed.");
	account_recovery_store(ctx, &state_of(ctx)->batch, flow_completion(f));
	return STEP_WAIT;
}

static enum step_result new_show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct console_page p;

	account_page_begin(&p, "New recovery codes");
	account_recovery_show(&p, &state_of(ctx)->batch);
	account_link_back(ctx, &p);
	console_page_reply(ctx, 200, &p);
	return STEP_DONE;
}

flow_step *const account_recovery_new_steps[] = {
	ACCOUNT_SIGNED_IN, account_need_recent, account_user_get, account_user_parse, new_store,
	new_show, NULL,
};
