#ifndef EDGEAUTH_STORE_FORWARD_H
#define EDGEAUTH_STORE_FORWARD_H
/*
 * Forward authentication's data (docs/forward-auth.md): which client (app)
 * a URL belongs to by its forward_auth_urls, and the app cookies
 * (schema/020_forward_auth_cookies.sql): a cookie is found by the hash of
 * its value, never by the value, and is good only while the SSO session it
 * is bound to is live. Each operation calls done once (store.h).
 */
#include <stdbool.h>
#include <stdint.h>

#include "flow.h"
#include "store.h"

/* The app a URL lies under. Strings owned; forward_app_release frees. */
struct forward_app {
	bool found;
	char *client_id;
	char *project_id;
	char *base;          /* the longest of its forward_auth_urls the URL starts with */
	bool active;         /* the client and its project are active */
	char *allowed_role_ids;   /* the client's access rule (access_rules.h), JSON */
};
void forward_app_release(struct forward_app *a);

/* The client one of whose forward_auth_urls url starts with, on a
 * boundary (the base ends with '/', or url goes on with nothing, '/',
 * '?' or '#'), compared as written; the longest base wins. out->found
 * false: none. The caller checks the match again (forward_auth.h). */
void store_forward_app(struct store *st, const char *url, struct forward_app *out,
                       struct completion done);

/* Who an app cookie is of, as the identity headers say it. Strings owned;
 * forward_user_release frees. */
struct forward_user {
	bool found;
	char *user_id;
	char *email;         /* NULL: none */
	char *name;          /* the display name */
	char *role_code;     /* NULL: no role */
	char *role_id;       /* NULL: no role */
	char *permissions;   /* named, comma-separated, sorted; "" for none */
};
void forward_user_release(struct forward_user *u);

/* Stores an app cookie of client_id bound to the session session_id. */
void store_forward_cookie_insert(struct store *st, const char *token_hash,
                                 const char *session_id, const char *client_id, int64_t now,
                                 struct completion done);
/* The question a proxy asks on every page load of an app, in one
 * statement: the app url lies under, as store_forward_app finds it, and
 * (token_hash not NULL) the user of that app's cookie with that hash at
 * now, found only while its session is live (not ended, not expired) and
 * its user active; the caller checks that the app is active. */
struct forward_lookup {
	struct forward_app app;
	struct forward_user user;
};
void store_forward_check(struct store *st, const char *url, const char *token_hash,
                         int64_t now, struct forward_lookup *out, struct completion done);

#endif
