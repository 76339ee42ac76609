#ifndef EDGEAUTH_KEYRING_FIXTURE_H
#define EDGEAUTH_KEYRING_FIXTURE_H
/*
 * The fixture of the unit suites that work over a real key ring
 * (check_factors, check_forward_auth, check_id_token, check_keys,
 * check_auth, check_grants, check_backchannel): a new SQLite store in a
 * temporary directory of the suite's name (check_store_new), and the key
 * ring it gets its keys from (check_keyring: DIR/key.pem, DIR/kek). The
 * suite calls keyring_fixture_open from its setup and keyring_fixture_close
 * from its teardown, which removes the directory. Header-only, as
 * check_suite.h.
 */
#include <check.h>
#include <stdio.h>

#include "check_suite.h"
#include "config.h"
#include "keyring.h"
#include "store.h"

struct keyring_fixture {
	char dir[64];
	char path[96];           /* the store, DIR/e.db */
	char key[96], kek[96];   /* the signing key file and the key-encryption key file */
	struct config cfg;
	struct store *st;
	struct keyring *ring;
};

static inline void keyring_fixture_open(struct keyring_fixture *k, const char *suite)
{
	memset(k, 0, sizeof *k);
	k->st = check_store_new(suite, k->dir);
	snprintf(k->path, sizeof k->path, "%s/e.db", k->dir);
	snprintf(k->key, sizeof k->key, "%s/key.pem", k->dir);
	snprintf(k->kek, sizeof k->kek, "%s/kek", k->dir);
	config_init(&k->cfg);
	k->ring = check_keyring(&k->cfg, k->st, k->dir);
}

static inline void keyring_fixture_close(struct keyring_fixture *k)
{
	keyring_free(k->ring);
	config_release(&k->cfg);
	check_store_remove(k->st, k->dir);
}

#endif
