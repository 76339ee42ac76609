/* The configuration's table of keys (config.h: config_key_table): each
 * key's section, name, type, range, default and whether a reload applies
 * it, and the parsers of the values that are more than a number or a
 * string. config.c reads a file through this table; nothing about a key is
 * written anywhere else. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cidr.h"
#include "config.h"
#include "util.h"
#include "validate.h"

static void free_origins(char **origins)
{
	for (char **o = origins; o && *o; o++)
		free(*o);
	free(origins);
}

/* "host:port", "[v6]:port" into a new *host and *port. */
static int parse_host_port(const char *value, char **host_out, int *port_out,
                           char reason[CONFIG_REASON_MAX])
{
	const char *colon = strrchr(value, ':');
	const char *host = value;
	size_t host_len;
	long port;

	if (!colon || parse_long_range(colon + 1, 1, 65535, &port) < 0)
		goto bad;
	host_len = (size_t)(colon - value);
	if (host_len >= 2 && host[0] == '[' && host[host_len - 1] == ']') {
		host++;
		host_len -= 2;
	}
	if (host_len == 0 || (host == value && memchr(host, ':', host_len)))
		goto bad;   /* an IPv6 address needs brackets: [::1]:8080 */
	free(*host_out);
	*host_out = xstrndup(host, host_len);
	*port_out = (int)port;
	return 0;
bad:
	snprintf(reason, CONFIG_REASON_MAX, "expected HOST:PORT, e.g. 127.0.0.1:8080");
	return -1;
}

static int parse_listen(struct config *cfg, const char *value, char reason[CONFIG_REASON_MAX])
{
	return parse_host_port(value, &cfg->listen_host, &cfg->listen_port, reason);
}

/* Empty: no metrics listener. */
static int parse_metrics_listen(struct config *cfg, const char *value,
                                char reason[CONFIG_REASON_MAX])
{
	if (*value)
		return parse_host_port(value, &cfg->metrics_host, &cfg->metrics_port, reason);
	free(cfg->metrics_host);
	cfg->metrics_host = NULL;
	return 0;
}

static void release_metrics_listen(struct config *cfg)
{
	free(cfg->metrics_host);
}

static void release_listen(struct config *cfg)
{
	free(cfg->listen_host);
}

static int parse_issuer(struct config *cfg, const char *value, char reason[CONFIG_REASON_MAX])
{
	size_t n = strlen(value);

	if (!validate_http_url(value) || value[n - 1] == '/' || strchr(value, '?') ||
	    strchr(value, '#')) {
		snprintf(reason, CONFIG_REASON_MAX,
		         "expected an absolute http(s) URL without a trailing slash");
		return -1;
	}
	free(cfg->issuer);
	cfg->issuer = xstrdup(value);
	return 0;
}

static void release_issuer(struct config *cfg)
{
	free(cfg->issuer);
}

/* Space- or tab-separated; empty is no origin at all. */
static int parse_origins(struct config *cfg, const char *value, char reason[CONFIG_REASON_MAX])
{
	char *copy = xstrdup(value), *save = NULL, *tok;
	size_t n = 0;

	(void)reason;   /* any list will do */
	free_origins(cfg->cors_origins);
	cfg->cors_origins = xcalloc(1, sizeof(char *));
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		cfg->cors_origins = xrealloc(cfg->cors_origins, (n + 2) * sizeof(char *));
		cfg->cors_origins[n++] = xstrdup(tok);
		cfg->cors_origins[n] = NULL;
	}
	free(copy);
	return 0;
}

static void release_origins(struct config *cfg)
{
	free_origins(cfg->cors_origins);
}

/* Space- or tab-separated CIDRs into *list, *n; empty is none. */
static int parse_cidrs(const char *value, struct cidr **list, size_t *n,
                       char reason[CONFIG_REASON_MAX])
{
	struct cidr *parsed;
	size_t count;

	if (cidr_parse_list(value, &parsed, &count, reason, CONFIG_REASON_MAX) < 0)
		return -1;
	free(*list);
	*list = parsed;
	*n = count;
	return 0;
}

static int parse_trusted_proxies(struct config *cfg, const char *value,
                                 char reason[CONFIG_REASON_MAX])
{
	return parse_cidrs(value, &cfg->trusted_proxies, &cfg->trusted_proxies_count, reason);
}

