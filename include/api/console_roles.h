#ifndef EDGEAUTH_CONSOLE_ROLES_H
#define EDGEAUTH_CONSOLE_ROLES_H
/* The console's roles pages (docs/console.md "The pages"): the list, a
 * role's page, create and edit with the permissions as checkboxes grouped
 * by resource; delete after a confirmation. Writes run the roles API's own steps (api_roles.h) as the
 * session's user. */
#include "flow.h"

extern flow_step *const console_roles_list_steps[];
extern flow_step *const console_role_new_steps[];
extern flow_step *const console_role_create_steps[];
extern flow_step *const console_role_steps[];
extern flow_step *const console_role_update_steps[];
extern flow_step *const console_role_delete_ask_steps[];
extern flow_step *const console_role_delete_steps[];

#endif
