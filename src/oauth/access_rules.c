/*
 * Access rules (access_rules.h): the one place that says whether a user's
 * role may sign in to a client. Never decides on a list it cannot read.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "access_rules.h"
#include "error.h"
#include "factors.h"
#include "util.h"

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

/* The refusal stands whether or not its event could be stored (the store
 * logged why). */
static void denial_recorded(void *arg, const struct api_error *err)
{
	struct access_check *c = arg;

	(void)err;
	complete(c->done, -1, &c->denied);
}

static void facts_read(void *arg, const struct api_error *err)
{
	struct access_check *c = arg;

	if (err) {
		complete(c->done, -1, err);
		return;
	}
	if (access_rule_allows(c->facts.allowed_role_ids, c->facts.role_id)) {
		complete(c->done, 0, NULL);
		return;
	}
	api_fail(&c->denied, E_ACCESS_DENIED, "The user's role may not sign in to this app.");
	store_event_record(c->st, &c->event, 1, (struct completion){ denial_recorded, c });
}

void access_rule_check(struct access_check *c, struct store *st, const struct access_ask *ask,
                       struct completion done)
{
	c->st = st;
	c->done = done;
	c->by = (struct event_origin){ ask->user_id, ask->address && *ask->address ? ask->address
	                                                                           : NULL };
	c->event = (struct event){ &c->by, ask->project_id, EVENT_ACCESS_RULE_DENIED,
	                           ask->client_id, EVENT_ACCESS_DENIED };
	store_access_facts(st, ask->client_id, ask->user_id, &c->facts,
	                   (struct completion){ facts_read, c });
}

void access_check_release(struct access_check *c)
{
	store_access_facts_release(&c->facts);
}

/* Whether the word w (len bytes) is one of the space-separated words of list. */
static bool has_word(const char *list, const char *w, size_t len)
{
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, " ");

		if (n == len && strncmp(p, w, len) == 0)
			return true;
		p += n + (p[n] == ' ');
	}
	return false;
}

bool consent_covers(const char *consented, const char *scope)
{
	if (!consented)
		return false;
	for (const char *p = scope; p && *p;) {
		size_t n = strcspn(p, " ");

		if (n && !has_word(consented, p, n))
			return false;
		p += n + (p[n] == ' ');
	}
	return true;
}

char *consent_union(const char *consented, const char *scope)
{
	size_t cap = (consented ? strlen(consented) : 0) + (scope ? strlen(scope) : 0) + 2, len;
	char *out = xmalloc(cap);

	len = (size_t)snprintf(out, cap, "%s", consented ? consented : "");
	for (const char *p = scope; p && *p;) {
		size_t n = strcspn(p, " ");

		if (n && !has_word(out, p, n))
			len += (size_t)snprintf(out + len, cap - len, "%s%.*s", len ? " " : "", (int)n, p);
		p += n + (p[n] == ' ');
	}
	return out;
}

bool consent_needed(const struct store_access_facts *facts, const char *scope, bool force)
{
	return facts->consent_required && (force || !consent_covers(facts->consented, scope));
}

void consent_list(struct store *st, const char *user_id, char **json, struct completion done)
{
	store_consent_list(st, user_id, json, done);
}

/* c's event: the user's action on the client, from address. */
static void consent_event(struct consent_change *c, const char *project_id, const char *user_id,
                          const char *client_id, const char *address, const char *action,
                          const char *outcome)
{
	c->by = (struct event_origin){ user_id, address && *address ? address : NULL };
	c->event = (struct event){ &c->by, project_id, action, client_id, outcome };
}

void consent_grant(struct consent_change *c, struct store *st, const char *project_id,
                   const char *user_id, const char *client_id, const char *scopes,
                   const char *address, struct completion done)
{
	consent_event(c, project_id, user_id, client_id, address, EVENT_CONSENT_GRANT, NULL);
	store_consent_grant(st, user_id, client_id, scopes, &c->event, done);
}

/* A Deny stands whether or not its event could be stored (the store logged
 * why), as an access rule's refusal does. */
static void deny_recorded(void *arg, const struct api_error *err)
{
	struct consent_change *c = arg;

	(void)err;
	complete(c->done, 0, NULL);
}

void consent_deny(struct consent_change *c, struct store *st, const char *project_id,
                  const char *user_id, const char *client_id, const char *address,
                  struct completion done)
{
	consent_event(c, project_id, user_id, client_id, address, EVENT_CONSENT_DENY,
	              EVENT_ACCESS_DENIED);
	c->done = done;
	store_event_record(st, &c->event, 1, (struct completion){ deny_recorded, c });
}

void consent_revoke(struct consent_change *c, struct store *st, const char *project_id,
                    const char *user_id, const char *client_id, const char *address,
                    bool *revoked, struct completion done)
{
	consent_event(c, project_id, user_id, client_id, address, EVENT_CONSENT_REVOKE, NULL);
	store_consent_revoke(st, user_id, client_id, &c->event, revoked, done);
}

bool consent_prompted(const char *prompt)
{
	return has_word(prompt, "consent", strlen("consent"));
}

void consent_pending_release(struct consent_pending *p)
{
	free(p->user_id);
	free(p->scopes);
	memset(p, 0, sizeof *p);
}

static char *consent_aad(const char *project_id)
{
	return xasprintf("signin-consent:%s", project_id);
}

char *consent_pending_seal(const struct keyring *r, const char *project_id,
                           const struct consent_pending *p)
{
	char *aad = consent_aad(project_id);
	char *text = keyring_seal_fields(r, aad, "%s\n%" PRId64 "\n%s\n%s", p->binding,
	                                 p->expires_at, p->user_id, p->scopes);

	free(aad);
	return text;
}

int consent_pending_open(const struct keyring *r, const char *project_id, const char *text,
                         int64_t now, struct consent_pending *out)
{
	char *aad = consent_aad(project_id), *fields[4];
	char *plain = factor_binding_open(r, aad, text, now, fields, 4);

	memset(out, 0, sizeof *out);
	free(aad);
	if (!plain)
		return -1;
	memcpy(out->binding, fields[0], SECRET_HASH_LEN + 1);
	out->expires_at = strtoll(fields[1], NULL, 10);
	out->user_id = xstrdup(fields[2]);
	out->scopes = xstrdup(fields[3]);
	crypto_free_wiped(plain);
	return 0;
}
