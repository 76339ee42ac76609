#ifndef EDGEAUTH_STORE_PASSKEYS_H
#define EDGEAUTH_STORE_PASSKEYS_H
/*
 * Passkeys (schema/021_passkeys.sql, docs/signin.md §"Passkeys"): a user's
 * WebAuthn credentials, each with its public key (the COSE key's bytes),
 * its sign count and a name the user gave it. The credential ID is unique
 * across users (WebAuthn Level 2 §7.1 step 22). Any passkey puts "passkey"
 * in the user record's second_factors (store_users.h); an administrator's
 * reset (store_factors_reset) removes them with the other factors. Each
 * operation is one transaction and calls done once (store.h).
 */
#include <stdbool.h>
#include <stdint.h>

#include "flow.h"
#include "store.h"
#include "store_events.h"
#include "store_factors.h"

/* A user's passkeys, at most (a registration past it is refused). */
#define PASSKEYS_PER_USER_MAX 20
/* A passkey's name, in characters. */
#define PASSKEY_NAME_MAX_CHARS 50

/* One passkey. Owned strings: store_passkey_release frees them. */
struct store_passkey {
	char *id;              /* ours, opaque: the account page's handle */
	char *user_id;
	char *credential_id;   /* base64url of the credential ID's bytes */
	char *public_key;      /* base64url of the COSE key's bytes */
	int alg;               /* COSE: -7 ES256, -257 RS256 */
	int64_t sign_count;
	bool backup_eligible;  /* BE at registration: "swk", not "hwk" (webauthn.h) */
	char *name;
	int64_t created_at;    /* ms */
	int64_t last_used_at;  /* ms; 0: never */
};
void store_passkey_release(struct store_passkey *p);

/* A user's passkeys, oldest first. store_passkey_list_release frees. */
struct store_passkey_list {
	struct store_passkey *items;
	size_t n;
};
void store_passkey_list_release(struct store_passkey_list *l);

/* What a password sign-in reads of its user's second factors, in one read
 * of the store: the TOTP factor, the passkeys (oldest first) and how many
 * unused recovery codes are left, and whether the user's role requires a
 * second factor (schema/027_role_second_factor.sql).
 * store_signin_factors_release frees. */
struct store_signin_factors {
	struct store_totp_row totp;
	struct store_passkey_list passkeys;
	long long recovery_left;
	bool second_factor_required;
};
void store_signin_factors_release(struct store_signin_factors *f);
void store_signin_factors(struct store *st, const char *user_id, struct store_signin_factors *out,
                          struct completion done);

/* Registers p (its id, user_id, credential_id, public_key, alg,
 * sign_count, backup_eligible and name; created_at is now) and records ev.
 * *added false, nothing written: the credential ID is registered already
 * (to anyone), or the user has PASSKEYS_PER_USER_MAX. */
void store_passkey_add(struct store *st, const struct store_passkey *p, const struct event *ev,
                       bool *added, struct completion done);
/* The user's passkeys into *out. */
void store_passkey_list(struct store *st, const char *user_id, struct store_passkey_list *out,
                        struct completion done);
/* The passkey of credential_id (base64url) into *out; *found false: none. */
void store_passkey_find(struct store *st, const char *credential_id, struct store_passkey *out,
                        bool *found, struct completion done);
/* An assertion of passkey id verified with the sign count old_count and
 * the last_used_at old_used_at read: the count becomes new_count and
 * last_used_at now (later than old_used_at even on a clock that stands
 * still: a use always moves it, which spends a sign-in's first step also
 * for an authenticator whose count stays 0), and ev is recorded, only when
 * both are still as read (of two uses, on any nodes, one wins); *won says
 * whether it did. */
void store_passkey_use(struct store *st, const char *id, int64_t old_count, int64_t old_used_at,
                       int64_t new_count, const struct event *ev, bool *won,
                       struct completion done);
/* Removes the user's passkey id (*removed: whether the user had it) and
 * records ev when it did. */
void store_passkey_remove(struct store *st, const char *user_id, const char *id,
                          const struct event *ev, bool *removed, struct completion done);

#endif
