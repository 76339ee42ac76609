#ifndef EDGEAUTH_STORE_PROJECTS_H
#define EDGEAUTH_STORE_PROJECTS_H
/* Projects in the store (docs/operations.md §"The program"; docs/api.md §"Permissions and default resources"): what the CLI's project commands
 * and the router's project check use. */
#include <stdbool.h>
#include <jansson.h>

#include "crypto.h"
#include "error.h"
#include "flow.h"
#include "store.h"
#include "store_clients.h"

/* Credentials of a new project's admin client; strings owned, release with
 * store_new_project_release (which wipes the secret). */
struct new_project {
	char *project_id;
	char *client_id;
	char *client_secret;
};
/* Creates an active project with the four default resources (docs/api.md §"Permissions and default resources")
 * and an active admin client holding all twelve named permissions. The
 * writes here are the CLI's: each records its event (project.create,
 * .admin_client, .activate, .deactivate) by the store's origin
 * (store_events_origin; none for the server's default project). */
int store_project_create(struct store *st, const char *name, struct new_project *out,
                         struct api_error *err);
void store_new_project_release(struct new_project *np);
/* What a project's admin client is (docs/api.md §"Permissions and default resources"; docs/tokens.md §"Client authentication"), and new
 * credentials for one into out (client_id, client_secret) with the
 * secret's hash: what both backends make it with. */
extern const struct client_fields store_admin_client;
void store_admin_credentials(struct new_project *out, char hash[SECRET_HASH_LEN + 1]);
/* Makes a new admin client for an existing project (docs/api.md §"Read one and delete": the
 * CLI's recovery when the project's admin client was deleted): active,
 * holding the twelve permissions of the default resources. Its
 * credentials, with the project's ID, go to out (release it on 1). 1 made,
 * 0 no such project, -1 error. */
int store_project_admin_client(struct store *st, const char *project_id,
                               struct new_project *out, struct api_error *err);
/* Whether the project exists, and is active. */
struct project_state {
	bool found;
	bool is_active;
};
void store_project_get(struct store *st, const char *id, struct project_state *out,
                       struct completion done);
/* JSON array of {id, name, is_active, created_at, updated_at}, oldest first. */
json_t *store_project_list(struct store *st, struct api_error *err);
long store_project_count(struct store *st, struct api_error *err);
/* 1 changed, 0 no such project, -1 error. */
int store_project_set_active(struct store *st, const char *id, bool active, struct api_error *err);
/* docs/operations.md §"Backup and restore" (restore, invalidate-all): everything issued up to now
 * (ms) stops working, in one transaction: every project's
 * tokens_valid_after moves to now, so access tokens of that second or
 * before, and refresh tokens and codes created up to now, are refused
 * (schema/006); every open session ends, which revokes its sign-ins and
 * queues its back-channel logouts (schema/008); every refresh token, the
 * access token issued with it and every unredeemed code end by their rows,
 * which holds when the clock was stepped back since they were issued
 * (schema/postgres/020); a store.invalidate_all
 * event of the store's origin records it. 0, or -1 with err. */
int store_invalidate_all(struct store *st, int64_t now, struct api_error *err);

#endif
