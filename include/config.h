#ifndef EDGEAUTH_CONFIG_H
#define EDGEAUTH_CONFIG_H
/* The INI configuration of docs/operations.md §"Configuration", parsed once at start into a plain
 * struct that is read-only afterwards. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"

struct cidr;

struct config {
	/* [server] */
	char *listen_host;        /* "127.0.0.1", "::1" */
	int listen_port;
	char *issuer;             /* absolute URL, no trailing slash */
	long max_body_bytes;
	long max_header_bytes;
	int request_timeout_s;
	int stop_grace_s;         /* SIGTERM: requests in flight finish within this */
	int max_connections;
	int max_connections_per_address;   /* open at once from one client address */
	char **cors_origins;      /* NULL-terminated */
	/* Only from these is X-Forwarded-For believed (docs/operations.md §"Client address behind a proxy"). */
	struct cidr *trusted_proxies;
	size_t trusted_proxies_count;
	/* TLS on the listener (docs/operations.md §"TLS"): both set, or both NULL */
	char *tls_cert;           /* PEM: the certificate, then its chain */
	char *tls_key;            /* PEM private key, mode 0600 */
	long hsts_max_age_s;      /* 0: no Strict-Transport-Security */
	/* [store] */
	char *store_path;
	bool synchronous_full;
	bool store_postgres;      /* backend = postgres (docs/operations.md §"A fleet on PostgreSQL") */
	char *store_url;          /* a libpq connection string or URI; "" for none */
	int pool_size;            /* connections to PostgreSQL */
	int pg_timeout_ms;        /* a batch unanswered this long fails (503) */
	bool insecure_transport;  /* a TCP url may go without sslmode=verify-full */
	/* [tokens] */
	long access_ttl_s;
	long refresh_ttl_s;
	long code_ttl_s;
	int purge_interval_s;     /* how often expired codes and tokens are deleted */
	long purge_grace_s;       /* how long after expiry they are kept */
	char *signing_key;
	char *key_encryption_key_file;   /* seals the signing keys in the store */
	long key_activation_delay_s;     /* a rotated key signs this long after it is published */
	int refresh_reuse_grace_s;       /* a rotated refresh token may be used once more this long */
	int max_rotations_per_minute;    /* of one sign-in (family), in the last minute */
	/* [passwords] */
	uint32_t argon2_memory_kib;
	uint32_t argon2_iterations;
	uint32_t argon2_parallelism;
	int hash_threads;
	int max_pending_hashes;
	/* [signin] */
	int signin_max_failures;             /* per account and address, within the window */
	int signin_max_failures_per_account; /* per account, over all addresses */
	int signin_max_failures_per_address; /* per client address */
	int signin_window_s;
	int signin_tracked_keys;             /* slots of each counter table */
	/* [sessions] */
	long session_ttl_s;       /* a session lasts this long from its last password check */
	int max_codes_per_minute; /* codes one session is given in the last minute */
	/* [device] (docs/device.md) */
	long device_code_ttl_s;   /* a device authorization lives this long */
	int device_interval_s;    /* the first polling interval it is given */
	/* [oidc] */
	long id_token_ttl_s;
	/* where back-channel logouts may go (CIDRs); none: the default rules
	 * of backchannel.h */
	struct cidr *backchannel_allow;
	size_t backchannel_allow_count;
	long backchannel_poll_ms;   /* the outbox is read at least this often */
	/* [metrics] */
	char *metrics_host;       /* NULL: no metrics listener */
	int metrics_port;
	/* [log] */
	enum log_format log_format;          /* text (docs/operations.md §"The program"'s line) or json */
	/* what check-config shows: the file read, and each key's text as it took
	 * effect (the table's order; the default when the file has none) */
	char *source;
	char **values;
	/* [audit] (docs/operations.md §"Audit trail") */
	int audit_retention_days;   /* events older than this are purged */
	char *audit_file;           /* each event also appended here; NULL: none */
};

