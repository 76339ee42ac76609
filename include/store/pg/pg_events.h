#ifndef EDGEAUTH_PG_EVENTS_H
#define EDGEAUTH_PG_EVENTS_H
/* What store_events.h does on PostgreSQL (store_pg.h; schema/postgres/014).
 * A write's own event is a parameter of its write function (pg_event_json),
 * not one of these. */
#include <stddef.h>

#include "store_events.h"

void pg_event_record(struct store *st, const struct event *evs, size_t n,
                     struct completion done);
int pg_event_list(struct store *st, const struct event_filter *f,
                  void (*each)(void *arg, const char *record), void *arg,
                  struct api_error *err);
/* Runs on the loop, so it does not wait for its count: the count of the
 * last run that ended (pg_purge_run); a failure is logged. */
int pg_event_purge(struct store *st, int batch, int64_t before, struct api_error *err);

#endif
