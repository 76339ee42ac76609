/*
 * Device authorizations: the front (store_device.h). Each operation is the
 * backend's (st->be->device: sqlite_device.c, pg_device.c); the row's
 * memory and its state's names are here, once for both.
 */
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "store_backend.h"
#include "store_device.h"

void device_row_release(struct device_row *r)
{
	free(r->device_hash);
	free(r->project_id);
	free(r->client_id);
	free(r->scope);
	free(r->address);
	free(r->user_id);
	free(r->session_id);
	memset(r, 0, sizeof *r);
}

void store_device_insert(struct store *st, const struct new_device *d, struct completion done)
{
	st->be->device->insert(st, d, done);
}

void store_device_poll(struct store *st, const char *device_hash, int64_t now,
                       struct device_row *out, struct completion done)
{
	st->be->device->poll(st, device_hash, now, out, done);
}

void store_device_find(struct store *st, const char *user_code_hash, int64_t now,
                       struct device_row *out, struct completion done)
{
	st->be->device->find(st, user_code_hash, now, out, done);
}

void store_device_decide(struct store *st, const char *user_code_hash, bool approve,
                         const char *user_id, const char *session_id, int64_t now,
                         const struct event *ev, bool *won, struct completion done)
{
	st->be->device->decide(st, user_code_hash, approve, user_id, session_id, now, ev, won,
	                       done);
}

void store_device_issued(struct store *st, const char *device_hash, const struct event *ev,
                         struct completion done)
{
	st->be->device->issued(st, device_hash, ev, done);
}

/* The state column's text, as both schemas spell it. */
enum device_state store_device_state_of(const char *text)
{
	static const char *const names[] = {
		[DEVICE_PENDING] = "pending", [DEVICE_APPROVED] = "approved",
		[DEVICE_DENIED] = "denied", [DEVICE_ISSUED] = "issued",
	};

	for (size_t i = 0; text && i < sizeof names / sizeof names[0]; i++)
		if (strcmp(text, names[i]) == 0)
			return (enum device_state)i;
	return DEVICE_DENIED;   /* a row another tool wrote: the safe side */
}
