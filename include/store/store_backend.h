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
#include "flow.h"

struct store;
struct event_origin;
struct list_query;
struct page;
struct role_fields;
struct resource_input;

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

/* A backend: its name (for the log) and its areas' operations. The
 * backend's open sets st->be to its own. */
struct store_backend {
	const char *name;
	const struct store_roles_ops *roles;
	const struct store_resources_ops *resources;
};

#endif
