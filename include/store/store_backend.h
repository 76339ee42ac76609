#ifndef EDGEAUTH_STORE_BACKEND_H
#define EDGEAUTH_STORE_BACKEND_H
/*
 * The table of operations each store backend fills (SQLite in
 * src/store/sqlite/, PostgreSQL in src/store/pg/), the shape of git's
 * struct ref_storage_be. Code outside src/store/ uses store.h and the
 * store_<area>.h front headers only; the front's public functions are
 * one-line calls through st->be, plus the logic both backends share.
 *
 * One ops struct per area, `struct store_<area>_ops`, its members the
 * area's operations under their short names, with the public function's
 * contract (store_<area>.h). Each backend's functions are static and
 * assigned in its `const struct store_<area>_ops`, so the compiler checks
 * them against these types. An operation completes its struct completion
 * (flow.h) once; a synchronous caller waits with the sync completion.
 *
 * The record types are only named here, so that this header includes no
 * area's header (the front files include this one).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "flow.h"

struct store;
struct event_origin;
struct list_query;
struct page;
struct role_fields;
struct session_row;
struct new_session;
struct session_list;
struct outbox_rows;
struct event;
struct event_filter;
struct event_page_filter;
struct key_row;
struct key_rows;
struct new_project;
struct project_state;
struct resource_input;
struct client_fields;
struct client_auth;
struct store_stamp;
struct user_fields;
struct store_user_signin;
struct new_code;
struct new_refresh;
struct store_token_row;
struct user_claims;
struct store_totp_row;
struct store_passkey;
struct store_passkey_list;
struct store_signin_factors;
struct new_device;
struct device_row;
struct store_access_facts;

/* store_roles.h */
struct store_roles_ops {
	void (*create)(struct store *st, const struct event_origin *by, const char *project_id,
	               const struct role_fields *f, const char *scope, char **out,
	               struct completion done);
	void (*update)(struct store *st, const struct event_origin *by, const char *project_id,
	               const char *role_id, const struct role_fields *f, const char *scope,
	               char **out, struct completion done);
	void (*get)(struct store *st, const char *project_id, const char *role_id, char **out,
	            struct completion done);
	void (*remove)(struct store *st, const struct event_origin *by, const char *project_id,
	               const char *role_id, const char *scope, struct completion done);
	void (*list)(struct store *st, const char *project_id, const struct list_query *q,
	             struct page *out, struct completion done);
};

/* store_resources.h */
struct store_resources_ops {
	void (*create)(struct store *st, const struct event_origin *by, const char *project_id,
	               const struct resource_input *in, char **out, struct completion done);
	void (*update)(struct store *st, const struct event_origin *by, const char *project_id,
	               const char *resource_id, const struct resource_input *in, char **out,
	               struct completion done);
	void (*get)(struct store *st, const char *project_id, const char *resource_id, char **out,
	            struct completion done);
	void (*remove)(struct store *st, const struct event_origin *by, const char *project_id,
	               const char *resource_id, struct completion done);
	void (*list)(struct store *st, const char *project_id, const struct list_query *q,
	             struct page *out, struct completion done);
};

/* store_projects.h. The CLI's and the start's operations complete before
 * they return (a blocking caller: sync_completion); their front functions
 * keep the synchronous signatures. */
struct store_projects_ops {
	void (*create)(struct store *st, const char *name, struct new_project *out,
	               struct completion done);
	void (*admin_client)(struct store *st, const char *project_id, struct new_project *out,
	                     bool *made, struct completion done);
	void (*get)(struct store *st, const char *id, struct project_state *out,
	            struct completion done);
	void (*list)(struct store *st, json_t **out, struct completion done);
	void (*count)(struct store *st, long long *out, struct completion done);
	void (*set_active)(struct store *st, const char *id, bool active, bool *changed,
	                   struct completion done);
	void (*invalidate_all)(struct store *st, int64_t now, struct completion done);
};

