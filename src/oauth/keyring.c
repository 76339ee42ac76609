/*
 * The key ring (keyring.h): the store's signing keys opened in memory, the
 * key-encryption key that opens them, and the start that fills a store
 * without keys. A private key is never written anywhere but sealed into
 * the store (and, as before, the signing_key file a new store starts from).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "b64url.h"
#include "config.h"
#include "crypto.h"
#include "keyring.h"
#include "log.h"
#include "secret_file.h"
#include "store.h"
#include "util.h"

#define KEK_FILE "key-encryption key file"

struct keyring {
	const struct config *cfg;
	unsigned char kek[KEYRING_KEK_BYTES];
	/* keys[i] is the opened key of rows[i] (whose sealed part is dropped) */
	struct key_row *rows;
	struct jwt_key **keys;
	size_t count;
	int64_t version;          /* the store's key version the ring holds */
	struct store_stamp at;    /* the store state the version was read at */
};

const struct key_row *keyring_rows(const struct keyring *r, size_t *n)
{
	*n = r->count;
	return r->rows;
}

int64_t keyring_lifetime_ms(const struct config *cfg)
{
	long longest = cfg->access_ttl_s;

	if (cfg->id_token_ttl_s > longest)
		longest = cfg->id_token_ttl_s;
	if (LOGOUT_TOKEN_TTL_S > longest)
		longest = LOGOUT_TOKEN_TTL_S;
	return longest * 1000LL;
}

/* ---- the key-encryption key ---- */

/* Reads the KEK file into kek, or creates it with random bytes. 0, or -1
 * with a reason naming the file. */
static int kek_load(const char *path, unsigned char kek[KEYRING_KEK_BYTES], char *errbuf,
                    size_t errlen)
{
	unsigned char *buf = NULL, fresh[KEYRING_KEK_BYTES];
	size_t len = 0;
	int r = secret_file_read(path, KEK_FILE, KEYRING_KEK_BYTES, &buf, &len, errbuf, errlen);

	if (r == 1) {
		crypto_random(fresh, sizeof fresh);
		r = secret_file_create(path, KEK_FILE, fresh, sizeof fresh, errbuf, errlen);
		if (r == 0)
			memcpy(kek, fresh, sizeof fresh);
		OPENSSL_cleanse(fresh, sizeof fresh);
		if (r == 1)   /* another process made it meanwhile */
			r = secret_file_read(path, KEK_FILE, KEYRING_KEK_BYTES, &buf, &len, errbuf,
			                     errlen);
		if (r == 1)
			snprintf(errbuf, errlen, "%s %s exists but cannot be opened", KEK_FILE, path);
	}
	if (r == 0 && buf && len != KEYRING_KEK_BYTES) {
		snprintf(errbuf, errlen, "%s %s must hold %d bytes, not %zu", KEK_FILE, path,
		         KEYRING_KEK_BYTES, len);
		r = -1;
	} else if (r == 0 && buf) {
		memcpy(kek, buf, KEYRING_KEK_BYTES);
	}
	secret_file_free(buf, KEYRING_KEK_BYTES);
	return r == 0 ? 0 : -1;
}

/* ---- the ring in memory ---- */

static void ring_clear(struct keyring *r)
{
	for (size_t i = 0; i < r->count; i++)
		jwt_key_free(r->keys[i]);
	free(r->keys);
	free(r->rows);
	r->keys = NULL;
	r->rows = NULL;
	r->count = 0;
}

void keyring_free(struct keyring *r)
{
	if (!r)
		return;
	ring_clear(r);
	OPENSSL_cleanse(r->kek, sizeof r->kek);
	free(r);
}

/* The key of row k: the ring's own when it holds k's kid already (a
 * reload opens only new keys), else opened from the sealed part. NULL with
 * a reason when it does not open, or opens to another key than its kid. */
static struct jwt_key *key_open(struct keyring *r, const struct key_row *k, char *errbuf,
                                size_t errlen)
{
	unsigned char *der;
	size_t der_len;
	struct jwt_key *key;
	char reason[200] = "";

	for (size_t i = 0; i < r->count; i++)
		if (r->keys[i] && !strcmp(r->rows[i].kid, k->kid)) {
			key = r->keys[i];
			r->keys[i] = NULL;
			return key;
		}
	der = k->sealed ? crypto_open(r->kek, k->kid, k->sealed, k->sealed_len, &der_len) : NULL;
	if (!der) {
		snprintf(errbuf, errlen, "the signing key %s in the store does not open with %s %s",
		         k->kid, KEK_FILE, r->cfg->key_encryption_key_file);
		return NULL;
	}
	key = jwt_key_from_der(der, der_len, reason, sizeof reason);
	OPENSSL_cleanse(der, der_len);
	free(der);
	if (key && (strcmp(jwt_key_kid(key), k->kid) != 0 || jwt_key_alg(key) != k->alg)) {
		jwt_key_free(key);
		key = NULL;
		snprintf(reason, sizeof reason, "it is not the key its kid and alg name");
	}
	if (!key)
		snprintf(errbuf, errlen, "the signing key %s in the store is unusable: %s", k->kid,
		         reason);
	return key;
}

