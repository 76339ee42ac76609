/*
 * Access rules (access_rules.h): the one place that says whether a user's
 * role may sign in to a client. Never decides on a list it cannot read.
 */
#include <string.h>

#include <jansson.h>

#include "access_rules.h"
#include "error.h"

bool access_rule_allows(const char *allowed, const char *role_id)
{
	json_t *list, *v;
	size_t i;
	bool ok = false;

	if (!allowed)
		return false;
	list = json_loads(allowed, 0, NULL);
	if (!json_is_array(list))
		goto out;
	if (json_array_size(list) == 0) {
		ok = true;
		goto out;
	}
	json_array_foreach(list, i, v)
		if (role_id && json_is_string(v) && strcmp(json_string_value(v), role_id) == 0)
			ok = true;
out:
	json_decref(list);
	return ok;
}

static void facts_read(void *arg, const struct api_error *err)
{
	struct access_check *c = arg;
	struct api_error denied;

	if (err) {
		complete(c->done, -1, err);
		return;
	}
	if (access_rule_allows(c->facts.allowed_role_ids, c->facts.role_id)) {
		complete(c->done, 0, NULL);
		return;
	}
	api_fail(&denied, E_ACCESS_DENIED, "The user's role may not sign in to this app.");
	complete(c->done, -1, &denied);
}

void access_rule_check(struct access_check *c, struct store *st, const char *client_id,
                       const char *user_id, struct completion done)
{
	c->done = done;
	store_access_facts(st, client_id, user_id, &c->facts, (struct completion){ facts_read, c });
}

void access_check_release(struct access_check *c)
{
	store_access_facts_release(&c->facts);
}