/* store_keys.h; the writes and the list are the CLI's and the start's. */
struct store_keys_ops {
	void (*changed)(struct store *st, int64_t known_version, int64_t now,
	                struct key_rows *out, bool *changed, struct completion done);
	void (*list)(struct store *st, struct key_rows *out, struct completion done);
	void (*add)(struct store *st, const struct key_row *rows, size_t n, bool if_alg_missing,
	            int64_t lifetime_ms, int *added, struct completion done);
	void (*retire)(struct store *st, const char *kid, int64_t now, int64_t lifetime_ms,
	               bool *found, struct completion done);
};

/* store_events.h; the list is the CLI's, the page the API's. */
struct store_events_ops {
	void (*record)(struct store *st, const struct event *evs, size_t n, struct completion done);
	void (*list)(struct store *st, const struct event_filter *f,
	             void (*each)(void *arg, const char *record), void *arg,
	             struct completion done);
	void (*page)(struct store *st, const char *project_id, const struct event_page_filter *f,
	             const struct list_query *q, struct page *out, struct completion done);
	void (*purge)(struct store *st, int batch, int64_t before, int *deleted,
	              struct completion done);
};

/* store_outbox.h */
struct store_outbox_ops {
	void (*read)(struct store *st, size_t limit, struct outbox_rows *out,
	             struct completion done);
	void (*remove)(struct store *st, const char *const *ids, size_t n, struct completion done);
};

/* store_sessions.h */
struct store_sessions_ops {
	void (*start)(struct store *st, const struct new_session *s, char **sid,
	              struct completion done);
	void (*find)(struct store *st, const char *secret_hash, const char *project_id, int64_t now,
	             struct session_row *out, struct completion done);
	void (*add_client)(struct store *st, const char *session_id, const char *client_id,
	                   struct completion done);
	void (*end)(struct store *st, const char *id, const char *project_id, const char *user_id,
	            const struct event *ev, bool *ended, struct completion done);
	void (*list_user)(struct store *st, const char *project_id, const char *user_id,
	                  int64_t now, struct session_list *out, struct completion done);
	void (*purge)(struct store *st, int batch, int64_t now, int *deleted,
	              struct completion done);
	void (*list)(struct store *st, const char *project_id, const char *user_id, int64_t now,
	             const struct list_query *q, struct page *out, struct completion done);
};

/* store_clients.h */
struct store_clients_ops {
	void (*create)(struct store *st, const struct event_origin *by, const char *project_id,
	               const struct client_fields *f, const char *secret_hash, const char *scope,
	               char **record, struct completion done);
	void (*update)(struct store *st, const struct event_origin *by, const char *project_id,
	               const char *client_id, const struct client_fields *f, const char *scope,
	               char **record, struct completion done);
	void (*set_secret)(struct store *st, const struct event_origin *by, const char *project_id,
	                   const char *client_id, const char *secret_hash, const char *scope,
	                   struct completion done);
	void (*get)(struct store *st, const char *project_id, const char *client_id, char **record,
	            struct completion done);
	void (*remove)(struct store *st, const struct event_origin *by, const char *project_id,
	               const char *client_id, const char *scope, struct completion done);
	void (*list)(struct store *st, const char *project_id, const struct list_query *q,
	             struct page *out, struct completion done);
	void (*lookup)(struct store *st, const char *client_id, struct client_auth *out,
	               struct completion done);
	void (*authenticate)(struct store *st, const char *client_id, const char *secret,
	                     struct client_auth *out, struct completion done);
	void (*scope)(struct store *st, const char *client_id, struct store_stamp at, char **out,
	              struct completion done);
	void (*redirect_registered)(struct store *st, const char *client_id,
	                            const char *redirect_uri, bool *registered,
	                            struct completion done);
	void (*post_logout_registered)(struct store *st, const char *client_id, const char *uri,
	                               bool *registered, struct completion done);
	void (*name)(struct store *st, const char *client_id, char **name, struct completion done);
};

/* store_users.h. suffixes_move and suffixes_backlog are the server's idle
 * work, synchronous: their front functions wait with sync_completion. */
