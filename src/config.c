/* Configuration: one table of keys with their defaults, and inih over it.
 * Any key we do not know, or a value we cannot use, stops the program: a
 * typo must not pass silently. */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ini.h>

#include "cidr.h"
#include "config.h"
#include "pg_url.h"
#include "util.h"
#include "validate.h"

struct load_state {
	struct config *cfg;
	FILE *file;
	int lineno;          /* lines handed to inih so far */
	int bad_line;        /* the first line we refused, 0 for none */
	char reason[CONFIG_REASON_MAX];         /* why, for bad_line */
	char entry_reason[CONFIG_REASON_MAX];
	int *key_line;       /* per key of the table: the line that set it, 0 for none */
};

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
static const struct config_key keys[] = {
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

#define KEY_COUNT (sizeof keys / sizeof keys[0])

const struct config_key *config_keys(size_t *count)
{
	*count = KEY_COUNT;
	return keys;
}

static void *field_of(struct config *cfg, const struct config_key *k)
{
	return (char *)cfg + k->offset;
}

/* An empty value is refused unless optional, and then clears the field. */
static int set_string(char **field, const char *value, bool optional,
                      char reason[CONFIG_REASON_MAX])
{
	if (!*value && !optional) {
		snprintf(reason, CONFIG_REASON_MAX, "must not be empty");
		return -1;
	}
	free(*field);
	*field = *value ? xstrdup(value) : NULL;
	return 0;
}

static int set_number(const struct config_key *k, void *field, const char *value,
                      char reason[CONFIG_REASON_MAX])
{
	long v;

	if (parse_long_range(value, k->min, k->max, &v) < 0) {
		snprintf(reason, CONFIG_REASON_MAX, "expected a whole number from %ld to %ld",
		         k->min, k->max);
		return -1;
	}
	if (k->type == CONFIG_INT)
		*(int *)field = (int)v;
	else if (k->type == CONFIG_LONG)
		*(long *)field = v;
	else
		*(uint32_t *)field = (uint32_t)v;
	return 0;
}

/* Reads value into k's field(s) of cfg: 0, or -1 with the reason. */
static int apply(struct config *cfg, const struct config_key *k, const char *value,
                 char reason[CONFIG_REASON_MAX])
{
	int rc;

	if (k->type == CONFIG_PARSED)
		rc = k->parse(cfg, value, reason);
	else if (k->type == CONFIG_STRING || k->type == CONFIG_OPTIONAL_STRING)
		rc = set_string(field_of(cfg, k), value, k->type == CONFIG_OPTIONAL_STRING, reason);
	else
		rc = set_number(k, field_of(cfg, k), value, reason);
	if (rc == 0) {
		free(cfg->values[k - keys]);
		cfg->values[k - keys] = xstrdup(value);
	}
	return rc;
}

void config_init(struct config *cfg)
{
	char reason[CONFIG_REASON_MAX];

	memset(cfg, 0, sizeof *cfg);
	cfg->values = xcalloc(KEY_COUNT, sizeof *cfg->values);
	for (size_t i = 0; i < KEY_COUNT; i++) {
		int rc = apply(cfg, &keys[i], keys[i].default_value, reason);
		assert(rc == 0);   /* the table's own defaults */
		(void)rc;
	}
}

void config_release(struct config *cfg)
{
	for (size_t i = 0; i < KEY_COUNT; i++) {
		if (keys[i].type == CONFIG_STRING || keys[i].type == CONFIG_OPTIONAL_STRING)
			free(*(char **)field_of(cfg, &keys[i]));
		else if (keys[i].type == CONFIG_PARSED && keys[i].release)
			keys[i].release(cfg);
	}
	for (size_t i = 0; cfg->values && i < KEY_COUNT; i++)
		free(cfg->values[i]);
	free(cfg->values);
	free(cfg->source);
	memset(cfg, 0, sizeof *cfg);
}

static bool is_tls_pair(const struct config_key *k)
{
	return !strcmp(k->section, "server") &&
	       (!strcmp(k->key, "tls_cert") || !strcmp(k->key, "tls_key"));
}

/* Why in place: every reader of a reloadable key runs on the loop thread
 * and reads it from the config within one callback (a request's step, a
 * timer), never keeping a pointer into it across a wait; the one holder of
 * such a pointer, the back-channel policy, is refreshed by the caller in
 * the same callback (backchannel_allow_reloaded). So a value replaced here,
 * between two callbacks, frees nothing a request still reads, and no
 * second config has to be kept alive. The hash threads read only
 * [passwords], which never reloads. */
int config_reload(struct config *cfg, const char *path,
                  void (*changed)(const struct config_key *k, bool applied, void *arg), void *arg,
                  char *errbuf, size_t errlen)
{
	struct config next;
	char reason[CONFIG_REASON_MAX];
	bool tls_stays;

	config_init(&next);
	if (config_load(&next, path, errbuf, errlen) < 0) {
		config_release(&next);
		return -1;
	}
	tls_stays = config_tls_enabled(cfg) == config_tls_enabled(&next);
	for (size_t i = 0; i < KEY_COUNT; i++) {
		bool applied;

		if (!strcmp(cfg->values[i], next.values[i]))
			continue;
		applied = keys[i].reload && (tls_stays || !is_tls_pair(&keys[i]));
		if (applied) {
			int rc = apply(cfg, &keys[i], next.values[i], reason);
			assert(rc == 0);   /* the same text next took */
			(void)rc;
		}
		changed(&keys[i], applied, arg);
	}
	config_release(&next);
	return 0;
}

/* Replaces s[from, to) by "***" in *s (a new string). */
static void mask_span(char **s, size_t from, size_t to)
{
	char *masked = xasprintf("%.*s***%s", (int)from, *s, *s + to);

	free(*s);
	*s = masked;
}

char *config_mask_secret(const char *value)
{
	char *s = xstrdup(value), *p, *at, *colon;
	size_t search = 0;

	/* scheme://user:password@host */
	if ((p = strstr(s, "://")) && (at = strchr(p + 3, '@')) &&
	    (colon = memchr(p + 3, ':', (size_t)(at - p - 3))))
		mask_span(&s, (size_t)(colon + 1 - s), (size_t)(at - s));
	/* password=... in a keyword string or a URI's query */
	while ((p = strstr(s + search, "password=")) != NULL) {
		size_t from = (size_t)(p - s) + strlen("password="), to = from;

		while (s[to] && s[to] != ' ' && s[to] != '&')
			to++;
		mask_span(&s, from, to);
		search = from + 3;
	}
	return s;
}

/* Appends the printf of fmt to *out (a new string). */
static void append(char **out, const char *fmt, const char *a, const char *b)
{
	char *next = xasprintf(fmt, *out, a, b);

	free(*out);
	*out = next;
}

char *config_dump(const struct config *cfg)
{
	char *out = xasprintf("; %s: valid. Every key with the value in effect (defaults"
	                      " included); secrets masked.\n", cfg->source ? cfg->source : "defaults");

	for (size_t i = 0; i < KEY_COUNT; i++) {
		char *value = keys[i].secret ? config_mask_secret(cfg->values[i])
		                             : xstrdup(cfg->values[i]);

		if (i == 0 || strcmp(keys[i].section, keys[i - 1].section))
			append(&out, "%s\n[%s]%s\n", keys[i].section, "");
		append(&out, *value ? "%s%s = %s\n" : "%s%s =%s\n", keys[i].key, value);
		free(value);
	}
	return out;
}

bool config_tls_enabled(const struct config *cfg)
{
	return cfg->tls_cert != NULL;
}

bool config_issuer_https(const struct config *cfg)
{
	return cfg->issuer && !strncasecmp(cfg->issuer, "https://", 8);
}

bool config_cors_allowed(const struct config *cfg, const char *origin)
{
	for (char **o = cfg->cors_origins; origin && o && *o; o++)
		if (strcmp(*o, origin) == 0)
			return true;
	return false;
}

static bool known_section(const char *name, size_t len)
{
	for (size_t i = 0; i < KEY_COUNT; i++)
		if (strlen(keys[i].section) == len && !strncmp(name, keys[i].section, len))
			return true;
	return false;
}

static int handle_entry(struct load_state *ls, const char *section, const char *name,
                        const char *value)
{
	for (size_t i = 0; i < KEY_COUNT; i++)
		if (!strcmp(keys[i].section, section) && !strcmp(keys[i].key, name)) {
			ls->key_line[i] = ls->lineno;
			return apply(ls->cfg, &keys[i], value, ls->entry_reason) == 0;
		}
	if (known_section(section, strlen(section)))
		snprintf(ls->entry_reason, sizeof ls->entry_reason, "unknown key '%s' in [%s]", name,
		         section);
	else
		snprintf(ls->entry_reason, sizeof ls->entry_reason, "unknown section [%s]", section);
	return 0;
}

/* inih calls this for each name = value; the first refusal is kept with the
 * line the reader handed over last, which is the entry's own line. */
static int on_entry(void *user, const char *section, const char *name, const char *value)
{
	struct load_state *ls = user;

	ls->entry_reason[0] = '\0';
	if (handle_entry(ls, section, name, value))
		return 1;
	if (!ls->bad_line) {
		ls->bad_line = ls->lineno;
		snprintf(ls->reason, sizeof ls->reason, "%s", ls->entry_reason);
	}
	return 0;
}

static void refuse_line(struct load_state *ls, const char *reason)
{
	if (ls->bad_line)
		return;
	ls->bad_line = ls->lineno;
	snprintf(ls->reason, sizeof ls->reason, "%s", reason);
}

/* Feeds inih one line at a time so that we know the line number, and checks
 * what inih would pass over quietly: section names (an empty section never
 * reaches the handler), lines longer than inih's buffer, and indented lines
 * (inih would read them as continuations of the previous value). */
static char *read_line(char *str, int num, void *stream)
{
	struct load_state *ls = stream;
	char *line = fgets(str, num, ls->file), *p;
	size_t n;

	if (!line)
		return NULL;
	ls->lineno++;
	n = strlen(line);
	if (n == (size_t)num - 1 && line[n - 1] != '\n' && !feof(ls->file)) {
		char reason[64];
		int c;
		snprintf(reason, sizeof reason, "line longer than %d characters", num - 2);
		refuse_line(ls, reason);
		while ((c = fgetc(ls->file)) != EOF && c != '\n')
			;
	}
	if (ls->lineno == 1 && !strncmp(line, "\xEF\xBB\xBF", 3))
		memmove(line, line + 3, strlen(line + 3) + 1);
	p = line + strspn(line, " \t");
	if (p != line)
		memmove(line, p, strlen(p) + 1);
	if (line[0] == '[') {
		char *end = strchr(line, ']');
		if (end && !known_section(line + 1, (size_t)(end - line - 1))) {
			char reason[CONFIG_REASON_MAX];
			snprintf(reason, sizeof reason, "unknown section [%.*s]",
			         (int)(end - line - 1 > 100 ? 100 : end - line - 1), line + 1);
			refuse_line(ls, reason);
		}
	}
	return line;
}

/* The line of ls's file that set [section] key, 0 when none did. */
static int line_of(const struct load_state *ls, const char *section, const char *key)
{
	for (size_t i = 0; i < KEY_COUNT; i++)
		if (!strcmp(keys[i].section, section) && !strcmp(keys[i].key, key))
			return ls->key_line[i];
	return 0;
}

/* docs/operations.md §"A fleet on PostgreSQL": with backend = postgres, url is required and held to
 * pg_url_check's rules. 0, or -1 with "FILE:LINE: reason" naming url's line
 * (backend's when url is missing). */
static int check_store_url(const struct config *cfg, const struct load_state *ls,
                           const char *path, char *errbuf, size_t errlen)
{
	char reason[CONFIG_REASON_MAX];
	struct pg_url_info info;

	if (!cfg->store_postgres)
		return 0;
	if (!*cfg->store_url) {
		snprintf(errbuf, errlen, "%s:%d: backend = postgres needs [store] url", path,
		         line_of(ls, "store", "backend"));
		return -1;
	}
	if (pg_url_check(cfg->store_url, cfg->insecure_transport, &info, reason,
	                 sizeof reason) < 0) {
		snprintf(errbuf, errlen, "%s:%d: %s", path, line_of(ls, "store", "url"), reason);
		return -1;
	}
	return 0;
}

/* value, a relative path, taken relative to dir (absolute, no symbolic
 * links): its leading "./" and "../" are folded into dir, so that logs and
 * errors show the file's plain path. A new string. */
static char *path_under(const char *dir, const char *value)
{
	size_t n = strlen(dir);

	for (;;) {
		if (!strncmp(value, "./", 2)) {
			value += 2;
		} else if (!strncmp(value, "../", 3)) {
			value += 3;
			while (n > 1 && dir[n - 1] != '/')
				n--;
			if (n > 1)
				n--;   /* the slash, unless it is the root */
		} else {
			break;
		}
	}
	return n == 1 && dir[0] == '/' ? xasprintf("/%s", value)
	                               : xasprintf("%.*s/%s", (int)n, dir, value);
}

/* docs/operations.md §"Configuration": a relative path of a path key (its
 * default too) is taken relative to the directory of the config file at
 * path, never to the directory a command runs in, so that the server and a
 * command run elsewhere open the same files. 0, or -1 with the reason. */
static int resolve_paths(struct config *cfg, const char *path, char *errbuf, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char *named = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path))
	                    : xstrdup(".");
	char *dir = realpath(named, NULL);

	free(named);
	if (!dir) {
		snprintf(errbuf, errlen, "%s: cannot resolve the configuration file's directory: %s",
		         path, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < KEY_COUNT; i++) {
		char **field = keys[i].path ? field_of(cfg, &keys[i]) : NULL;

		if (field && *field && **field != '/') {
			char *resolved = path_under(dir, *field);

			free(*field);
			*field = resolved;
		}
	}
	free(dir);
	return 0;
}

