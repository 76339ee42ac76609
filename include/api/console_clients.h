#ifndef EDGEAUTH_CONSOLE_CLIENTS_H
#define EDGEAUTH_CONSOLE_CLIENTS_H
/* The console's clients pages (docs/console.md "The pages"): the list, a
 * client's page, create (the secret shown once), edit (redirect URIs, auth
 * method, permissions), enable/disable, rotate the secret and delete, each
 * after a confirmation. Writes run the clients API's own steps
 * (api_clients.h) as the session's user. */
#include "flow.h"

extern flow_step *const console_clients_list_steps[];
extern flow_step *const console_client_new_steps[];
extern flow_step *const console_client_create_steps[];
extern flow_step *const console_client_steps[];
extern flow_step *const console_client_update_steps[];
extern flow_step *const console_client_active_steps[];
extern flow_step *const console_client_rotate_ask_steps[];
extern flow_step *const console_client_rotate_steps[];
extern flow_step *const console_client_delete_ask_steps[];
extern flow_step *const console_client_delete_steps[];

#endif