struct store_users_ops {
	void (*check)(struct store *st, const char *project_id, const char *user_id,
	              const struct user_fields *f, const char *scope, struct completion done);
	void (*create)(struct store *st, const struct event_origin *by, const char *project_id,
	               const struct user_fields *f, const char *scope, char **out,
	               struct completion done);
	void (*update)(struct store *st, const struct event_origin *by, const char *project_id,
	               const char *user_id, const struct user_fields *f, const char *scope,
	               char **out, struct completion done);
	void (*get)(struct store *st, const char *project_id, const char *user_id, char **out,
	            struct completion done);
	void (*remove)(struct store *st, const struct event_origin *by, const char *project_id,
	               const char *user_id, const char *scope, struct completion done);
	void (*get_external)(struct store *st, const char *project_id,
	                     const char *external_user_id, bool with_permissions, char **out,
	                     struct completion done);
	void (*list)(struct store *st, const char *project_id, const struct list_query *q,
	             struct page *out, struct completion done);
	void (*is_active)(struct store *st, const char *project_id, const char *user_id,
	                  bool *active, struct completion done);
	void (*scope)(struct store *st, const char *user_id, char **out, struct completion done);
	void (*suffixes_move)(struct store *st, int max_keys, int *moved, struct completion done);
	void (*suffixes_backlog)(struct store *st, long long users, bool *over,
	                         struct completion done);
	void (*signin)(struct store *st, const char *project_id, const char *email,
	               struct store_user_signin *out, struct completion done);
	void (*byou)(struct store *st, const char *project_id, const char *external_user_id,
	             struct store_user_signin *out, struct completion done);
};

/* store_tokens.h. The purge is the server's tick, synchronous: its front
 * function waits with sync_completion. */
struct store_tokens_ops {
	void (*code_insert)(struct store *st, const struct new_code *c, struct completion done);
	void (*code_get)(struct store *st, const char *hash, struct store_token_row *out,
	                 struct completion done);
	void (*code_redeem)(struct store *st, const char *hash, const struct new_refresh *next,
	                    bool *won, struct completion done);
	void (*refresh_get)(struct store *st, const char *hash, struct store_token_row *out,
	                    struct completion done);
	void (*refresh_rotate)(struct store *st, const char *hash, const struct new_refresh *next,
	                       bool *won, struct completion done);
	void (*refresh_regrace)(struct store *st, const char *hash, int64_t since,
	                        const struct new_refresh *next, bool *won, struct completion done);
	void (*family_revoke)(struct store *st, const char *family_id, const struct event *ev,
	                      struct completion done);
	void (*access_revoke)(struct store *st, const char *jti, long long exp_s,
	                      const struct event *ev, struct completion done);
	void (*purge)(struct store *st, int batch, int64_t now, int64_t grace_ms, int *deleted,
	              struct completion done);
	void (*user_claims)(struct store *st, const char *project_id, const char *user_id,
	                    struct user_claims *out, struct completion done);
	void (*holders_ok)(struct store *st, const char *project_id, const char *client_id,
	                   const char *user_id, long long iat_s, bool *ok, struct completion done);
	void (*is_revoked)(struct store *st, const char *jti, bool *revoked,
	                   struct store_stamp *stamp, struct completion done);
};

/* store_forward.h */
struct forward_app;
struct forward_user;
struct forward_lookup;
struct store_forward_ops {
	void (*app)(struct store *st, const char *url, struct forward_app *out,
	            struct completion done);
	void (*cookie_insert)(struct store *st, const char *token_hash, const char *session_id,
	                      const char *client_id, int64_t now, struct completion done);
	void (*check)(struct store *st, const char *url, const char *token_hash, int64_t now,
	              struct forward_lookup *out, struct completion done);
};

