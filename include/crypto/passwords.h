#ifndef EDGEAUTH_PASSWORDS_H
#define EDGEAUTH_PASSWORDS_H
/*
 * Password hashing with argon2id and the config's parameters. The calls are
 * shaped for a worker pool: the caller hands over the password and gets the
 * result in a callback on the loop thread. Handlers must be written so that
 * the callback may run later than the call returns.
 */
#include <stdbool.h>

#include "error.h"

struct config;
struct event_base;
struct passwords;

struct passwords *passwords_new(struct event_base *base, const struct config *cfg);
void passwords_free(struct passwords *pw);

/* encoded: a new "$argon2id$..." string that the callback owns, or NULL when
 * the hash could not run (argon2 got no memory). */
typedef void passwords_hash_done(void *arg, char *encoded);
/* ok: 1 the password matches, 0 it does not (or encoded was NULL), -1 the
 * hash could not run (argon2 got no memory): no answer about the password. */
typedef void passwords_verify_done(void *arg, int ok);

/* Hashes password (copied and wiped here). Returns 0 when the work was
 * taken, -1 (503 temporarily_unavailable) when too many wait already; then
 * done is never called. */
int passwords_hash(struct passwords *pw, const char *password,
                   passwords_hash_done *done, void *arg, struct api_error *err);
/* The hash of password, at once on the calling thread (a worker's job;
 * the CLI, which has no loop): a new "$argon2id$..." string (caller frees
 * it wiped), or NULL when argon2 got no memory. */
char *passwords_hash_now(const struct config *cfg, const char *password);
/* Verifies password against encoded. With encoded NULL a dummy hash is
 * verified, so an unknown account costs the same time; ok is then 0. */
int passwords_verify(struct passwords *pw, const char *encoded, const char *password,
                     passwords_verify_done *done, void *arg, struct api_error *err);

/* The dummy hash unknown accounts are verified against (for tests). */
const char *passwords_dummy(const struct passwords *pw);

#endif
