/*
 * GET /account (account.h): the page, as a table of its sections. Each
 * section is its own file's; the page only puts them in order.
 */
#include "account.h"
#include "account_consents.h"
#include "account_passkeys.h"
#include "account_recovery.h"
#include "account_totp.h"
#include "console.h"

/* The page's parts, in order. Second factors go between the password and
 * the sessions: TOTP, then passkeys (their own page), then recovery codes. */
static const struct account_section sections[] = {
	{ "user", account_section_user },
	{ "password", account_section_password },
	{ "totp", account_section_totp },
	{ "passkeys", account_section_passkeys },
	{ "recovery", account_section_recovery },
	{ "sessions", account_section_sessions },
	{ "consents", account_section_consents },
};

static enum step_result page_show(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	bool recent = account_recent(ctx);
	struct console_page p;

	account_page_begin(&p, "Your account");
	for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
		sections[i].render(ctx, &p, recent);
	console_page_reply(ctx, 200, &p);
	return STEP_DONE;
}

flow_step *const account_page_steps[] = {
	ACCOUNT_SIGNED_IN, account_user_get, account_user_parse, account_sessions_get,
	account_recovery_count, account_consents_get, page_show, NULL,
};
