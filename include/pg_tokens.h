#ifndef EDGEAUTH_PG_TOKENS_H
#define EDGEAUTH_PG_TOKENS_H
/* What store_tokens.h's revocation list and bearer checks do on PostgreSQL
 * (store_pg.h), and the reads of codes and refresh tokens (revocation reads
 * them); their writes are not ported yet. */
#include "store_tokens.h"

void pg_code_get(struct store *st, const char *hash, struct store_token_row *out,
                 struct completion done);
void pg_refresh_get(struct store *st, const char *hash, struct store_token_row *out,
                    struct completion done);
void pg_family_revoke(struct store *st, const char *family_id, struct completion done);
void pg_access_revoke(struct store *st, const char *jti, long long exp_s,
                      struct completion done);
int pg_purge_expired(struct store *st, int batch, int64_t grace_ms, struct api_error *err);
void pg_token_holders_ok(struct store *st, const char *project_id, const char *client_id,
                         const char *user_id, long long iat_s, bool *ok,
                         struct completion done);
void pg_token_is_revoked(struct store *st, const char *jti, bool *revoked,
                         struct store_stamp *stamp, struct completion done);

#endif