int config_load(struct config *cfg, const char *path, char *errbuf, size_t errlen)
{
	int key_line[KEY_COUNT] = { 0 };
	struct load_state ls = { .cfg = cfg, .key_line = key_line };
	struct stat sb;
	int line;

	free(cfg->source);
	cfg->source = xstrdup(path);
	ls.file = fopen(path, "r");
	if (!ls.file || fstat(fileno(ls.file), &sb) < 0 || !S_ISREG(sb.st_mode)) {
		/* the system's reason, and what to do (docs/operations.md §"The program", start-up errors) */
		const char *why = ls.file ? "not a regular file" : strerror(errno);

		if (ls.file)
			fclose(ls.file);
		snprintf(errbuf, errlen, "%s: cannot open the configuration file: %s; pass -c FILE",
		         path, why);
		return -1;
	}
	line = ini_parse_stream(read_line, &ls, on_entry, &ls);
	fclose(ls.file);
	if (line < 0) {
		snprintf(errbuf, errlen, "%s: cannot read the configuration file", path);
		return -1;
	}
	/* inih's own errors are syntax; ours carry a reason. The first line wins. */
	if (ls.bad_line && (line == 0 || ls.bad_line <= line)) {
		snprintf(errbuf, errlen, "%s:%d: %s", path, ls.bad_line, ls.reason);
		return -1;
	}
	if (line > 0) {
		snprintf(errbuf, errlen, "%s:%d: syntax error", path, line);
		return -1;
	}
	/* docs/operations.md §"Metrics": the metrics never share the API's listener. */
	if (cfg->metrics_host && cfg->metrics_port == cfg->listen_port &&
	    !strcmp(cfg->metrics_host, cfg->listen_host)) {
		snprintf(errbuf, errlen, "%s: [metrics] listen must differ from [server] listen", path);
		return -1;
	}
	/* docs/operations.md §"TLS": TLS takes both files, and URLs of an https issuer */
	if (!cfg->tls_cert != !cfg->tls_key) {
		snprintf(errbuf, errlen, "%s: tls_cert and tls_key go together: set both, or neither",
		         path);
		return -1;
	}
	if (config_tls_enabled(cfg) && !config_issuer_https(cfg)) {
		snprintf(errbuf, errlen, "%s: with tls_cert and tls_key the issuer must be an https "
		         "URL, not %s", path, cfg->issuer);
		return -1;
	}
	/* argon2 refuses less than 8 KiB a lane; every hash would fail at run time. */
	if (cfg->argon2_memory_kib < 8 * cfg->argon2_parallelism) {
		snprintf(errbuf, errlen, "%s: argon2_memory_kib (%u) must be at least 8 times "
		         "argon2_parallelism (%u)", path, cfg->argon2_memory_kib,
		         cfg->argon2_parallelism);
		return -1;
	}
	if (check_store_url(cfg, &ls, path, errbuf, errlen) < 0)
		return -1;
	return resolve_paths(cfg, path, errbuf, errlen);
}