/* How a key's value is read. */
enum config_type {
	CONFIG_INT,      /* an int field: a whole number in min..max */
	CONFIG_LONG,     /* a long field, the same */
	CONFIG_U32,      /* a uint32_t field, the same */
	CONFIG_STRING,   /* a char * field, owned, never empty */
	CONFIG_OPTIONAL_STRING,   /* a char * field, owned; NULL when the value is empty */
	CONFIG_PARSED,   /* .parse reads it into the fields it knows, .release frees them */
};

#define CONFIG_REASON_MAX 160

/* One key of the file: the table in config_keys.c holds every key, and is
 * the only place a key, its type, range and default are written. */
struct config_key {
	const char *section;
	const char *key;
	enum config_type type;
	size_t offset;               /* offsetof(struct config, field); not for CONFIG_PARSED */
	long min, max;               /* the number types */
	const char *default_value;   /* the text docs/configuration.md shows, and etc/edgeauth.conf */
	const char *conf_value;      /* what etc/edgeauth.conf sets instead, or NULL */
	/* CONFIG_PARSED: 0, or -1 with the reason. */
	int (*parse)(struct config *cfg, const char *value, char reason[CONFIG_REASON_MAX]);
	void (*release)(struct config *cfg);   /* CONFIG_PARSED, NULL when nothing is owned */
	bool secret;   /* a value that may hold a password: check-config masks it */
	/* a file (a string type): a relative value is taken relative to the
	 * config file's directory (config_load) */
	bool path;
	bool reload;   /* a SIGHUP reload applies a change (config_reload); else at restart */
};

/* The table (config_keys.c), in the order of etc/edgeauth.conf, and its
 * number of keys. */
extern const struct config_key config_key_table[];
extern const size_t config_key_count;
/* The same: the table, *count keys. */
const struct config_key *config_keys(size_t *count);

/* Fills cfg with the defaults of docs/operations.md §"Configuration" (the table's). */
void config_init(struct config *cfg);
/* Reads path over the defaults. On a missing file, an unknown section or
 * key, or a bad value returns -1 with "FILE:LINE: reason" in errbuf. */
int config_load(struct config *cfg, const char *path, char *errbuf, size_t errlen);
void config_release(struct config *cfg);
/* SIGHUP (docs/operations.md §"Reload"): reads path whole into a new
 * config; when it is valid, each key marked .reload whose text changed is
 * applied to cfg in place (a TLS pair only while TLS stays on: a listener
 * gets or loses TLS at a restart), and changed(k, applied, arg) is called
 * for every key whose text changed. A file that fails config_load changes
 * nothing: -1 with its reason in errbuf. Loop thread only. */
int config_reload(struct config *cfg, const char *path,
                  void (*changed)(const struct config_key *k, bool applied, void *arg), void *arg,
                  char *errbuf, size_t errlen);
/* The effective config as INI text, every key of the table with its value
 * (secrets masked), for check-config. Caller frees. */
char *config_dump(const struct config *cfg);
/* value with any password masked: a URL's userinfo password
 * (scheme://user:***@host) and a libpq keyword password=*** (docs/operations.md
 * §"A fleet on PostgreSQL"). Caller frees. */
char *config_mask_secret(const char *value);
/* True when the listener speaks TLS ([server] tls_cert and tls_key set).
 * Its answers then carry Strict-Transport-Security (hsts_max_age_s > 0). */
bool config_tls_enabled(const struct config *cfg);
/* True when the issuer is an https URL: browsers reach edgeauth over TLS,
 * its own (config_tls_enabled) or a reverse proxy's, so cookies can be
 * Secure and __Host- prefixed. */
bool config_issuer_https(const struct config *cfg);
/* True when origin is one of [server] cors_origins. */
bool config_cors_allowed(const struct config *cfg, const char *origin);

#endif
