/*
 * Remembered consents on the account page (account_consents.h). Only the
 * session's user's own consents are listed or revoked: another user's
 * client ID revokes nothing, since the store matches on the user too.
 */
#include <stdlib.h>
#include <jansson.h>

#include "access_rules.h"
#include "account_consents.h"
#include "console.h"
#include "form.h"
#include "html.h"
#include "util.h"

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

void account_section_consents(struct request_ctx *ctx, struct console_page *p, bool recent)
{
	static const char *const heads[] = { "App", "Allowed", "Since" };
	const json_t *list = account_consents(ctx), *c;
	size_t n = json_array_size(list), i;
	const char **values, **labels;
	char *action;

	(void)recent;
	if (n == 0)
		return;
	values = xcalloc(n, sizeof *values);
	labels = xcalloc(n, sizeof *labels);
	console_page_table_begin(p, "Apps you allowed", heads, 3);
	json_array_foreach(list, i, c) {
		const char *scopes = str(c, "scopes");

		console_page_table_row(p, (const char *const[]){ str(c, "client_name"),
		                       scopes && *scopes ? scopes : "sign-in only",
		                       str(c, "granted_at") }, 3);
		values[i] = str(c, "client_id");
		labels[i] = str(c, "client_name");
	}
	console_page_table_end(p);
	action = account_action_path(ctx, "consents/revoke");
	console_page_form_begin(p, action, "post", console_of(ctx)->token);
	console_page_select(p, "client_id", "App", values, labels, n, NULL);
	console_page_submit(p, "Revoke the consent");
	console_page_form_end(p);
	free(action);
	free(labels);
	free(values);
}

/* ---- POST /account/consents/revoke ---- */

struct revoke_state {
	struct consent_change change;
	bool revoked;
};

static struct revoke_state *state_of(struct request_ctx *ctx)
{
	return request_state(ctx, sizeof (struct revoke_state), NULL);
}

static enum step_result revoke(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	struct revoke_state *s = state_of(ctx);
	const char *client_id = NULL;
	struct api_error err;

	if (form_get(&ctx->form, "client_id", &client_id, &err) < 0 || !client_id || !*client_id)
		return flow_fail(f, E_INVALID_PARAMS, "client_id is required.");
	consent_revoke(&s->change, ctx->http.srv->store, console_of(ctx)->project_id,
	               ctx->principal.user_id, client_id, request_event_address(ctx), &s->revoked,
	               flow_completion(f));
	return STEP_WAIT;
}

static enum step_result revoked(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);

	if (!state_of(ctx)->revoked)
		return account_refuse(ctx, 404, "You have not allowed this app. Nothing was changed.");
	html_redirect(ctx, console_account_url("", console_of(ctx)->project_id));
	return STEP_DONE;
}

flow_step *const account_consent_revoke_steps[] = {
	ACCOUNT_SIGNED_IN, revoke, revoked, NULL,
};
