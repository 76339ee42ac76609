/*
 * A new set of recovery codes (recovery_batch.h). A code's text exists
 * only while its page is written; the store gets its hash.
 */
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>

#include "metrics.h"
#include "recovery_batch.h"
#include "store_factors.h"
#include "util.h"

void recovery_batch_release(struct recovery_batch *b)
{
	OPENSSL_cleanse(b->codes, sizeof b->codes);
	free(b->hashes);
	b->hashes = NULL;
}

void recovery_batch_store(struct store *st, const struct event_origin *by,
                          const char *project_id, const char *user_id, struct recovery_batch *b,
                          struct completion done)
{
	size_t len = FACTOR_RECOVERY_CODES * (SECRET_HASH_LEN + 1) + 1;

	b->hashes = xcalloc(1, len);
	for (size_t i = 0; i < FACTOR_RECOVERY_CODES; i++) {
		char hash[SECRET_HASH_LEN + 1];
		factor_recovery_new(b->codes[i]);
		factor_recovery_hash(b->codes[i], hash);
		if (i)
			strcat(b->hashes, " ");
		strcat(b->hashes, hash);
	}
	b->event = (struct event){ by, project_id, EVENT_FACTOR_RECOVERY_CODES, user_id, NULL };
	metrics_recovery(METRICS_RECOVERY_ISSUED);
	store_recovery_set(st, user_id, b->hashes, &b->event, done);
}
