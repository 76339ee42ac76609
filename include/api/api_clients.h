#ifndef EDGEAUTH_API_CLIENTS_H
#define EDGEAUTH_API_CLIENTS_H
/* The clients endpoints of docs/api.md §"Clients", under /api/v1/projects/{project_id}/clients. */
#include <stdbool.h>
#include <jansson.h>

#include "error.h"
#include "flow.h"
#include "input_names.h"
#include "jbody.h"
#include "store_clients.h"

/* The routes' steps (router.c): create and secret rotation answer with a
 * secret, so their routes are no_store. */
extern flow_step *const clients_create_steps[];
extern flow_step *const clients_update_steps[];
extern flow_step *const clients_list_steps[];
extern flow_step *const clients_rotate_secret_steps[];
/* GET and DELETE .../clients/{client_id} (docs/api.md §"Read one and delete"). */
extern flow_step *const clients_get_steps[];
extern flow_step *const clients_delete_steps[];
/* The names create and update take (input_names.h), and the list's. */
extern const struct input_names clients_create_names;
extern const struct input_names clients_update_names;
extern const char *const clients_list_query[];

/* A list of URIs of a body (redirect_uris, post_logout_redirect_uris,
 * forward_auth_urls). */
struct uri_list {
	bool present;                  /* false: the key was absent */
	char *json;                    /* owned JSON array text; NULL when absent */
};

/* A create or update body, read and checked. */
struct client_body {
	struct str_field name;
	struct str_field description;
	int is_active;                 /* -1 absent (create), else 0 or 1 */
	struct jbody_id_list permission_ids;
	struct uri_list redirect_uris;
	struct uri_list post_logout_redirect_uris;
	struct uri_list forward_auth_urls;
	struct str_field backchannel_logout_uri;
	const char *token_endpoint_auth_method;     /* NULL when absent; else static */
	const char *id_token_signed_response_alg;   /* the same */
	int device_flow;               /* -1 absent, else 0 or 1 (docs/device.md) */
	struct uri_list allowed_role_ids;   /* role IDs (access_rules.h); the same shape */
	int consent_required;          /* -1 absent, else 0 or 1 */
};

void clients_body_init(struct client_body *b);
/* Frees what clients_read_body allocated; b can be read into again. */
void clients_body_release(struct client_body *b);
/* Reads every field of a create (update false) or update body into b (its
 * strings borrowed from body, the URI lists owned). Every failure is
 * invalid_params; nothing is asked of the store. Release b whatever this
 * returns. */
int clients_read_body(const json_t *body, bool update, struct client_body *b,
                      struct api_error *err);

/* What the store writes of b: on create every field, on update only those
 * the body carries (an omitted optional field keeps its value). Borrows
 * b's strings and list. */
struct client_fields clients_fields_of(const struct client_body *b, bool update);

/* The steps of POST .../clients, PUT .../clients/{client_id} and POST
 * .../clients/{client_id}/secret before their answer, for the console
 * (docs/console.md), which answers with a page: the body (ctx->body), then
 * the write with the request's principal as the caller (no escalation, the
 * audit trail's actor). State in request_state; after the write,
 * clients_write_record is the record written (not after a rotation) and
 * clients_write_secret the new secret (create, rotation; wiped with the
 * request). */
flow_step clients_create_read, clients_create_write, clients_update_read,
	clients_update_write, clients_rotate_write;
struct request_ctx;
const char *clients_write_record(struct request_ctx *ctx);
const char *clients_write_secret(struct request_ctx *ctx);

#endif
