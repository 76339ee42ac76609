#ifndef EDGEAUTH_CONSOLE_PERMISSIONS_H
#define EDGEAUTH_CONSOLE_PERMISSIONS_H
/* The permissions of a role's or a client's form in the console
 * (docs/console.md): one group of checkboxes per resource of the project,
 * and the IDs a posted form ticked, as the API's permission_ids. */
#include <jansson.h>

#include "console_page.h"
#include "flow.h"
#include "request.h"

/* Steps: the project's resources (the first 100, the API's page size
 * limit), then parsed, into the request's struct console. */
flow_step console_resources_get, console_resources_parse;
/* One group of checkboxes per resource read by the steps above, named
 * permission_ids, each ticked when its ID is in ids (a JSON array). */
void console_permission_boxes(struct request_ctx *ctx, struct console_page *p, const json_t *ids);
/* Step: the project's roles (the first 100), for console_role_field, when
 * the user's role may read them (roles:read); else nothing. */
flow_step console_roles_get;
/* The role picker of a user's form, named role_id: a choice of the roles
 * read by console_roles_get (none: labelled empty_label), value chosen;
 * a text field for a role's ID when the roles were not read (no
 * console_roles_get in the page's steps: the users list, to stay within
 * its API list's time; or no roles:read). err: a
 * sentence shown beside it, or NULL. */
void console_role_field(struct request_ctx *ctx, struct console_page *p, const char *value,
                        const char *empty_label, const char *err);
/* Every value the posted form carries under name, as a new JSON array. */
json_t *console_form_ids(struct request_ctx *ctx, const char *name);

#endif
