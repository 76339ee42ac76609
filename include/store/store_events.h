#ifndef EDGEAUTH_STORE_EVENTS_H
#define EDGEAUTH_STORE_EVENTS_H
/*
 * The audit trail (docs/operations.md §"Audit trail", schema/010): an event is a row written
 * by the same transaction as the change it records, so a change that rolls
 * back leaves none. An event holds IDs and words of a fixed vocabulary,
 * never a secret nor text a user typed. Its record, as the list and the
 * audit file show it, is the JSON object
 *   {id, time, project_id, actor, action, target, address, outcome}
 */
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "flow.h"
#include "listing.h"
#include "store.h"

/* The actor of the CLI's events. */
#define EVENT_ACTOR_CLI "cli"
/* The outcome of an event that records a change made, and those of a
 * refused sign-in and of a throttle that starts (a replay's is the spec's
 * code it answers). */
#define EVENT_SUCCESS "success"
#define EVENT_ACCESS_DENIED "access_denied"
#define EVENT_THROTTLED "throttled"

/* The actions: a fixed vocabulary (docs/operations.md "Reading the audit trail"). */
#define EVENT_RESOURCE_CREATE "resource.create"
#define EVENT_RESOURCE_UPDATE "resource.update"
#define EVENT_RESOURCE_DELETE "resource.delete"
#define EVENT_ROLE_CREATE "role.create"
#define EVENT_ROLE_UPDATE "role.update"
#define EVENT_ROLE_DELETE "role.delete"
#define EVENT_USER_CREATE "user.create"
#define EVENT_USER_UPDATE "user.update"
#define EVENT_USER_DELETE "user.delete"
#define EVENT_USER_RESET_FACTORS "user.reset_factors"
#define EVENT_FACTOR_ENROLL "factor.enroll"
#define EVENT_FACTOR_REMOVE "factor.remove"
#define EVENT_FACTOR_USE "factor.use"
#define EVENT_FACTOR_FAILURE "factor.failure"
#define EVENT_FACTOR_RECOVERY_CODES "factor.recovery_codes"
#define EVENT_FACTOR_RECOVERY_USE "factor.recovery_use"
#define EVENT_CLIENT_CREATE "client.create"
#define EVENT_CLIENT_UPDATE "client.update"
#define EVENT_CLIENT_DELETE "client.delete"
#define EVENT_CLIENT_ROTATE_SECRET "client.rotate_secret"
#define EVENT_SIGNIN_SUCCESS "signin.success"
#define EVENT_SIGNIN_FAILURE "signin.failure"
#define EVENT_SIGNIN_THROTTLED "signin.throttled"
#define EVENT_SESSION_END "session.end"
#define EVENT_TOKEN_REVOKE "token.revoke"
#define EVENT_CODE_REUSE_DETECTED "code.reuse_detected"
#define EVENT_REFRESH_REUSE_DETECTED "refresh.reuse_detected"
#define EVENT_KEY_ROTATE "key.rotate"
#define EVENT_KEY_RETIRE "key.retire"
#define EVENT_PROJECT_CREATE "project.create"
#define EVENT_PROJECT_ACTIVATE "project.activate"
#define EVENT_PROJECT_DEACTIVATE "project.deactivate"
#define EVENT_PROJECT_ADMIN_CLIENT "project.admin_client"
#define EVENT_STORE_INVALIDATE_ALL "store.invalidate_all"
#define EVENT_DEVICE_APPROVE "device.approve"   /* docs/device.md */
#define EVENT_DEVICE_DENY "device.deny"
#define EVENT_DEVICE_REQUEST "device.request"
#define EVENT_DEVICE_POLL "device.poll"     /* a poll that ended the flow, not a pending one */
/* docs/signin.md §"Access rules", §"Consent": a sign-in an access rule
 * refused, a consent given, refused (Deny) or revoked (actor the user,
 * target the client) */
#define EVENT_ACCESS_RULE_DENIED "access.denied"
#define EVENT_CONSENT_GRANT "consent.grant"
#define EVENT_CONSENT_REVOKE "consent.revoke"
#define EVENT_CONSENT_DENY "consent.deny"

/* Who asked for a change. Strings borrowed. */
struct event_origin {
	const char *actor;     /* a client or user ID, or EVENT_ACTOR_CLI */
	const char *address;   /* the client's address; NULL: the CLI, or unknown */
};
/* The CLI's origin: actor "cli", no address. */
extern const struct event_origin event_origin_cli;

/* One event to record. Strings borrowed; action is one of the fixed
 * vocabulary of docs/operations.md "Reading the audit trail" ("client.create", "signin.failure", ...). */
struct event {
	const struct event_origin *by;   /* NULL: nothing is recorded (see below) */
	const char *project_id;          /* NULL: a store-wide event (a key rotation) */
	const char *action;
	const char *target;              /* an ID, or NULL */
	const char *outcome;             /* NULL: EVENT_SUCCESS; else an error code */
};

