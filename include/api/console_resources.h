#ifndef EDGEAUTH_CONSOLE_RESOURCES_H
#define EDGEAUTH_CONSOLE_RESOURCES_H
/* The console's resources pages (docs/console.md "The pages"): the list, a
 * resource's page with its permissions, create, edit (its permissions as
 * rows: kept, changed, added, or left out to delete) and delete after a
 * confirmation. Writes run the resources API's own steps (api_resources.h)
 * as the session's user. */
#include "flow.h"

extern flow_step *const console_resources_list_steps[];
extern flow_step *const console_resource_new_steps[];
extern flow_step *const console_resource_create_steps[];
extern flow_step *const console_resource_steps[];
extern flow_step *const console_resource_update_steps[];
extern flow_step *const console_resource_delete_ask_steps[];
extern flow_step *const console_resource_delete_steps[];

#endif
