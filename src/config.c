/* Configuration: the defaults, and inih over them. Any key we do not know, or
 * a value we cannot use, stops the program: a typo must not pass silently. */
#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ini.h>

#include "config.h"
#include "util.h"
#include "validate.h"

struct load_state {
	struct config *cfg;
	FILE *file;
	int lineno;          /* lines handed to inih so far */
	int bad_line;        /* the first line we refused, 0 for none */
	char reason[160];    /* why, for bad_line */
	char entry_reason[160];
};

void config_init(struct config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->listen_host = xstrdup("127.0.0.1");
	cfg->listen_port = 8080;
	cfg->issuer = xstrdup("http://127.0.0.1:8080");
	cfg->max_body_bytes = 65536;
	cfg->max_header_bytes = 16384;
	cfg->request_timeout_s = 10;
	cfg->max_connections = 1024;
	cfg->max_connections_per_address = 64;
	cfg->cors_origins = xcalloc(1, sizeof(char *));
	cfg->store_path = xstrdup("var/edgeauth.db");
	cfg->synchronous_full = true;
	cfg->access_ttl_s = 900;
	cfg->refresh_ttl_s = 2592000;
	cfg->code_ttl_s = 60;
	cfg->purge_interval_s = 30;
	cfg->purge_grace_s = 86400;
	cfg->signing_key = xstrdup("var/signing-key.pem");
	cfg->argon2_memory_kib = 19456;
	cfg->argon2_iterations = 2;
	cfg->argon2_parallelism = 1;
	cfg->hash_threads = 2;
	cfg->max_pending_hashes = 256;
	cfg->signin_max_failures = 10;
	cfg->signin_max_failures_per_address = 100;
	cfg->signin_window_s = 300;
	cfg->signin_tracked_keys = 4096;
}

static void free_origins(char **origins)
{
	for (char **o = origins; o && *o; o++)
		free(*o);
	free(origins);
}

void config_release(struct config *cfg)
{
	free(cfg->listen_host);
	free(cfg->issuer);
	free_origins(cfg->cors_origins);
	free(cfg->store_path);
	free(cfg->signing_key);
	memset(cfg, 0, sizeof *cfg);
}

bool config_cors_allowed(const struct config *cfg, const char *origin)
{
	for (char **o = cfg->cors_origins; origin && o && *o; o++)
		if (strcmp(*o, origin) == 0)
			return true;
	return false;
}

static int set_long(const char *value, long min, long max, long *out, struct load_state *ls)
{
	if (parse_long_range(value, min, max, out) < 0) {
		snprintf(ls->entry_reason, sizeof ls->entry_reason, "expected a whole number from %ld to %ld", min, max);
		return 0;
	}
	return 1;
}

static int set_int(const char *value, long min, long max, int *out, struct load_state *ls)
{
	long v;
	if (!set_long(value, min, max, &v, ls))
		return 0;
	*out = (int)v;
	return 1;
}

static int set_u32(const char *value, long min, long max, uint32_t *out, struct load_state *ls)
{
	long v;
	if (!set_long(value, min, max, &v, ls))
		return 0;
	*out = (uint32_t)v;
	return 1;
}

static int set_string(const char *value, char **out, struct load_state *ls)
{
	if (!*value) {
		snprintf(ls->entry_reason, sizeof ls->entry_reason, "must not be empty");
		return 0;
	}
	free(*out);
	*out = xstrdup(value);
	return 1;
}

/* "host:port", "[v6]:port". */
static int set_listen(const char *value, struct config *cfg, struct load_state *ls)
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
	free(cfg->listen_host);
	cfg->listen_host = xstrndup(host, host_len);
	cfg->listen_port = (int)port;
	return 1;
bad:
	snprintf(ls->entry_reason, sizeof ls->entry_reason, "expected HOST:PORT, e.g. 127.0.0.1:8080");
	return 0;
}

static int set_issuer(const char *value, struct config *cfg, struct load_state *ls)
{
	size_t n = strlen(value);
	if (!validate_http_url(value) || value[n - 1] == '/' || strchr(value, '?') ||
	    strchr(value, '#')) {
		snprintf(ls->entry_reason, sizeof ls->entry_reason,
		         "expected an absolute http(s) URL without a trailing slash");
		return 0;
	}
	return set_string(value, &cfg->issuer, ls);
}

static int set_origins(const char *value, struct config *cfg)
{
	char *copy = xstrdup(value), *save = NULL, *tok;
	size_t n = 0;

	free_origins(cfg->cors_origins);
	cfg->cors_origins = xcalloc(1, sizeof(char *));
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		cfg->cors_origins = xrealloc(cfg->cors_origins, (n + 2) * sizeof(char *));
		cfg->cors_origins[n++] = xstrdup(tok);
		cfg->cors_origins[n] = NULL;
	}
	free(copy);
	return 1;
}

static int handle_server(struct config *c, const char *name, const char *value, struct load_state *ls)
{
	if (!strcmp(name, "listen"))
		return set_listen(value, c, ls);
	if (!strcmp(name, "issuer"))
		return set_issuer(value, c, ls);
	if (!strcmp(name, "max_body_bytes"))
		return set_long(value, 1024, 64L * 1024 * 1024, &c->max_body_bytes, ls);
	if (!strcmp(name, "max_header_bytes"))
		return set_long(value, 1024, 1024L * 1024, &c->max_header_bytes, ls);
	if (!strcmp(name, "request_timeout_s"))
		return set_int(value, 1, 3600, &c->request_timeout_s, ls);
	if (!strcmp(name, "max_connections"))
		return set_int(value, 1, 1000000, &c->max_connections, ls);
	if (!strcmp(name, "max_connections_per_address"))
		return set_int(value, 1, 1000000, &c->max_connections_per_address, ls);
	if (!strcmp(name, "cors_origins"))
		return set_origins(value, c);
	snprintf(ls->entry_reason, sizeof ls->entry_reason, "unknown key '%s' in [server]", name);
	return 0;
}

