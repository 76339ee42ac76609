#ifndef EDGEAUTH_API_RESOURCES_H
#define EDGEAUTH_API_RESOURCES_H
/* The resources endpoints of docs/api.md §"Resources", under /api/v1/projects/{project_id}/resources. */
#include <stdbool.h>
#include <jansson.h>

#include "error.h"
#include "flow.h"
#include "input_names.h"
#include "store_resources.h"

extern flow_step *const resources_create_steps[];
extern flow_step *const resources_update_steps[];
extern flow_step *const resources_list_steps[];
/* GET and DELETE .../resources/{resource_id} (docs/api.md §"Read one and delete"). */
extern flow_step *const resources_get_steps[];
extern flow_step *const resources_delete_steps[];
/* The names create and update take (input_names.h), and the list's. */
extern const struct input_names resources_create_names;
extern const struct input_names resources_update_names;
extern const char *const resources_list_query[];

/* Reads and checks a create (is_update false) or update body into in; every
 * failure is invalid_params, and nothing is asked of the store. Strings are
 * borrowed from body; release with resources_input_release even on failure. */
int resources_read_body(const json_t *body, bool is_update, struct resource_input *in,
                        struct api_error *err);
void resources_input_release(struct resource_input *in);

/* The steps of POST .../resources and PUT .../resources/{resource_id}
 * before their answer, for the console (docs/console.md), which answers
 * with a page: the body (ctx->body; create or update whatever the method),
 * then the write with the request's principal as the audit trail's actor.
 * State in request_state; after the write, resources_write_record is the
 * record written. */
flow_step resources_create_read, resources_update_read, resources_create_store,
	resources_update_store;
struct request_ctx;
const char *resources_write_record(struct request_ctx *ctx);

#endif
