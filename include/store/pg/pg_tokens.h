#ifndef EDGEAUTH_PG_TOKENS_H
#define EDGEAUTH_PG_TOKENS_H
/* What store_tokens.h does on PostgreSQL (store_pg.h): codes, refresh
 * tokens and their single use, revocation, the bearer checks, and what
 * token issue reads of a user. */
#include "store_tokens.h"

void pg_code_insert(struct store *st, const struct new_code *c, struct completion done);
void pg_code_get(struct store *st, const char *hash, struct store_token_row *out,
                 struct completion done);
void pg_refresh_get(struct store *st, const char *hash, struct store_token_row *out,
                    struct completion done);
void pg_code_redeem(struct store *st, const char *hash, const struct new_refresh *next,
                    bool *won, struct completion done);
void pg_refresh_rotate(struct store *st, const char *hash, const struct new_refresh *next,
                       bool *won, struct completion done);
void pg_refresh_regrace(struct store *st, const char *hash, int64_t since,
                        const struct new_refresh *next, bool *won, struct completion done);
void pg_family_revoke(struct store *st, const char *family_id, const struct event *ev,
                      struct completion done);
void pg_access_revoke(struct store *st, const char *jti, long long exp_s,
                      const struct event *ev, struct completion done);
int pg_purge_expired(struct store *st, int batch, int64_t now, int64_t grace_ms,
                     struct api_error *err);
void pg_user_claims(struct store *st, const char *project_id, const char *user_id,
                    struct user_claims *out, struct completion done);
void pg_token_holders_ok(struct store *st, const char *project_id, const char *client_id,
                         const char *user_id, long long iat_s, bool *ok,
                         struct completion done);
void pg_token_is_revoked(struct store *st, const char *jti, bool *revoked,
                         struct store_stamp *stamp, struct completion done);

#endif