/*
 * Replaces the ring's keys with rows' (the published keys of the store).
 * strict (at start): any key that does not open fails, with errbuf; else
 * such a key is logged and left out, and the others are installed.
 */
static int ring_install(struct keyring *r, const struct key_rows *rows, bool strict,
                        char *errbuf, size_t errlen)
{
	struct key_row *new_rows = xcalloc(rows->count ? rows->count : 1, sizeof *new_rows);
	struct jwt_key **new_keys = xcalloc(rows->count ? rows->count : 1, sizeof *new_keys);
	size_t n = 0;

	for (size_t i = 0; i < rows->count; i++) {
		struct jwt_key *key = key_open(r, &rows->rows[i], errbuf, errlen);

		if (!key && strict) {
			while (n > 0)
				jwt_key_free(new_keys[--n]);
			free(new_keys);
			free(new_rows);
			return -1;
		}
		if (!key) {
			log_error("%s; it is left out", errbuf);
			continue;
		}
		new_rows[n] = rows->rows[i];
		new_rows[n].sealed = NULL;   /* still the list's */
		new_rows[n].sealed_len = 0;
		new_keys[n++] = key;
	}
	ring_clear(r);
	r->rows = new_rows;
	r->keys = new_keys;
	r->count = n;
	r->version = rows->version;
	return 0;
}

const struct jwt_key *keyring_find(const struct keyring *r, const char *kid)
{
	int64_t now = now_ms();

	for (size_t i = 0; i < r->count; i++)
		if (!strcmp(r->rows[i].kid, kid))
			return key_schedule_published(&r->rows[i], now) ? r->keys[i] : NULL;
	return NULL;
}

char *keyring_sign(const struct keyring *r, enum jwt_alg alg, enum jwt_typ typ,
                   const char *payload, size_t len)
{
	long i = key_schedule_signer(r->rows, r->count, alg, now_ms());

	if (i < 0)
		return NULL;
	return jwt_sign_payload(r->keys[i], typ, payload, len);
}

bool keyring_can_sign(const struct keyring *r)
{
	int64_t now = now_ms();

	for (int alg = 0; alg < JWT_ALG_COUNT; alg++)
		if (key_schedule_signer(r->rows, r->count, (enum jwt_alg)alg, now) < 0)
			return false;
	return true;
}

struct lookup {
	const struct keyring *ring;
	struct keyring_verdict v;
};

static const struct jwt_key *lookup_kid(void *arg, const char *kid)
{
	struct lookup *l = arg;
	const struct jwt_key *key = keyring_find(l->ring, kid);

	l->v.kid_unknown = key == NULL;
	if (key)
		snprintf(l->v.kid, sizeof l->v.kid, "%s", jwt_key_kid(key));
	return key;
}

json_t *keyring_verify(const struct keyring *r, enum jwt_typ typ, const char *token, size_t len,
                       struct keyring_verdict *v)
{
	struct lookup l = { .ring = r };
	json_t *claims = jwt_verify_with(lookup_kid, &l, typ, token, len);

	if (v)
		*v = l.v;
	return claims;
}

json_t *keyring_jwks(const struct keyring *r)
{
	json_t *keys = json_array();
	int64_t now = now_ms();

	/* the rows are in activation order (ES256 before RS256 at the same time), as
	 * the store reads them */
	for (size_t i = 0; i < r->count; i++)
		if (key_schedule_published(&r->rows[i], now))
			json_array_append_new(keys, jwt_key_jwk(r->keys[i]));
	return json_pack("{s:o}", "keys", keys);
}

/* ---- new keys ---- */

/* A row for key, sealed under the KEK with its kid, signing from activates_at. */
static void row_for(const struct keyring *r, const struct jwt_key *key, int64_t now,
                    int64_t activates_at, struct key_row *out)
{
	unsigned char *der;
	size_t der_len;

	memset(out, 0, sizeof *out);
	snprintf(out->kid, sizeof out->kid, "%s", jwt_key_kid(key));
	out->alg = jwt_key_alg(key);
	out->created_at = now;
	out->activates_at = activates_at;
	out->publish_until = KEY_NO_BOUND;
	if (jwt_key_to_der(key, &der, &der_len) != 0) {
		log_error("cannot encode a private key");
		abort();   /* only out of memory: the key was made or read by us */
	}
	out->sealed = crypto_seal(r->kek, out->kid, der, der_len, &out->sealed_len);
	OPENSSL_cleanse(der, der_len);
	free(der);
}