static int handle_store(struct config *c, const char *name, const char *value, struct load_state *ls)
{
	if (!strcmp(name, "path"))
		return set_string(value, &c->store_path, ls);
	if (!strcmp(name, "synchronous")) {
		if (!strcmp(value, "full") || !strcmp(value, "normal")) {
			c->synchronous_full = !strcmp(value, "full");
			return 1;
		}
		snprintf(ls->entry_reason, sizeof ls->entry_reason, "synchronous must be full or normal");
		return 0;
	}
	snprintf(ls->entry_reason, sizeof ls->entry_reason, "unknown key '%s' in [store]", name);
	return 0;
}

static int handle_tokens(struct config *c, const char *name, const char *value, struct load_state *ls)
{
	if (!strcmp(name, "access_ttl_s"))
		return set_long(value, 1, 31L * 24 * 3600, &c->access_ttl_s, ls);
	if (!strcmp(name, "refresh_ttl_s"))
		return set_long(value, 1, 3650L * 24 * 3600, &c->refresh_ttl_s, ls);
	if (!strcmp(name, "code_ttl_s"))
		return set_long(value, 1, 3600, &c->code_ttl_s, ls);
	if (!strcmp(name, "purge_grace_s"))
		return set_long(value, 0, 3650L * 24 * 3600, &c->purge_grace_s, ls);
	if (!strcmp(name, "purge_interval_s"))
		return set_int(value, 1, 86400, &c->purge_interval_s, ls);
	if (!strcmp(name, "signing_key"))
		return set_string(value, &c->signing_key, ls);
	snprintf(ls->entry_reason, sizeof ls->entry_reason, "unknown key '%s' in [tokens]", name);
	return 0;
}

static int handle_passwords(struct config *c, const char *name, const char *value, struct load_state *ls)
{
	if (!strcmp(name, "argon2_memory_kib"))
		return set_u32(value, 8, 4L * 1024 * 1024, &c->argon2_memory_kib, ls);
	if (!strcmp(name, "argon2_iterations"))
		return set_u32(value, 1, 100, &c->argon2_iterations, ls);
	if (!strcmp(name, "argon2_parallelism"))
		return set_u32(value, 1, 64, &c->argon2_parallelism, ls);
	if (!strcmp(name, "hash_threads"))
		return set_int(value, 1, 64, &c->hash_threads, ls);
	if (!strcmp(name, "max_pending_hashes"))
		return set_int(value, 1, 100000, &c->max_pending_hashes, ls);
	snprintf(ls->entry_reason, sizeof ls->entry_reason, "unknown key '%s' in [passwords]", name);
	return 0;
}

static int handle_signin(struct config *c, const char *name, const char *value, struct load_state *ls)
{
	if (!strcmp(name, "max_failures"))
		return set_int(value, 1, 1000000, &c->signin_max_failures, ls);
	if (!strcmp(name, "max_failures_per_address"))
		return set_int(value, 1, 1000000, &c->signin_max_failures_per_address, ls);
	if (!strcmp(name, "window_s"))
		return set_int(value, 1, 86400, &c->signin_window_s, ls);
	if (!strcmp(name, "tracked_keys"))
		return set_int(value, 16, 10000000, &c->signin_tracked_keys, ls);
	snprintf(ls->entry_reason, sizeof ls->entry_reason, "unknown key '%s' in [signin]", name);
	return 0;
}

static int handle_entry(struct load_state *ls, const char *section, const char *name,
                        const char *value)
{
	if (!strcmp(section, "server"))
		return handle_server(ls->cfg, name, value, ls);
	if (!strcmp(section, "store"))
		return handle_store(ls->cfg, name, value, ls);
	if (!strcmp(section, "tokens"))
		return handle_tokens(ls->cfg, name, value, ls);
	if (!strcmp(section, "passwords"))
		return handle_passwords(ls->cfg, name, value, ls);
	if (!strcmp(section, "signin"))
		return handle_signin(ls->cfg, name, value, ls);
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

static bool known_section(const char *name, size_t len)
{
	static const char *const known[] = { "server", "store", "tokens", "passwords", "signin" };
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strlen(known[i]) == len && !strncmp(name, known[i], len))
			return true;
	return false;
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
			char reason[160];
			snprintf(reason, sizeof reason, "unknown section [%.*s]",
			         (int)(end - line - 1 > 100 ? 100 : end - line - 1), line + 1);
			refuse_line(ls, reason);
		}
	}
	return line;
}

int config_load(struct config *cfg, const char *path, char *errbuf, size_t errlen)
{
	struct load_state ls = { .cfg = cfg };
	struct stat sb;
	int line;

	ls.file = fopen(path, "r");
	if (!ls.file || fstat(fileno(ls.file), &sb) < 0 || !S_ISREG(sb.st_mode)) {
		if (ls.file)
			fclose(ls.file);
		snprintf(errbuf, errlen, "%s: cannot open the configuration file", path);
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
	/* argon2 refuses less than 8 KiB a lane; every hash would fail at run time. */
	if (cfg->argon2_memory_kib < 8 * cfg->argon2_parallelism) {
		snprintf(errbuf, errlen, "%s: argon2_memory_kib (%u) must be at least 8 times "
		         "argon2_parallelism (%u)", path, cfg->argon2_memory_kib,
		         cfg->argon2_parallelism);
		return -1;
	}
	return 0;
}
