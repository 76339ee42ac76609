#ifndef EDGEAUTH_API_ROLES_H
#define EDGEAUTH_API_ROLES_H
/* The roles endpoints of docs/api.md §"Roles", under /api/v1/projects/{project_id}/roles. */
#include <jansson.h>

#include "error.h"
#include "flow.h"
#include "input_names.h"
#include "jbody.h"
#include "store_roles.h"

extern flow_step *const roles_create_steps[];
extern flow_step *const roles_update_steps[];
extern flow_step *const roles_list_steps[];
/* GET and DELETE .../roles/{role_id} (docs/api.md §"Read one and delete"). */
extern flow_step *const roles_get_steps[];
extern flow_step *const roles_delete_steps[];
/* The names create and update take (input_names.h), and the list's. */
extern const struct input_names roles_write_names;
extern const char *const roles_list_query[];

/* The steps of POST .../roles and PUT .../roles/{role_id} before their
 * answer, for the console (docs/console.md), which answers with a page:
 * the body (ctx->body), then the write with the request's principal as the
 * caller (no escalation, the audit trail's actor). State in request_state;
 * after the write, roles_write_record is the record written. */
flow_step roles_write_read, roles_create_store, roles_update_store;
struct request_ctx;
const char *roles_write_record(struct request_ctx *ctx);

/* Reads a create or update body into f; ids receives permission_ids and
 * must be released by the caller whatever this returns. Strings are
 * borrowed from body. Fails only with invalid_params. */
int roles_read_body(const json_t *body, struct role_fields *f, struct jbody_id_list *ids,
                    struct api_error *err);

#endif