static void rows_free(struct key_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		store_keys_row_release(&rows[i]);
}

/* Generates keys of algs[0..n) into rows (sealed). 0, or -1 with errbuf. */
static int rows_generate(const struct keyring *r, const enum jwt_alg *algs, size_t n,
                         int64_t now, int64_t activates_at, struct key_row *rows,
                         char *errbuf, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		struct jwt_key *key = jwt_key_generate(algs[i], errbuf, errlen);

		if (!key) {
			while (i > 0)
				rows_free(&rows[--i], 1);
			return -1;
		}
		row_for(r, key, now, activates_at, &rows[i]);
		jwt_key_free(key);
	}
	return 0;
}

int keyring_rotate(struct keyring *r, struct store *st, const enum jwt_alg *algs, size_t n,
                   struct key_row *added, struct api_error *err)
{
	int64_t now = now_ms();
	char reason[200];
	int rc;

	if (rows_generate(r, algs, n, now, now + r->cfg->key_activation_delay_s * 1000LL, added,
	                  reason, sizeof reason) < 0)
		return api_fail(err, E_SYSTEM_ERROR, "%s", reason);
	rc = store_keys_add(st, added, n, false, keyring_lifetime_ms(r->cfg), err);
	rows_free(added, n);   /* the caller prints them: no sealed part */
	return rc < 0 ? -1 : 0;
}

/* ---- start ---- */

/* Whether kid is one of the store's keys, whatever its state. */
static bool stored(const struct key_rows *all, const char *kid)
{
	for (size_t i = 0; i < all->count; i++)
		if (!strcmp(all->rows[i].kid, kid))
			return true;
	return false;
}

/* A store with keys does not need the signing_key file; one that differs
 * from every stored key is named, so that an operator who replaced it
 * learns that it does nothing. */
static void file_key_check(const struct config *cfg, const struct key_rows *all)
{
	struct jwt_key *key = NULL;
	char reason[300] = "";
	int r = jwt_key_load(cfg->signing_key, &key, reason, sizeof reason);

	if (r < 0)
		log_warn("signing_key %s is ignored (the store holds the"
		         " signing keys): %s", cfg->signing_key, reason);
	else if (r == 0 && !stored(all, jwt_key_kid(key)))
		log_warn("signing_key %s (kid %s) differs from every key"
		         " in the store; it is ignored", cfg->signing_key, jwt_key_kid(key));
	jwt_key_free(key);
}

/*
 * The keys a store lacks, sealed into rows[0..*n): into an empty store the
 * signing_key file's key (created if missing, as before the store held keys)
 * and a new RSA key; else a new key of any alg without a published one.
 */
static int rows_missing(const struct keyring *r, const struct key_rows *all, int64_t now,
                        struct key_row rows[JWT_ALG_COUNT], size_t *n, char *errbuf,
                        size_t errlen)
{
	*n = 0;
	for (int a = 0; a < JWT_ALG_COUNT; a++) {
		enum jwt_alg alg = (enum jwt_alg)a;
		struct jwt_key *key;

		if (key_schedule_count(all->rows, all->count, alg, now) > 0)
			continue;
		if (alg == JWT_ES256 && all->count == 0)
			key = jwt_key_load_or_create(r->cfg->signing_key, errbuf, errlen);
		else
			key = jwt_key_generate(alg, errbuf, errlen);
		if (!key) {
			rows_free(rows, *n);
			return -1;
		}
		row_for(r, key, now, now, &rows[(*n)++]);
		jwt_key_free(key);
	}
	return 0;
}

/* Adds the keys the store lacks; warns about a signing_key file it ignores. */
static int store_fill(struct keyring *r, struct store *st, char *errbuf, size_t errlen)
{
	struct key_rows all;
	struct key_row rows[JWT_ALG_COUNT];
	struct api_error err;
	int64_t now = now_ms();
	size_t n;
	int rc = 0;

	if (store_keys_list(st, &all, &err) < 0) {
		snprintf(errbuf, errlen, "%s", err.description);
		return -1;
	}
	if (all.count > 0)
		file_key_check(r->cfg, &all);
	if (rows_missing(r, &all, now, rows, &n, errbuf, errlen) < 0) {
		rc = -1;
	} else {
		if (n > 0 && store_keys_add(st, rows, n, true, keyring_lifetime_ms(r->cfg), &err) < 0) {
			snprintf(errbuf, errlen, "%s", err.description);
			rc = -1;
		}
		rows_free(rows, n);
	}
	store_keys_rows_release(&all);
	return rc;
}

