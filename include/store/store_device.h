#ifndef EDGEAUTH_STORE_DEVICE_H
#define EDGEAUTH_STORE_DEVICE_H
/*
 * Device authorizations (RFC 8628, docs/device.md): what a device asked
 * for, the user's decision, and how fast the device polls. Both codes reach
 * the store only as hashes (crypto_hash_secret): the device code's is the
 * row's key, the user code's (its eight letters, no dash) the page's
 * look-up. Times: ms by the node's clock, which the caller passes in, so
 * that every node and a controlled clock agree with the checks.
 */
#include <stdbool.h>
#include <stdint.h>

#include "flow.h"
#include "store.h"
#include "store_events.h"

enum device_state {
	DEVICE_PENDING,    /* the user has not decided */
	DEVICE_APPROVED,   /* user_id and session_id say who */
	DEVICE_DENIED,
	DEVICE_ISSUED,     /* the tokens went out, once */
};

struct new_device {
	const char *device_hash;
	const char *user_code_hash;
	const char *project_id;
	const char *client_id;
	const char *scope;        /* the OIDC scopes asked for; NULL: plain OAuth */
	int64_t created_at;
	int64_t expires_at;
	int interval_s;
	const char *address;      /* the device's, as the page shows it; NULL: unknown */
	const struct event *ev;   /* recorded with the row */
};

/* A device authorization as read. Strings owned; device_row_release. */
struct device_row {
	bool found;
	char *device_hash;
	char *project_id;
	char *client_id;
	char *scope;
	int64_t created_at;
	int64_t expires_at;
	int interval_s;
	bool slowed;              /* the poll that read it came sooner than the interval */
	char *address;
	enum device_state state;
	char *user_id;
	char *session_id;
};
void device_row_release(struct device_row *r);
/* The state column's text as an enum device_state (for the backends);
 * anything else reads as denied. */
enum device_state store_device_state_of(const char *text);

/* Stores a new authorization. A user code already live is system_error
 * (1 in 2.56e10 per live code: the device asks again). */
void store_device_insert(struct store *st, const struct new_device *d, struct completion done);
/* A poll at now (RFC 8628 §3.4): the row of device_hash (out->found false:
 * none), its last poll set to now; while it is pending, a poll sooner than
 * interval_s after the last one sets out->slowed and adds 5 s to the
 * interval (§3.5), in one statement. */
void store_device_poll(struct store *st, const char *device_hash, int64_t now,
                       struct device_row *out, struct completion done);
/* The authorization of user_code_hash that has not expired at now
 * (out->found false: none). */
void store_device_find(struct store *st, const char *user_code_hash, int64_t now,
                       struct device_row *out, struct completion done);
/* The user's decision: a pending, unexpired authorization becomes approved
 * (by user_id in session_id) or denied, and ev is recorded, in one
 * transaction; *won false: it was decided already or expired, nothing
 * changed. */
void store_device_decide(struct store *st, const char *user_code_hash, bool approve,
                         const char *user_id, const char *session_id, int64_t now,
                         const struct event *ev, bool *won, struct completion done);
/* Marks an approved authorization issued (after its tokens went out) and
 * records ev with it. */
void store_device_issued(struct store *st, const char *device_hash, const struct event *ev,
                         struct completion done);

#endif
