/* Configuration: the defaults, and inih over them. Any key we do not know, or
 * a value we cannot use, stops the program: a typo must not pass silently. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ini.h>

#include "config.h"
#include "util.h"
#include "validate.h"

struct load_state {
	struct config *cfg;
	char reason[160];
};

void config_init(struct config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->listen_host = xstrdup("127.0.0.1");
	cfg->listen_port = 8080;
	cfg->issuer = xstrdup("http://127.0.0.1:8080");
	cfg->max_body_bytes = 65536;
	cfg->request_timeout_s = 10;
	cfg->max_connections = 1024;
	cfg->cors_origins = xcalloc(1, sizeof(char *));
	cfg->store_path = xstrdup("var/edgeauth.db");
	cfg->synchronous_full = true;
	cfg->access_ttl_s = 900;
	cfg->refresh_ttl_s = 2592000;
	cfg->code_ttl_s = 60;
	cfg->signing_key = xstrdup("var/signing-key.pem");
	cfg->argon2_memory_kib = 19456;
	cfg->argon2_iterations = 2;
	cfg->argon2_parallelism = 1;
	cfg->hash_threads = 2;
	cfg->max_pending_hashes = 256;
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
		snprintf(ls->reason, sizeof ls->reason, "expected a whole number from %ld to %ld", min, max);
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
		snprintf(ls->reason, sizeof ls->reason, "must not be empty");
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
	if (host_len == 0)
		goto bad;
	free(cfg->listen_host);
	cfg->listen_host = xstrndup(host, host_len);
	cfg->listen_port = (int)port;
	return 1;
bad:
	snprintf(ls->reason, sizeof ls->reason, "expected HOST:PORT, e.g. 127.0.0.1:8080");
	return 0;
}

static int set_issuer(const char *value, struct config *cfg, struct load_state *ls)
{
	size_t n = strlen(value);
	if (!validate_http_url(value) || value[n - 1] == '/' || strchr(value, '?') ||
	    strchr(value, '#')) {
		snprintf(ls->reason, sizeof ls->reason,
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
	if (!strcmp(name, "request_timeout_s"))
		return set_int(value, 1, 3600, &c->request_timeout_s, ls);
	if (!strcmp(name, "max_connections"))
		return set_int(value, 1, 1000000, &c->max_connections, ls);
	if (!strcmp(name, "cors_origins"))
		return set_origins(value, c);
	snprintf(ls->reason, sizeof ls->reason, "unknown key '%s' in [server]", name);
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
		snprintf(ls->reason, sizeof ls->reason, "synchronous must be full or normal");
		return 0;
	}
	snprintf(ls->reason, sizeof ls->reason, "unknown key '%s' in [store]", name);
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
	if (!strcmp(name, "signing_key"))
		return set_string(value, &c->signing_key, ls);
	snprintf(ls->reason, sizeof ls->reason, "unknown key '%s' in [tokens]", name);
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
	snprintf(ls->reason, sizeof ls->reason, "unknown key '%s' in [passwords]", name);
	return 0;
}

/* inih calls this for each name = value; returning 0 makes ini_parse report
 * the line. */
static int on_entry(void *user, const char *section, const char *name, const char *value)
{
	struct load_state *ls = user;

	if (!name) {   /* a section header alone (INI_CALL_HANDLER_ON_NEW_SECTION) */
		return 1;
	}
	if (!strcmp(section, "server"))
		return handle_server(ls->cfg, name, value, ls);
	if (!strcmp(section, "store"))
		return handle_store(ls->cfg, name, value, ls);
	if (!strcmp(section, "tokens"))
		return handle_tokens(ls->cfg, name, value, ls);
	if (!strcmp(section, "passwords"))
		return handle_passwords(ls->cfg, name, value, ls);
	snprintf(ls->reason, sizeof ls->reason, "unknown section [%s]", section);
	return 0;
}

/* inih only calls the handler for entries, so a section with no keys is
 * checked here: every [name] line must be one we know. */
static int check_sections(FILE *f, char *bad, size_t badlen)
{
	static const char *const known[] = { "server", "store", "tokens", "passwords" };
	char line[1024];
	int lineno = 0;

	while (fgets(line, sizeof line, f)) {
		char *p = line, *end;
		lineno++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '[')
			continue;
		end = strchr(p, ']');
		if (!end)
			continue;   /* inih reports the syntax error */
		*end = '\0';
		p++;
		bool ok = false;
		for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
			ok = ok || !strcmp(p, known[i]);
		if (!ok) {
			snprintf(bad, badlen, "unknown section [%.100s]", p);
			return lineno;
		}
	}
	return 0;
}

int config_load(struct config *cfg, const char *path, char *errbuf, size_t errlen)
{
	struct load_state ls = { .cfg = cfg };
	FILE *f = fopen(path, "r");
	int line;

	if (!f) {
		snprintf(errbuf, errlen, "%s: cannot open the configuration file", path);
		return -1;
	}
	line = check_sections(f, ls.reason, sizeof ls.reason);
	if (line == 0) {
		rewind(f);
		line = ini_parse_file(f, on_entry, &ls);
	}
	fclose(f);
	if (line != 0) {
		snprintf(errbuf, errlen, "%s:%d: %s", path, line,
		         ls.reason[0] ? ls.reason : "syntax error");
		return -1;
	}
	return 0;
}