struct keyring *keyring_open(const struct config *cfg, struct store *st, char *errbuf,
                             size_t errlen)
{
	struct keyring *r = xcalloc(1, sizeof *r);
	struct key_rows rows = { 0 };
	bool changed;
	struct sync_result done;

	r->cfg = cfg;
	r->version = INT64_MIN;
	if (kek_load(cfg->key_encryption_key_file, r->kek, errbuf, errlen) < 0 ||
	    store_fill(r, st, errbuf, errlen) < 0)
		goto fail;
	store_keys_changed(st, r->version, now_ms(), &rows, &changed, sync_completion(&done));
	if (done.failed) {
		snprintf(errbuf, errlen, "%s", done.err.description);
		goto fail;
	}
	if (ring_install(r, &rows, true, errbuf, errlen) < 0)
		goto fail;
	store_keys_rows_release(&rows);
	r->at = store_stamp(st);
	return r;
fail:
	store_keys_rows_release(&rows);
	keyring_free(r);
	return NULL;
}

/* ---- the refresh, as a nested flow ---- */

static struct keyring_refresh *refresh_of(struct flow *f)
{
	return container_of(f, struct keyring_refresh, flow);
}

static enum step_result refresh_read(struct flow *f)
{
	struct keyring_refresh *c = refresh_of(f);

	/* the stamp before the read: a change that the read may miss moves it */
	c->at = store_stamp(c->store);
	if (!c->force && store_stamp_equal(c->at, c->ring->at))
		return STEP_DONE;
	store_keys_changed(c->store, c->ring->version, now_ms(), &c->rows, &c->changed,
	                   flow_completion(f));
	return STEP_WAIT;
}

static enum step_result refresh_install(struct flow *f)
{
	struct keyring_refresh *c = refresh_of(f);
	char errbuf[300];

	if (c->changed)
		ring_install(c->ring, &c->rows, false, errbuf, sizeof errbuf);
	store_keys_rows_release(&c->rows);
	c->ring->at = c->at;
	return STEP_DONE;
}

static void refresh_finish(struct flow *f, enum step_result r)
{
	struct keyring_refresh *c = refresh_of(f);

	complete(c->done, r == STEP_DONE ? 0 : -1, &f->err);
}

void keyring_refresh(struct keyring_refresh *c, struct keyring *ring, struct store *st,
                     bool force, struct completion done)
{
	static flow_step *const steps[] = { refresh_read, refresh_install, NULL };

	keyring_refresh_release(c);
	c->ring = ring;
	c->store = st;
	c->force = force;
	c->changed = false;
	c->done = done;
	flow_run(&c->flow, steps, refresh_finish);
}

void keyring_refresh_release(struct keyring_refresh *c)
{
	store_keys_rows_release(&c->rows);
}

char *keyring_seal_text(const struct keyring *r, const char *aad, const unsigned char *pt,
                        size_t len)
{
	size_t sealed_len;
	unsigned char *sealed = crypto_seal(r->kek, aad, pt, len, &sealed_len);
	char *text = b64url_encode(sealed, sealed_len);

	free(sealed);
	return text;
}

char *keyring_seal_fields(const struct keyring *r, const char *aad, const char *fmt, ...)
{
	va_list ap;
	char *plain, *text;

	va_start(ap, fmt);
	plain = xvasprintf(fmt, ap);
	va_end(ap);
	text = keyring_seal_text(r, aad, (const unsigned char *)plain, strlen(plain));
	crypto_free_wiped(plain);
	return text;
}

unsigned char *keyring_open_text(const struct keyring *r, const char *aad, const char *text,
                                 size_t *len)
{
	size_t sealed_len;
	unsigned char *sealed = text ? b64url_decode_any(text, strlen(text), &sealed_len) : NULL;
	unsigned char *pt = sealed ? crypto_open(r->kek, aad, sealed, sealed_len, len) : NULL;

	free(sealed);
	return pt;
}

char *keyring_open_fields(const struct keyring *r, const char *aad, const char *text,
                          char **fields, size_t n)
{
	size_t len = 0, i = 0;
	unsigned char *raw = keyring_open_text(r, aad, text, &len);
	char *plain, *p;

	if (!raw)
		return NULL;
	plain = xstrndup((const char *)raw, len);
	crypto_free_wiped(raw);
	for (p = plain; i < n && p; i++)
		fields[i] = strsep(&p, "\n");
	if (i == n && !p)
		return plain;
	crypto_free_wiped(plain);
	return NULL;
}
