#ifndef EDGEAUTH_METRICS_H
#define EDGEAUTH_METRICS_H
/*
 * The counters of docs/operations.md §"Metrics", and their Prometheus text exposition
 * (format 0.0.4). Counting is a plain increment in arrays indexed by route
 * and by enum: the loop is one thread, and text is made only when /metrics
 * is scraped (metrics_http.c). Every label is bounded: a route pattern of
 * the route table (or "unmatched"), a method (or "other"), a fixed enum
 * value; never an ID, an address or text from a request. Loop thread only.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <event2/buffer.h>
#include <event2/http.h>

/* Route table entries at most (router.c's table is well under it). */
#define METRICS_MAX_ROUTES 128

/* A sign-in's end, by label: signin.c maps its outcomes onto these. */
enum metrics_signin {
	METRICS_SIGNIN_SUCCESS,
	METRICS_SIGNIN_FAILURE,      /* wrong email or password, or an inactive user */
	METRICS_SIGNIN_THROTTLED,    /* refused unchecked: past a [signin] limit */
	METRICS_SIGNIN_ERROR,        /* the hash queue was full, or no code could be stored */
	METRICS_SIGNIN__N
};

/* A TOTP second factor's events (docs/signin.md §"Second factors"). */
enum metrics_totp {
	METRICS_TOTP_ENROLLED,   /* confirmed by its first code */
	METRICS_TOTP_USED,       /* a code accepted at sign-in */
	METRICS_TOTP_FAILED,     /* a wrong or replayed code */
	METRICS_TOTP_REMOVED,    /* by the user */
	METRICS_TOTP__N
};

/* Recovery codes' events (docs/signin.md §"Second factors"). */
enum metrics_recovery {
	METRICS_RECOVERY_ISSUED,   /* a new set of codes (the first factor, or regenerated) */
	METRICS_RECOVERY_USED,     /* a code accepted at sign-in in place of the factor */
	METRICS_RECOVERY__N
};

/* A passkey's events (docs/signin.md §"Passkeys"). */
enum metrics_passkey {
	METRICS_PASSKEY_REGISTERED,
	METRICS_PASSKEY_USED,       /* an assertion accepted at sign-in */
	METRICS_PASSKEY_FAILED,     /* a registration or assertion refused */
	METRICS_PASSKEY_REMOVED,    /* by the user */
	METRICS_PASSKEY__N
};

/* The device grant's events (docs/device.md). */
enum metrics_device {
	METRICS_DEVICE_REQUESTED,   /* a device authorization issued */
	METRICS_DEVICE_PENDING,     /* a poll answered authorization_pending */
	METRICS_DEVICE_SLOW_DOWN,   /* a poll answered slow_down */
	METRICS_DEVICE_APPROVED,
	METRICS_DEVICE_DENIED,
	METRICS_DEVICE_WRONG_CODE,  /* a user code typed on /device that is no live one */
	METRICS_DEVICE_THROTTLED,   /* a code entry refused by the throttle */
	METRICS_DEVICE_POLL_DENIED, /* a poll answered access_denied */
	METRICS_DEVICE_EXPIRED,     /* a poll answered expired_token */
	METRICS_DEVICE__N
};

/* The caches of derived answers (store_cache.h), by what they hold. */
enum metrics_cache {
	METRICS_CACHE_CLIENT_SCOPE,
	METRICS_CACHE_ROLE_PERMISSIONS,
	METRICS_CACHE_TOKEN_HOLDERS,   /* a bearer token's client, project and user are active */
	METRICS_CACHE_CLIENT,          /* a client's row as authentication reads it */
	METRICS_CACHE_USER_SCOPE,      /* a user's token permissions (console pages, grants) */
	METRICS_CACHE__N
};

/* A back-channel logout delivery's end (docs/signin.md §"Back-channel logout"). */
enum metrics_backchannel {
	METRICS_BACKCHANNEL_DELIVERED,   /* a 2xx answer */
	METRICS_BACKCHANNEL_REJECTED,    /* a 4xx answer: final */
	METRICS_BACKCHANNEL_FAILED,      /* no 2xx or 4xx after the retries */
	METRICS_BACKCHANNEL_REFUSED,     /* not sent: address not allowed, URI unusable */
	METRICS_BACKCHANNEL_DROPPED,     /* the queue was full */
	METRICS_BACKCHANNEL__N
};

/* Route i of the route table has the path pattern `pattern` (kept, not
 * copied: the table is static). Called for every route at start; requests
 * of a route never added count as "unmatched". */
void metrics_route_add(size_t i, const char *pattern);

/* A request answered: route is its route table index (-1: no route, an
 * unknown path or a request refused before routing), us its time from
 * arrival to answer (< 0: unknown, then no latency is observed). */
void metrics_request(int route, enum evhttp_cmd_type method, int status, int64_t us);

/* grant_type as the token endpoint read it: authorization_code,
 * refresh_token, client_credentials or the device grant's (anything else
 * is not counted). */
void metrics_token_issued(const char *grant_type);
/* A code or refresh token used again (the sign-in revoked). */
void metrics_reuse_detected(const char *grant_type);
/* A sign-in's end, as signin_metric (signin.h) counts it. */
void metrics_signin(enum metrics_signin outcome);
void metrics_totp(enum metrics_totp outcome);
void metrics_recovery(enum metrics_recovery outcome);
void metrics_passkey(enum metrics_passkey outcome);
void metrics_device(enum metrics_device event);
/* An administrator's reset of a user's second factors. */
void metrics_factors_reset(void);
void metrics_cache_lookup(enum metrics_cache cache, bool hit);
/* The store's commit that began at start_us (mono_us) ended, ok or not. */
void metrics_store_commit(int64_t start_us, bool ok);
/* The store refuses writes from now on (store_fail_writes). */
void metrics_store_failed(void);
/* A sync of committed batches failed: what they wrote may not survive. */
void metrics_store_sync_failed(void);
/* Gauges, set where they change. */
void metrics_hash_queue(int pending);
void metrics_connections(int open);
/* Sessions (docs/signin.md §"Sessions") and back-channel deliveries. */
void metrics_session_started(void);
void metrics_session_ended(void);
void metrics_backchannel(enum metrics_backchannel outcome);

/* The exposition of every series, appended to out. */
void metrics_render(struct evbuffer *out);
/* Text as a label value (label true: '\\', '"' and newline escaped) or as
 * HELP text ('\\' and newline escaped), appended to out. */
void metrics_put_escaped(struct evbuffer *out, const char *text, bool label);
/* Every count back to zero and no route known (tests). */
void metrics_reset(void);

#endif
