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

#include "config.h"
#include "store_url.h"
#include "util.h"
#include "validate.h"

/* The table of keys (config_keys.c), by a short name. */
static const struct config_key *const keys = config_key_table;

struct load_state {
	struct config *cfg;
	FILE *file;
	int lineno;          /* lines handed to inih so far */
	int bad_line;        /* the first line we refused, 0 for none */
	char reason[CONFIG_REASON_MAX];         /* why, for bad_line */
	char entry_reason[CONFIG_REASON_MAX];
	int *key_line;       /* per key of the table: the line that set it, 0 for none */
};


const struct config_key *config_keys(size_t *count)
{
	*count = config_key_count;
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
	cfg->values = xcalloc(config_key_count, sizeof *cfg->values);
	for (size_t i = 0; i < config_key_count; i++) {
		int rc = apply(cfg, &keys[i], keys[i].default_value, reason);
		assert(rc == 0);   /* the table's own defaults */
		(void)rc;
	}
}

void config_release(struct config *cfg)
{
	for (size_t i = 0; i < config_key_count; i++) {
		if (keys[i].type == CONFIG_STRING || keys[i].type == CONFIG_OPTIONAL_STRING)
			free(*(char **)field_of(cfg, &keys[i]));
		else if (keys[i].type == CONFIG_PARSED && keys[i].release)
			keys[i].release(cfg);
	}
	for (size_t i = 0; cfg->values && i < config_key_count; i++)
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
	for (size_t i = 0; i < config_key_count; i++) {
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

	for (size_t i = 0; i < config_key_count; i++) {
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
	for (size_t i = 0; i < config_key_count; i++)
		if (strlen(keys[i].section) == len && !strncmp(name, keys[i].section, len))
			return true;
	return false;
}

static int handle_entry(struct load_state *ls, const char *section, const char *name,
                        const char *value)
{
	for (size_t i = 0; i < config_key_count; i++)
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
	for (size_t i = 0; i < config_key_count; i++)
		if (!strcmp(keys[i].section, section) && !strcmp(keys[i].key, key))
			return ls->key_line[i];
	return 0;
}

/* docs/operations.md §"A fleet on PostgreSQL": with backend = postgres, url is required and held to
 * store_url_check's rules. 0, or -1 with "FILE:LINE: reason" naming url's line
 * (backend's when url is missing). */
static int check_store_url(const struct config *cfg, const struct load_state *ls,
                           const char *path, char *errbuf, size_t errlen)
{
	char reason[CONFIG_REASON_MAX];

	if (!cfg->store_postgres)
		return 0;
	if (!*cfg->store_url) {
		snprintf(errbuf, errlen, "%s:%d: backend = postgres needs [store] url", path,
		         line_of(ls, "store", "backend"));
		return -1;
	}
	if (store_url_check(cfg->store_url, cfg->insecure_transport, reason, sizeof reason) < 0) {
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
	for (size_t i = 0; i < config_key_count; i++) {
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

/* config_load, with the key_line of ls to fill. */
static int load(struct config *cfg, const char *path, struct load_state *ls, char *errbuf,
                size_t errlen)
{
	struct stat sb;
	int line;

	free(cfg->source);
	cfg->source = xstrdup(path);
	ls->file = fopen(path, "r");
	if (!ls->file || fstat(fileno(ls->file), &sb) < 0 || !S_ISREG(sb.st_mode)) {
		/* the system's reason, and what to do (docs/operations.md §"The program", start-up errors) */
		const char *why = ls->file ? "not a regular file" : strerror(errno);

		if (ls->file)
			fclose(ls->file);
		snprintf(errbuf, errlen, "%s: cannot open the configuration file: %s; pass -c FILE",
		         path, why);
		return -1;
	}
	line = ini_parse_stream(read_line, ls, on_entry, ls);
	fclose(ls->file);
	if (line < 0) {
		snprintf(errbuf, errlen, "%s: cannot read the configuration file", path);
		return -1;
	}
	/* inih's own errors are syntax; ours carry a reason. The first line wins. */
	if (ls->bad_line && (line == 0 || ls->bad_line <= line)) {
		snprintf(errbuf, errlen, "%s:%d: %s", path, ls->bad_line, ls->reason);
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
	if (check_store_url(cfg, ls, path, errbuf, errlen) < 0)
		return -1;
	return resolve_paths(cfg, path, errbuf, errlen);
}

int config_load(struct config *cfg, const char *path, char *errbuf, size_t errlen)
{
	struct load_state ls = { .cfg = cfg };
	int rc;

	ls.key_line = xcalloc(config_key_count, sizeof *ls.key_line);
	rc = load(cfg, path, &ls, errbuf, errlen);
	free(ls.key_line);
	return rc;
}