static void release_trusted_proxies(struct config *cfg)
{
	free(cfg->trusted_proxies);
}

static int parse_synchronous(struct config *cfg, const char *value,
                             char reason[CONFIG_REASON_MAX])
{
	if (strcmp(value, "full") != 0 && strcmp(value, "normal") != 0) {
		snprintf(reason, CONFIG_REASON_MAX, "synchronous must be full or normal");
		return -1;
	}
	cfg->synchronous_full = !strcmp(value, "full");
	return 0;
}

static int parse_backend(struct config *cfg, const char *value, char reason[CONFIG_REASON_MAX])
{
	if (strcmp(value, "sqlite") != 0 && strcmp(value, "postgres") != 0) {
		snprintf(reason, CONFIG_REASON_MAX, "backend must be sqlite or postgres");
		return -1;
	}
	cfg->store_postgres = !strcmp(value, "postgres");
	return 0;
}

/* Any text: what it must be is checked once the whole file is read
 * (check_store_url), since that depends on [store] backend and
 * insecure_transport. */
static int parse_url(struct config *cfg, const char *value, char reason[CONFIG_REASON_MAX])
{
	(void)reason;
	free(cfg->store_url);
	cfg->store_url = xstrdup(value);
	return 0;
}

static void release_url(struct config *cfg)
{
	free(cfg->store_url);
}

static int parse_insecure_transport(struct config *cfg, const char *value,
                                    char reason[CONFIG_REASON_MAX])
{
	if (parse_bool(value, &cfg->insecure_transport) < 0) {
		snprintf(reason, CONFIG_REASON_MAX, "expected true or false");
		return -1;
	}
	return 0;
}

static int parse_log_format(struct config *cfg, const char *value,
                            char reason[CONFIG_REASON_MAX])
{
	if (strcmp(value, "text") != 0 && strcmp(value, "json") != 0) {
		snprintf(reason, CONFIG_REASON_MAX, "format must be text or json");
		return -1;
	}
	cfg->log_format = !strcmp(value, "json") ? LOG_JSON : LOG_TEXT;
	return 0;
}

/* Empty is none (the default rules of backchannel.h). */
static int parse_backchannel_allow(struct config *cfg, const char *value,
                                   char reason[CONFIG_REASON_MAX])
{
	return parse_cidrs(value, &cfg->backchannel_allow, &cfg->backchannel_allow_count, reason);
}

static void release_backchannel_allow(struct config *cfg)
{
	free(cfg->backchannel_allow);
}

/* A field's offset, once the compiler has checked that the field has the C
 * type its row's CONFIG_ type writes (a mismatch would write past it). */
