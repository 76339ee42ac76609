#ifndef EDGEAUTH_BACKCHANNEL_LIMITS_H
#define EDGEAUTH_BACKCHANNEL_LIMITS_H
/*
 * The bounds of back-channel logout delivery (docs/tokens.md "Limits"): shared by
 * the driver (backchannel.c) and one attempt (backchannel_attempt.c).
 */

#define BACKCHANNEL_MAX_IN_FLIGHT 64     /* attempts under way at once */
#define BACKCHANNEL_MAX_IN_FLIGHT_PER_CLIENT 16   /* of them, to one client */
/* waiting for a slot or a retry; more drop the newest of the user with the
 * most waiting for one client (backchannel_queue.h) */
#define BACKCHANNEL_MAX_QUEUED 1024
#define BACKCHANNEL_TIMEOUT_S 5          /* an attempt, from the lookup to the answer's headers */
#define BACKCHANNEL_ANSWER_MAX_BYTES 4096   /* status line and headers; no body is read */
#define BACKCHANNEL_TOKEN_TTL_S 120      /* a logout token's exp - iat */
#define BACKCHANNEL_ATTEMPTS 3           /* the first, then 1 s and 5 s after a failure */

#endif
