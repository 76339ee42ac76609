#ifndef EDGEAUTH_API_RECORDS_H
#define EDGEAUTH_API_RECORDS_H
/*
 * What the record areas (resources, roles, users, clients) share for
 * docs/api.md §"Read one and delete"'s read-one and delete endpoints: a get asks its area's
 * store for the record by the ID in the path and answers 200 with it as the
 * store wrote it; a delete asks its area's store to delete it and answers
 * 204. The store decides every error (*_not_found, no escalation).
 */
#include "flow.h"
#include "store.h"
#include "store_events.h"

struct request_ctx;

/* The state of the steps that read one record and answer it (record_get,
 * or an area's own read step, then record_answer): the record as the
 * store wrote it. Made zeroed at the first call, freed with the request. */
struct record_read {
	char *record;
};
struct record_read *record_read_state(struct request_ctx *ctx);

/* A store operation that reads one record of a project (store_X_get). */
typedef void record_get_op(struct store *st, const char *project_id, const char *id, char **out,
                           struct completion done);
/* A store operation that deletes one record of a project, with the
 * caller's scope for the no-escalation rule, recording the event of who
 * asked (store_X_delete). */
typedef void record_delete_op(struct store *st, const struct event_origin *by,
                              const char *project_id, const char *id, const char *scope,
                              struct completion done);

/* Steps: ask get (or del) for the record of the project in the path whose ID
 * is the path parameter param; STEP_WAIT. */
enum step_result record_get(struct flow *f, record_get_op *get, const char *param);
enum step_result record_delete(struct flow *f, record_delete_op *del, const char *param);
/* The last steps: 200 with the record read into struct record_read; 204
 * with no body. */
enum step_result record_answer(struct flow *f);
enum step_result record_deleted(struct flow *f);

#endif