/* SQLite's (sqlite_events.c), for its areas' writes. Inserts ev inside
 * the caller's open transaction (a store_write_tx write function, or a
 * CLI operation's own), at now. With no origin (ev->by
 * NULL: what no one asked for, as the default project of a first start)
 * nothing is recorded. When the store has a sink (store_events_sink), the
 * event's record waits for the commit and goes to the sink after it; a
 * rollback drops it with the row. 0, or -1 with system_error. */
int store_event_insert(struct store *st, const struct event *ev, struct api_error *err);

/* An event that is a change of its own (a failed sign-in, a throttle that
 * starts): n events in one transaction. Errors: system_error. */
void store_event_record(struct store *st, const struct event *evs, size_t n,
                        struct completion done);

/* Who the writes that take no origin are by: the project and key
 * commands (store_projects.h, store_keys.h), which the CLI runs with
 * event_origin_cli. NULL (the default, the server's): those writes record
 * nothing (the default project and the first keys of a first start). */
void store_events_origin(struct store *st, const struct event_origin *by);
/* The event of such a write, by that origin: ev's by is set from it. */
int store_event_insert_own(struct store *st, struct event ev, struct api_error *err);

/* Where the records of committed events go (the audit file): sink(arg,
 * lines, len) once after each commit that held events, with their records
 * in their order, each a JSON object's text and a newline (len bytes, no
 * NUL). NULL: none (and no record is built). */
void store_events_sink(struct store *st, void (*sink)(void *arg, const char *lines, size_t len),
                       void *arg);

/* What store_event_list shows. */
struct event_filter {
	const char *project_id;   /* NULL: any */
	int64_t since;            /* ms; events at or after it */
	const char *action;       /* NULL: any */
};
/* Calls each(arg, record) for every event the filter lets through, oldest
 * first (ties by ID). 0, or -1 with system_error. */
int store_event_list(struct store *st, const struct event_filter *f,
                     void (*each)(void *arg, const char *record), void *arg,
                     struct api_error *err);

/* The fixed vocabulary of actions, EVENT_ACTION_COUNT of them (a list's
 * filter is held to it). */
#define EVENT_ACTION_COUNT 42
extern const char *const event_actions[EVENT_ACTION_COUNT];

/* What a page of a project's events (store_event_page) lets through.
 * Strings borrowed; NULL: any. Each string filter is an exact match. */
struct event_page_filter {
	const char *action;
	const char *actor;
	const char *target;
	const char *outcome;
	int64_t since;            /* ms; events at or after it; INT64_MIN: any */
	int64_t until;            /* ms; events before it; INT64_MAX: any */
};
#define EVENT_PAGE_FILTER_INIT { NULL, NULL, NULL, NULL, INT64_MIN, INT64_MAX }

/* One page of project_id's events that f lets through, and how many in
 * all (docs/api.md §"Audit trail"): newest first (q->desc; else oldest
 * first), by time then ID; q->sort and q->search are not read. Each
 * record as store_event_list writes it. Errors: system_error. */
void store_event_page(struct store *st, const char *project_id,
                      const struct event_page_filter *f, const struct list_query *q,
                      struct page *out, struct completion done);

/* Deletes up to batch events older than before (ms). Returns how many, or
 * -1 with system_error. */
int store_event_purge(struct store *st, int batch, int64_t before, struct api_error *err);

/* ---- for the backends' own use (sqlite_tx.c, store_pg.c) ---- */

/* Which index a page of events is read through: the most selective filter
 * given, each with its index on (project_id, column, time) (schema/014,
 * schema/postgres/022); else the project's (project_id, time). Each backend
 * has one statement per index and direction, since a filter written "?
 * IS NULL OR column = ?" is one no index serves. */
enum event_page_index {
	EVENT_PAGE_BY_PROJECT,
	EVENT_PAGE_BY_ACTION,
	EVENT_PAGE_BY_ACTOR,
	EVENT_PAGE_BY_TARGET,
	EVENT_PAGE_BY__COUNT
};
enum event_page_index store_event_page_index(const struct event_page_filter *f);

/* The records of the open transaction's events wait in the store until it
 * commits: store_begin marks where this transaction's (or savepoint's)
 * begin, a rollback drops them back to the mark, a commit that is durable
 * hands them all to the sink, a failed batch commit drops them all. */
void store_events_mark(struct store *st);
/* Keeps the record of an event of the open transaction for its commit (a
 * PostgreSQL CLI transaction's too: store_pg.c). */
void store_events_keep(struct store *st, const char *record);
void store_events_rolled_back(struct store *st);
void store_events_committed(struct store *st);
void store_events_drop(struct store *st);

#endif
