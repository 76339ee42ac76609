#ifndef EDGEAUTH_CONSOLE_USERS_H
#define EDGEAUTH_CONSOLE_USERS_H
/* The console's users pages (docs/console.md "The pages"): the list with
 * search, sort, filters and paging; a user's page; create, edit,
 * enable/disable, set a password, delete after a confirmation. Writes run
 * the users API's own steps (api_users.h) as the session's user. */
#include "flow.h"

extern flow_step *const console_users_list_steps[];
extern flow_step *const console_user_new_steps[];
extern flow_step *const console_user_create_steps[];
extern flow_step *const console_user_steps[];
extern flow_step *const console_user_update_steps[];
extern flow_step *const console_user_password_steps[];
extern flow_step *const console_user_active_steps[];
extern flow_step *const console_user_delete_ask_steps[];
extern flow_step *const console_user_delete_steps[];

#endif