#define FIELD(name, ctype) (offsetof(struct config, name) + 0 * sizeof(struct { \
	_Static_assert(_Generic(((struct config *)0)->name, ctype: 1, default: 0), \
	               "config field " #name " is not " #ctype); char c; }))
#define INT_FIELD(name) .type = CONFIG_INT, .offset = FIELD(name, int)
#define LONG_FIELD(name) .type = CONFIG_LONG, .offset = FIELD(name, long)
#define U32_FIELD(name) .type = CONFIG_U32, .offset = FIELD(name, uint32_t)
#define STRING_FIELD(name) .type = CONFIG_STRING, .offset = FIELD(name, char *)
#define OPTIONAL_STRING_FIELD(name) .type = CONFIG_OPTIONAL_STRING, .offset = FIELD(name, char *)
#define DAY_S (24L * 3600)

/*
 * Every key: its section, name, type, range and default, and nothing about
 * a key anywhere else (tmux's options-table.c is the model). The defaults
 * are docs/operations.md §"Configuration"'s, written as in the file; check_config tests that
 * etc/edgeauth.conf and docs/configuration.md's table show exactly these.
 */
const struct config_key config_key_table[] = {
	{ .section = "server", .key = "listen", .type = CONFIG_PARSED, .parse = parse_listen,
	  .release = release_listen, .default_value = "127.0.0.1:8080" },
	{ .section = "server", .key = "issuer", .type = CONFIG_PARSED, .parse = parse_issuer,
	  .release = release_issuer, .default_value = "http://127.0.0.1:8080" },
	{ .section = "server", .key = "max_body_bytes", LONG_FIELD(max_body_bytes),
	  .min = 1024, .max = 64L * 1024 * 1024, .default_value = "65536" },
	{ .section = "server", .key = "max_header_bytes", LONG_FIELD(max_header_bytes),
	  .min = 1024, .max = 1024L * 1024, .default_value = "16384" },
	{ .section = "server", .key = "request_timeout_s", INT_FIELD(request_timeout_s),
	  .min = 1, .max = 3600, .default_value = "10" },
	{ .section = "server", .key = "stop_grace_s", INT_FIELD(stop_grace_s),
	  .min = 1, .max = 3600, .default_value = "5" },
	{ .section = "server", .key = "max_connections", INT_FIELD(max_connections),
	  .min = 1, .max = 1000000, .default_value = "1024" },
	{ .section = "server", .key = "max_connections_per_address",
	  INT_FIELD(max_connections_per_address), .min = 1, .max = 1000000, .default_value = "64" },
	{ .section = "server", .key = "cors_origins", .reload = true, .type = CONFIG_PARSED,
	  .parse = parse_origins, .release = release_origins, .default_value = "" },
	{ .section = "server", .key = "trusted_proxies", .reload = true, .type = CONFIG_PARSED,
	  .parse = parse_trusted_proxies, .release = release_trusted_proxies, .default_value = "" },
	{ .section = "server", .key = "tls_cert", .reload = true, OPTIONAL_STRING_FIELD(tls_cert),
	  .default_value = "", .path = true },
	{ .section = "server", .key = "tls_key", .reload = true, OPTIONAL_STRING_FIELD(tls_key),
	  .default_value = "", .path = true },
	{ .section = "server", .key = "hsts_max_age_s", .reload = true, LONG_FIELD(hsts_max_age_s),
	  .min = 0, .max = 2 * 365 * DAY_S, .default_value = "0" },

	{ .section = "store", .key = "path", STRING_FIELD(store_path),
	  .default_value = "var/edgeauth.db", .conf_value = "../var/edgeauth.db", .path = true },
	{ .section = "store", .key = "synchronous", .type = CONFIG_PARSED,
	  .parse = parse_synchronous, .default_value = "full" },
	{ .section = "store", .key = "backend", .type = CONFIG_PARSED,
	  .parse = parse_backend, .default_value = "sqlite" },
	{ .section = "store", .key = "url", .type = CONFIG_PARSED, .parse = parse_url,
	  .release = release_url, .default_value = "", .secret = true },
	{ .section = "store", .key = "pool_size", INT_FIELD(pool_size),
	  .min = 1, .max = 64, .default_value = "4" },
	{ .section = "store", .key = "pg_timeout_ms", INT_FIELD(pg_timeout_ms),
	  .min = 250, .max = 60000, .default_value = "3000" },
	{ .section = "store", .key = "insecure_transport", .type = CONFIG_PARSED,
	  .parse = parse_insecure_transport, .default_value = "false" },

	{ .section = "tokens", .key = "access_ttl_s", .reload = true, LONG_FIELD(access_ttl_s),
	  .min = 1, .max = 31 * DAY_S, .default_value = "900" },
	{ .section = "tokens", .key = "refresh_ttl_s", .reload = true, LONG_FIELD(refresh_ttl_s),
	  .min = 1, .max = 3650 * DAY_S, .default_value = "2592000" },
	{ .section = "tokens", .key = "code_ttl_s", .reload = true, LONG_FIELD(code_ttl_s),
	  .min = 1, .max = 3600, .default_value = "60" },
	{ .section = "tokens", .key = "purge_interval_s", .reload = true, INT_FIELD(purge_interval_s),
	  .min = 1, .max = 86400, .default_value = "30" },
	{ .section = "tokens", .key = "purge_grace_s", .reload = true, LONG_FIELD(purge_grace_s),
	  .min = 0, .max = 3650 * DAY_S, .default_value = "86400" },
	{ .section = "tokens", .key = "signing_key", STRING_FIELD(signing_key),
	  .default_value = "var/signing-key.pem", .conf_value = "../var/signing-key.pem",
	  .path = true },
	{ .section = "tokens", .key = "key_encryption_key_file",
	  STRING_FIELD(key_encryption_key_file), .default_value = "var/key-encryption.key",
	  .conf_value = "../var/key-encryption.key", .path = true },
	{ .section = "tokens", .key = "key_activation_delay_s", .reload = true,
	  LONG_FIELD(key_activation_delay_s),
	  .min = 0, .max = 30 * DAY_S, .default_value = "3600" },
	{ .section = "tokens", .key = "refresh_reuse_grace_s", .reload = true,
	  INT_FIELD(refresh_reuse_grace_s),
	  .min = 0, .max = 60, .default_value = "0" },
	{ .section = "tokens", .key = "max_rotations_per_minute", .reload = true,
	  INT_FIELD(max_rotations_per_minute), .min = 1, .max = 1000000, .default_value = "30" },

	{ .section = "passwords", .key = "argon2_memory_kib", U32_FIELD(argon2_memory_kib),
	  .min = 8, .max = 4L * 1024 * 1024, .default_value = "19456" },
	{ .section = "passwords", .key = "argon2_iterations", U32_FIELD(argon2_iterations),
	  .min = 1, .max = 100, .default_value = "2" },
	{ .section = "passwords", .key = "argon2_parallelism", U32_FIELD(argon2_parallelism),
	  .min = 1, .max = 64, .default_value = "1" },
	{ .section = "passwords", .key = "hash_threads", INT_FIELD(hash_threads),
	  .min = 1, .max = 64, .default_value = "2" },
	{ .section = "passwords", .key = "max_pending_hashes", INT_FIELD(max_pending_hashes),
	  .min = 1, .max = 100000, .default_value = "256" },

	{ .section = "signin", .key = "max_failures", .reload = true, INT_FIELD(signin_max_failures),
	  .min = 1, .max = 1000000, .default_value = "10" },
	{ .section = "signin", .key = "max_failures_per_account", .reload = true,
	  INT_FIELD(signin_max_failures_per_account), .min = 1, .max = 1000000,
	  .default_value = "100" },
	{ .section = "signin", .key = "max_failures_per_address", .reload = true,
	  INT_FIELD(signin_max_failures_per_address), .min = 1, .max = 1000000,
	  .default_value = "100" },
	{ .section = "signin", .key = "window_s", .reload = true, INT_FIELD(signin_window_s),
	  .min = 1, .max = 86400, .default_value = "300" },
	{ .section = "signin", .key = "tracked_keys", INT_FIELD(signin_tracked_keys),
	  .min = 16, .max = 10000000, .default_value = "4096" },

	{ .section = "sessions", .key = "ttl_s", .reload = true, LONG_FIELD(session_ttl_s),
	  .min = 1, .max = 365 * DAY_S, .default_value = "28800" },
	{ .section = "sessions", .key = "max_codes_per_minute", .reload = true,
	  INT_FIELD(max_codes_per_minute),
	  .min = 1, .max = 1000000, .default_value = "30" },

	{ .section = "oidc", .key = "id_token_ttl_s", .reload = true, LONG_FIELD(id_token_ttl_s),
	  .min = 1, .max = 31 * DAY_S, .default_value = "3600" },
	{ .section = "oidc", .key = "backchannel_allow", .reload = true, .type = CONFIG_PARSED,
	  .parse = parse_backchannel_allow, .release = release_backchannel_allow,
	  .default_value = "" },
	{ .section = "oidc", .key = "backchannel_poll_ms", LONG_FIELD(backchannel_poll_ms),
	  .min = 100, .max = 3600000, .default_value = "1000" },

	{ .section = "device", .key = "code_ttl_s", .reload = true, LONG_FIELD(device_code_ttl_s),
	  .min = 60, .max = 1800, .default_value = "600" },
	{ .section = "device", .key = "interval_s", .reload = true, INT_FIELD(device_interval_s),
	  .min = 1, .max = 60, .default_value = "5" },

	{ .section = "metrics", .key = "listen", .type = CONFIG_PARSED,
	  .parse = parse_metrics_listen, .release = release_metrics_listen, .default_value = "",
	  .conf_value = "127.0.0.1:9464" },

	{ .section = "log", .key = "format", .reload = true, .type = CONFIG_PARSED,
	  .parse = parse_log_format,
	  .default_value = "text" },

	{ .section = "audit", .key = "retention_days", .reload = true, INT_FIELD(audit_retention_days),
	  .min = 1, .max = 36500, .default_value = "90" },
	{ .section = "audit", .key = "file", .reload = true, OPTIONAL_STRING_FIELD(audit_file),
	  .default_value = "", .path = true },
};

const size_t config_key_count = sizeof config_key_table / sizeof config_key_table[0];