/* store_factors.h */
struct store_factors_ops {
	void (*totp_get)(struct store *st, const char *user_id, struct store_totp_row *out,
	                 struct completion done);
	void (*totp_begin)(struct store *st, const char *user_id, const char *sealed, bool *begun,
	                   struct completion done);
	void (*totp_use)(struct store *st, const char *user_id, int64_t step, bool confirm,
	                 const struct event *ev, bool *won, struct completion done);
	void (*totp_remove)(struct store *st, const char *user_id, const struct event *ev,
	                    bool *removed, struct completion done);
	void (*reset)(struct store *st, const struct event_origin *by, const char *project_id,
	              const char *user_id, const char *scope, struct completion done);
	void (*recovery_set)(struct store *st, const char *user_id, const char *hashes,
	                     const struct event *ev, struct completion done);
	void (*recovery_use)(struct store *st, const char *user_id, const char *hash,
	                     long long left, const struct event *ev, bool *won,
	                     struct completion done);
	void (*recovery_count)(struct store *st, const char *user_id, long long *n,
	                       struct completion done);
};

/* store_passkeys.h */
struct store_passkeys_ops {
	void (*add)(struct store *st, const struct store_passkey *p, const struct event *ev,
	            bool *added, struct completion done);
	void (*list)(struct store *st, const char *user_id, struct store_passkey_list *out,
	             struct completion done);
	void (*signin_get)(struct store *st, const char *user_id, struct store_signin_factors *out,
	                   struct completion done);
	void (*find)(struct store *st, const char *credential_id, struct store_passkey *out,
	             bool *found, struct completion done);
	void (*use)(struct store *st, const char *id, int64_t old_count, int64_t old_used_at,
	            int64_t new_count, const struct event *ev, bool *won, struct completion done);
	void (*remove)(struct store *st, const char *user_id, const char *id,
	               const struct event *ev, bool *removed, struct completion done);
};

/* store_device.h */
struct store_device_ops {
	void (*insert)(struct store *st, const struct new_device *d, struct completion done);
	void (*poll)(struct store *st, const char *device_hash, int64_t now,
	             struct device_row *out, struct completion done);
	void (*find)(struct store *st, const char *user_code_hash, int64_t now,
	             struct device_row *out, struct completion done);
	void (*decide)(struct store *st, const char *user_code_hash, bool approve,
	               const char *user_id, const char *session_id, int64_t now,
	               const struct event *ev, bool *won, struct completion done);
	void (*issued)(struct store *st, const char *device_hash, const struct event *ev,
	               struct completion done);
};

/* store_access.h */
struct store_access_ops {
	void (*facts)(struct store *st, const char *client_id, const char *user_id,
	              struct store_access_facts *out, struct completion done);
	void (*consent_grant)(struct store *st, const char *user_id, const char *client_id,
	                      const char *scopes, const struct event *ev, struct completion done);
	void (*consent_list)(struct store *st, const char *user_id, char **json,
	                     struct completion done);
	void (*consent_revoke)(struct store *st, const char *user_id, const char *client_id,
	                       const struct event *ev, bool *revoked, struct completion done);
};

/* A backend: its name (for the log) and its areas' operations. The
 * backend's open sets st->be to its own. */
struct store_backend {
	const char *name;
	/* store.h's, for the backend's own part: store_close (the front then
	 * frees the shared part and st), store_stamp, store_read_stamp,
	 * store_idle. */
	void (*close)(struct store *st);
	struct store_stamp (*stamp)(struct store *st);
	struct store_stamp (*read_stamp)(struct store *st);
	bool (*idle)(const struct store *st);
	const struct store_roles_ops *roles;
	const struct store_sessions_ops *sessions;
	const struct store_outbox_ops *outbox;
	const struct store_resources_ops *resources;
	const struct store_projects_ops *projects;
	const struct store_keys_ops *keys;
	const struct store_events_ops *events;
	const struct store_clients_ops *clients;
	const struct store_users_ops *users;
	const struct store_tokens_ops *tokens;
	const struct store_factors_ops *factors;
	const struct store_forward_ops *forward;
	const struct store_passkeys_ops *passkeys;
	const struct store_device_ops *device;
	const struct store_access_ops *access;
};

#endif
