#ifndef EDGEAUTH_CLI_LOOKUP_H
#define EDGEAUTH_CLI_LOOKUP_H
/*
 * What the everyday commands name by what a person knows
 * (docs/commands.md): a user by ID, email or external ID, a role by ID or
 * code, a client by ID or name, a permission by its named form; and a
 * whole list, page after page. Each answers as the API answers the same
 * fault (user_not_found, role_not_found, ...).
 */
#include <stddef.h>
#include <jansson.h>

#include "cli_args.h"
#include "flow.h"
#include "listing.h"
#include "store_events.h"

/* A store's list operation (store_user_list, store_role_list, ...). */
typedef void cli_list_op(struct store *st, const char *project_id, const struct list_query *q,
                         struct page *out, struct completion done);

/* A store's read of one record (store_user_get, store_role_get, ...). */
typedef void cli_get_op(struct store *st, const char *project_id, const char *id, char **out,
                        struct completion done);
/* A store's delete of one record (store_user_delete, store_client_delete). */
typedef void cli_delete_op(struct store *st, const struct event_origin *by,
                           const char *project_id, const char *id, const char *scope,
                           struct completion done);

/* Every record of the project's list that q (its page ignored) matches,
 * as a JSON array; NULL with err. */
json_t *cli_list_all(struct cli_call *c, cli_list_op *op, struct list_query q,
                     struct api_error *err);

/* The whole list, oldest first, matching search (NULL: all), printed
 * (cli_print). The exit status. */
int cli_list_print(struct cli_call *c, cli_list_op *op, const char *search,
                   const char *const *columns);
/* Deletes the record found (taken) by op, with actor "cli"; prints it.
 * The exit status. */
int cli_delete_print(struct cli_call *c, json_t *record, cli_delete_op *op,
                     const char *const *columns);

/* The record of the project's user: who is its ID, else its email (without
 * regard to case), else its external ID. NULL with err (user_not_found). */
json_t *cli_find_user(struct cli_call *c, const char *who, struct api_error *err);
/* The project's role whose ID or code is which. NULL with err (role_not_found). */
json_t *cli_find_role(struct cli_call *c, const char *which, struct api_error *err);
/* The project's client whose ID is which, else the one client named which.
 * NULL with err: client_not_found, or invalid_params when several share
 * the name. */
json_t *cli_find_client(struct cli_call *c, const char *which, struct api_error *err);

/* The IDs of the project's permissions named[0..n) ("users:read"; "*":
 * the twelve of the default resources), as a JSON array of strings; NULL
 * with err (some_permissions_not_found naming the first unknown one). */
json_t *cli_permission_ids(struct cli_call *c, const char *const *named, size_t n,
                           struct api_error *err);

/* body["permission_ids"] = the IDs of the --permission options' named
 * forms (cli_permission_ids). 0, or -1 with err. */
int cli_body_permissions(struct cli_call *c, json_t *body, struct api_error *err);

#endif
