/*
 * Unit tests for config.c: the defaults of docs/operations.md §"Configuration", a file that sets
 * every key, and every way a file can be refused ("FILE:LINE: reason", the
 * right line). Each test writes its files into its own mkdtemp directory,
 * which the checked teardown removes along with the config, so a failing
 * assertion leaks nothing.
 *
 * The "table" case holds config_keys.c's table of keys to its word: what it
 * says is what etc/edgeauth.conf and docs/configuration.md's table say.
 *
 * The "regressions" case keeps the inputs of bugs found and fixed.
 */
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_suite.h"
#include "cidr.h"
#include "config.h"


static struct {
	char dir[64];          /* the test's own temp directory */
	char path[128];        /* the config file written by write_conf */
	struct config cfg;
	char err[512];
} fx;

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
	snprintf(fx.dir, sizeof fx.dir, "/tmp/check_config.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx.dir));
	config_init(&fx.cfg);
}

/* Removes every file in the temp directory (there are no subdirectories
 * except those a test makes and removes itself), then the directory. */
static void teardown(void)
{
	DIR *d = opendir(fx.dir);
	struct dirent *e;
	char p[512];

	config_release(&fx.cfg);
	if (d) {
		while ((e = readdir(d)) != NULL) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			snprintf(p, sizeof p, "%s/%s", fx.dir, e->d_name);
			if (unlink(p) < 0)
				rmdir(p);
		}
		closedir(d);
	}
	rmdir(fx.dir);
}

/* Writes text to fx.dir/edgeauth.conf and sets fx.path to it. */
static const char *write_conf(const char *text)
{
	FILE *f;

	snprintf(fx.path, sizeof fx.path, "%s/edgeauth.conf", fx.dir);
	f = fopen(fx.path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
	ck_assert_int_eq(fclose(f), 0);
	return fx.path;
}

static int load(const char *text)
{
	return config_load(&fx.cfg, write_conf(text), fx.err, sizeof fx.err);
}

/* fx.dir with its symbolic links resolved, as config_load resolves the
 * directory a relative path is taken relative to; then "/" and rel. */
static const char *in_dir(const char *dir, const char *rel)
{
	static char out[PATH_MAX + 64];
	char *real = realpath(dir, NULL);

	ck_assert_ptr_nonnull(real);
	snprintf(out, sizeof out, "%s/%s", real, rel);
	free(real);
	return out;
}

static size_t count_origins(const struct config *c)
{
	size_t n = 0;

	ck_assert_ptr_nonnull(c->cors_origins);
	while (c->cors_origins[n])
		n++;
	return n;
}

/* fx.err is "PATH:LINE: ..." and contains reason. */
static void expect_error_at(int line, const char *reason, const char *desc)
{
	char prefix[200];

	snprintf(prefix, sizeof prefix, "%s:%d: ", fx.path, line);
	ck_assert_msg(strncmp(fx.err, prefix, strlen(prefix)) == 0,
	              "%s: error \"%s\", expected it to start with \"%s\"", desc, fx.err, prefix);
	ck_assert_msg(strstr(fx.err + strlen(prefix), reason) != NULL,
	              "%s: error \"%s\", expected the reason to contain \"%s\"", desc, fx.err,
	              reason);
}

/* --- defaults ------------------------------------------------------------- */

/* The defaults; the paths' relative to dir (a loaded file's directory), or
 * as the table says them when dir is NULL (no file loaded). */
static void expect_defaults(const struct config *c, const char *dir)
{
	ck_assert_str_eq(c->listen_host, "127.0.0.1");
	ck_assert_int_eq(c->listen_port, 8080);
	ck_assert_str_eq(c->issuer, "http://127.0.0.1:8080");
	ck_assert_int_eq(c->max_body_bytes, 65536);
	ck_assert_int_eq(c->request_timeout_s, 10);
	ck_assert_int_eq(c->max_connections, 1024);
	ck_assert_int_eq(c->max_connections_per_address, 64);
	ck_assert_uint_eq(count_origins(c), 0);
	ck_assert_ptr_null(c->tls_cert);
	ck_assert_ptr_null(c->tls_key);
	ck_assert_int_eq(c->hsts_max_age_s, 0);
	ck_assert(!config_tls_enabled(c));
	ck_assert_str_eq(c->store_path, dir ? in_dir(dir, "var/edgeauth.db") : "var/edgeauth.db");
	ck_assert(c->synchronous_full);
	ck_assert(!c->store_postgres);
	ck_assert_str_eq(c->store_url, "");
	ck_assert_int_eq(c->pool_size, 4);
	ck_assert_int_eq(c->pg_timeout_ms, 3000);
	ck_assert(!c->insecure_transport);
	ck_assert_int_eq(c->access_ttl_s, 900);
	ck_assert_int_eq(c->refresh_ttl_s, 2592000);
	ck_assert_int_eq(c->code_ttl_s, 60);
	ck_assert_str_eq(c->signing_key,
	                 dir ? in_dir(dir, "var/signing-key.pem") : "var/signing-key.pem");
	ck_assert_uint_eq(c->argon2_memory_kib, 19456);
	ck_assert_uint_eq(c->argon2_iterations, 2);
	ck_assert_uint_eq(c->argon2_parallelism, 1);
	ck_assert_int_eq(c->hash_threads, 2);
	ck_assert_int_eq(c->max_pending_hashes, 256);
	ck_assert_int_eq(c->log_format, LOG_TEXT);
	ck_assert_uint_eq(c->backchannel_allow_count, 0);
	ck_assert_uint_eq(c->trusted_proxies_count, 0);
}

START_TEST(test_defaults)
{
	expect_defaults(&fx.cfg, NULL);
	ck_assert_ptr_null(fx.cfg.metrics_host);   /* etc/edgeauth.conf turns it on */
}
END_TEST

/* An empty file, or one with only comments and known empty sections, keeps
 * every default. */
START_TEST(test_empty_file_keeps_defaults)
{
	ck_assert_int_eq(load(""), 0);
	expect_defaults(&fx.cfg, fx.dir);
	ck_assert_int_eq(load("; a comment\n# another\n\n[server]\n[store]\n[tokens]\n"
	                      "[passwords]\n"), 0);
	expect_defaults(&fx.cfg, fx.dir);
}
END_TEST

/* --- a full file ------------------------------------------------------------ */

static const char full_conf[] =
	"; every key, none at its default\n"
	"[server]\n"
	"listen = 0.0.0.0:9090\n"
	"issuer = https://auth.example.com\n"
	"max_body_bytes = 2048\n"
	"request_timeout_s = 30\n"
	"max_connections = 50\n"
	"max_connections_per_address = 5\n"
	"cors_origins = https://a.example   https://b.example:8443\n"
	"trusted_proxies = 10.0.0.0/8 ::1\n"
	"tls_cert = /etc/edgeauth/cert.pem\n"
	"tls_key = /etc/edgeauth/key.pem\n"
	"hsts_max_age_s = 31536000\n"
	"\n"
	"[store]\n"
	"path = /srv/edgeauth/data.db\n"
	"synchronous = normal\n"
	"\n"
	"[tokens]\n"
	"access_ttl_s = 300\n"
	"refresh_ttl_s = 86400\n"
	"code_ttl_s = 30\n"
	"signing_key = keys/signing.pem\n"
	"\n"
	"[oidc]\n"
	"backchannel_allow = 127.0.0.1/32\tfd00::/8  10.0.0.0/8\n"
	"\n"
	"[passwords]\n"
	"argon2_memory_kib = 65536\n"
	"argon2_iterations = 3\n"
	"argon2_parallelism = 4\n"
	"hash_threads = 8\n"
	"max_pending_hashes = 1000\n"
	"\n"
	"[metrics]\n"
	"listen = [::1]:9100\n"
	"\n"
	"[log]\n"
	"format = json\n";

START_TEST(test_full_file_overrides_every_key)
{
	const struct config *c = &fx.cfg;

	ck_assert_msg(load(full_conf) == 0, "config_load: %s", fx.err);
	ck_assert_str_eq(c->listen_host, "0.0.0.0");
	ck_assert_int_eq(c->listen_port, 9090);
	ck_assert_str_eq(c->issuer, "https://auth.example.com");
	ck_assert_int_eq(c->max_body_bytes, 2048);
	ck_assert_int_eq(c->request_timeout_s, 30);
	ck_assert_int_eq(c->max_connections, 50);
	ck_assert_int_eq(c->max_connections_per_address, 5);
	ck_assert_uint_eq(count_origins(c), 2);
	ck_assert_str_eq(c->cors_origins[0], "https://a.example");
	ck_assert_str_eq(c->cors_origins[1], "https://b.example:8443");
	ck_assert_str_eq(c->tls_cert, "/etc/edgeauth/cert.pem");
	ck_assert_str_eq(c->tls_key, "/etc/edgeauth/key.pem");
	ck_assert_int_eq(c->hsts_max_age_s, 31536000);
	ck_assert(config_tls_enabled(c));
	ck_assert(config_issuer_https(c));
	ck_assert_str_eq(c->store_path, "/srv/edgeauth/data.db");
	ck_assert(!c->synchronous_full);
	ck_assert_int_eq(c->access_ttl_s, 300);
	ck_assert_int_eq(c->refresh_ttl_s, 86400);
	ck_assert_int_eq(c->code_ttl_s, 30);
	ck_assert_str_eq(c->signing_key, in_dir(fx.dir, "keys/signing.pem"));
	ck_assert_uint_eq(c->argon2_memory_kib, 65536);
	ck_assert_uint_eq(c->argon2_iterations, 3);
	ck_assert_uint_eq(c->argon2_parallelism, 4);
	ck_assert_int_eq(c->hash_threads, 8);
	ck_assert_int_eq(c->max_pending_hashes, 1000);
	ck_assert_int_eq(c->log_format, LOG_JSON);
	ck_assert_str_eq(c->metrics_host, "::1");
	ck_assert_uint_eq(c->trusted_proxies_count, 2);
	ck_assert_int_eq(c->trusted_proxies[1].family, AF_INET6);
	ck_assert_int_eq(c->metrics_port, 9100);
	ck_assert_uint_eq(c->backchannel_allow_count, 3);
	ck_assert_int_eq(c->backchannel_allow[1].family, AF_INET6);
	ck_assert_uint_eq(c->backchannel_allow[1].bits, 8);
	ck_assert_uint_eq(c->backchannel_allow[2].bits, 8);
}
END_TEST

/* Values the parser must accept, and what they give. */
START_TEST(test_listen_forms)
{
	ck_assert_msg(load("[server]\nlisten = [::1]:8443\n") == 0, "%s", fx.err);
	ck_assert_str_eq(fx.cfg.listen_host, "::1");
	ck_assert_int_eq(fx.cfg.listen_port, 8443);
	ck_assert_msg(load("[server]\nlisten = localhost:1\n") == 0, "%s", fx.err);
	ck_assert_str_eq(fx.cfg.listen_host, "localhost");
	ck_assert_int_eq(fx.cfg.listen_port, 1);
	ck_assert_msg(load("[server]\nlisten = 127.0.0.1:65535\n") == 0, "%s", fx.err);
	ck_assert_int_eq(fx.cfg.listen_port, 65535);
}
END_TEST

START_TEST(test_bounds_accepted)
{
	ck_assert_msg(load("[server]\nmax_body_bytes = 1024\nrequest_timeout_s = 1\n"
	                   "max_connections = 1\nmax_connections_per_address = 1\n"
	                   "issuer = http://localhost:8080/auth\n"
	                   "[store]\nsynchronous = full\n"
	                   "[tokens]\naccess_ttl_s = 1\nrefresh_ttl_s = 1\ncode_ttl_s = 3600\n"
	                   "[passwords]\nargon2_memory_kib = 8\nargon2_iterations = 1\n"
	                   "argon2_parallelism = 1\nhash_threads = 64\nmax_pending_hashes = 1\n")
	              == 0, "%s", fx.err);
	ck_assert_int_eq(fx.cfg.max_body_bytes, 1024);
	ck_assert_int_eq(fx.cfg.request_timeout_s, 1);
	ck_assert_int_eq(fx.cfg.max_connections_per_address, 1);
	ck_assert_str_eq(fx.cfg.issuer, "http://localhost:8080/auth");
	ck_assert(fx.cfg.synchronous_full);
	ck_assert_int_eq(fx.cfg.code_ttl_s, 3600);
	ck_assert_uint_eq(fx.cfg.argon2_memory_kib, 8);
	ck_assert_int_eq(fx.cfg.hash_threads, 64);
}
END_TEST

/* [store] backend = postgres: the urls docs/operations.md §"A fleet on PostgreSQL" allows. */
START_TEST(test_postgres_urls_accepted)
{
	static const char *const ok[] = {
		"host=/run/postgresql dbname=edgeauth user=edgeauth",
		"dbname=edgeauth",   /* the default socket */
		"postgresql:///edgeauth?host=/run/postgresql",
		"host=10.0.0.5,10.0.0.6 port=5432,5432 dbname=e target_session_attrs=read-write"
		" sslmode=verify-full sslrootcert=/etc/edgeauth/db-ca.pem",
		"host=db1.example hostaddr=10.0.0.5 dbname=e sslmode=verify-full",
		"host=::1 dbname=e sslmode=verify-full",
	};
	char text[512];

	for (size_t i = 0; i < N_ELEMS(ok); i++) {
		snprintf(text, sizeof text, "[store]\nbackend = postgres\nurl = %s\npool_size = 2\n",
		         ok[i]);
		ck_assert_msg(load(text) == 0, "%s: %s", ok[i], fx.err);
		ck_assert(fx.cfg.store_postgres);
		ck_assert_str_eq(fx.cfg.store_url, ok[i]);
		ck_assert_int_eq(fx.cfg.pool_size, 2);
	}
	/* the operator's word for a network it trusts */
	ck_assert_msg(load("[store]\nbackend = postgres\ninsecure_transport = true\n"
	                   "url = host=127.0.0.1 dbname=e\n") == 0, "%s", fx.err);
	ck_assert(fx.cfg.insecure_transport);
	/* sqlite ignores url */
	ck_assert_msg(load("[store]\nbackend = sqlite\nurl = password=x host=10.0.0.5\n") == 0,
	              "%s", fx.err);
	ck_assert(!fx.cfg.store_postgres);
}
END_TEST

/* --- refused files ---------------------------------------------------------- */

#define R_SECTION "unknown section"
#define R_NUMBER "expected a whole number"
#define R_LISTEN "expected HOST:PORT"
#define R_ISSUER "expected an absolute http(s) URL without a trailing slash"
#define R_EMPTY "must not be empty"
#define R_SYNC "synchronous must be full or normal"
#define R_SYNTAX "syntax error"
#define R_LOG_FORMAT "format must be text or json"

static const struct {
	const char *desc;
	const char *text;
	int line;
	const char *reason;
} bad_cases[] = {
	/* sections */
	{ "unknown section with a key", "[server]\nlisten = 127.0.0.1:1\n[bogus]\nx = 1\n", 3,
	  "unknown section [bogus]" },
	{ "unknown section with no keys", "[server]\nlisten = 127.0.0.1:1\n\n[extra]\n", 4,
	  "unknown section [extra]" },
	{ "unknown empty section at the end, no newline", "[tokens]\n[Server]", 2,
	  "unknown section [Server]" },
	{ "key before any section", "; top\nlisten = 127.0.0.1:1\n", 2, R_SECTION },
	{ "section name is case-sensitive", "[SERVER]\nlisten = 127.0.0.1:1\n", 1, R_SECTION },
	/* unknown keys, one per section; comments and blank lines count as lines */
	{ "unknown key in [server]", "# c\n[server]\n\nlisten_port = 1\n", 4,
	  "unknown key 'listen_port' in [server]" },
	{ "unknown key in [store]", "[server]\n[store]\npath = x.db\nfile = y.db\n", 4,
	  "unknown key 'file' in [store]" },
	{ "unknown key in [tokens]", "[tokens]\naccess_ttl = 5\n", 2,
	  "unknown key 'access_ttl' in [tokens]" },
	{ "unknown key in [passwords]", "[passwords]\n; c\n; c\nargon2_memory = 8\n", 4,
	  "unknown key 'argon2_memory' in [passwords]" },
	{ "key of another section", "[store]\nlisten = 127.0.0.1:1\n", 2,
	  "unknown key 'listen' in [store]" },
	/* numbers */
	{ "non-numeric max_body_bytes", "[server]\nmax_body_bytes = lots\n", 2, R_NUMBER },
	{ "max_body_bytes with a unit", "[server]\nmax_body_bytes = 64k\n", 2, R_NUMBER },
	{ "max_body_bytes below the minimum", "[server]\nmax_body_bytes = 1023\n", 2, R_NUMBER },
	{ "negative request_timeout_s", "[server]\nrequest_timeout_s = -5\n", 2, R_NUMBER },
	{ "zero max_connections", "[server]\nmax_connections = 0\n", 2, R_NUMBER },
	{ "empty max_connections", "[server]\nmax_connections =\n", 2, R_NUMBER },
	{ "zero max_connections_per_address", "[server]\nmax_connections_per_address = 0\n", 2,
	  R_NUMBER },
	{ "non-numeric access_ttl_s", "[tokens]\naccess_ttl_s = 15m\n", 2, R_NUMBER },
	{ "negative refresh_ttl_s", "[tokens]\nrefresh_ttl_s = -1\n", 2, R_NUMBER },
	{ "code_ttl_s above the maximum", "[tokens]\ncode_ttl_s = 3601\n", 2, R_NUMBER },
	{ "zero access_ttl_s", "[tokens]\naccess_ttl_s = 0\n", 2, R_NUMBER },
	{ "fractional argon2_iterations", "[passwords]\nargon2_iterations = 2.5\n", 2,
	  R_NUMBER },
	{ "zero argon2_iterations", "[passwords]\nargon2_iterations = 0\n", 2, R_NUMBER },
	{ "argon2_memory_kib below the minimum", "[passwords]\nargon2_memory_kib = 7\n", 2,
	  R_NUMBER },
	{ "negative argon2_parallelism", "[passwords]\nargon2_parallelism = -1\n", 2,
	  R_NUMBER },
	{ "hash_threads above the maximum", "[passwords]\nhash_threads = 65\n", 2, R_NUMBER },
	{ "max_pending_hashes in exponent form", "[passwords]\nmax_pending_hashes = 1e3\n", 2,
	  R_NUMBER },
	{ "argon2_memory_kib overflowing a long",
	  "[passwords]\nargon2_memory_kib = 99999999999999999999999\n", 2, R_NUMBER },
	/* listen */
	{ "port 0", "[server]\nlisten = 127.0.0.1:0\n", 2, R_LISTEN },
	{ "port 65536", "[server]\nlisten = 127.0.0.1:65536\n", 2, R_LISTEN },
	{ "negative port", "[server]\nlisten = 127.0.0.1:-1\n", 2, R_LISTEN },
	{ "port by name", "[server]\nlisten = 127.0.0.1:http\n", 2, R_LISTEN },
	{ "listen without port", "[server]\nlisten = 127.0.0.1\n", 2, R_LISTEN },
	{ "listen with empty port", "[server]\nlisten = 127.0.0.1:\n", 2, R_LISTEN },
	{ "listen without host", "[server]\nlisten = :8080\n", 2, R_LISTEN },
	{ "bracketed v6 without port", "[server]\nlisten = [::1]\n", 2, R_LISTEN },
	{ "empty brackets", "[server]\nlisten = []:8080\n", 2, R_LISTEN },
	{ "empty listen", "[server]\nlisten =\n", 2, R_LISTEN },
	/* issuer */
	{ "issuer with trailing slash", "[server]\nissuer = https://auth.example.com/\n", 2,
	  R_ISSUER },
	{ "issuer with path and trailing slash", "[server]\nissuer = https://a.example/x/\n", 2,
	  R_ISSUER },
	{ "issuer not http(s)", "[server]\nissuer = ftp://auth.example.com\n", 2, R_ISSUER },
	{ "issuer relative", "[server]\nissuer = auth.example.com\n", 2, R_ISSUER },
	{ "issuer with query", "[server]\nissuer = https://a.example?x=1\n", 2, R_ISSUER },
	{ "issuer with fragment", "[server]\nissuer = https://a.example#x\n", 2, R_ISSUER },
	{ "issuer without host", "[server]\nissuer = https://\n", 2, R_ISSUER },
	{ "empty issuer", "[server]\nissuer =\n", 2, R_ISSUER },
	/* store */
	{ "synchronous off", "[store]\nsynchronous = off\n", 2, R_SYNC },
	{ "synchronous extra", "[store]\nsynchronous = extra\n", 2, R_SYNC },
	{ "empty synchronous", "[store]\nsynchronous =\n", 2, R_SYNC },
	{ "a trusted proxy with host bits", "[server]\ntrusted_proxies = 10.0.0.1/8\n", 2,
	  "is not an address or CIDR" },
	{ "a trusted proxy by name", "[server]\ntrusted_proxies = ::1 proxy.lan\n", 2,
	  "'proxy.lan' is not an address" },
	{ "metrics listen without a port", "[metrics]\nlisten = 127.0.0.1\n", 2, R_LISTEN },
	{ "log format xml", "[log]\nformat = xml\n", 2, R_LOG_FORMAT },
	{ "log format in capitals", "[log]\nformat = JSON\n", 2, R_LOG_FORMAT },
	{ "empty store path", "[store]\npath =\n", 2, R_EMPTY },
	{ "empty signing_key", "[tokens]\nsigning_key =\n", 2, R_EMPTY },
	/* [store] backend = postgres (docs/operations.md §"A fleet on PostgreSQL"): the url's line is named */
	{ "unknown backend", "[store]\nbackend = mysql\n", 2, "backend must be sqlite or postgres" },
	{ "postgres without url", "[store]\n\nbackend = postgres\n", 3,
	  "backend = postgres needs [store] url" },
	{ "password in a connection string",
	  "[store]\nbackend = postgres\nurl = host=/run/postgresql dbname=e password=hunter2\n", 3,
	  "url may not hold a password" },
	{ "password in a URI", "[store]\nurl = postgresql://edgeauth:hunter2@%2Frun%2Fpostgresql/e\n"
	  "backend = postgres\n", 2, "url may not hold a password" },
	{ "TCP host without TLS",
	  "[store]\nbackend = postgres\nurl = host=10.0.0.5 dbname=e user=e\n", 3,
	  "needs sslmode=verify-full" },
	{ "TCP host with a TLS mode that checks no name",
	  "[store]\nbackend = postgres\n; c\nurl = host=10.0.0.5 dbname=e sslmode=require\n", 4,
	  "needs sslmode=verify-full" },
	{ "one TCP host of two without TLS",
	  "[store]\nbackend = postgres\nurl = host=/run/postgresql,10.0.0.5 dbname=e\n", 3,
	  "needs sslmode=verify-full" },
	{ "hostaddr is TCP", "[store]\nbackend = postgres\nurl = hostaddr=10.0.0.5 dbname=e\n", 3,
	  "needs sslmode=verify-full" },
	{ "a host name the loop would resolve",
	  "[store]\nbackend = postgres\nurl = host=db1.example dbname=e sslmode=verify-full\n", 3,
	  "host db1.example is a name" },
	{ "url that libpq cannot parse", "[store]\nbackend = postgres\nurl = host='x\n", 3,
	  "url is not a libpq connection string or URI" },
	{ "insecure_transport not a boolean", "[store]\ninsecure_transport = yes\n", 2,
	  "expected true or false" },
	{ "pool_size 0", "[store]\npool_size = 0\n", 2, R_NUMBER },
	{ "pg_timeout_ms below 250", "[store]\npg_timeout_ms = 100\n", 2, R_NUMBER },
	/* oidc */
	{ "backchannel_allow with a name", "[oidc]\nbackchannel_allow = 10.0.0.0/8 localhost\n",
	  2, "'localhost' is not an address or CIDR" },
	{ "backchannel_allow with host bits", "[oidc]\nbackchannel_allow = 10.0.0.1/8\n", 2,
	  "'10.0.0.1/8' is not an address or CIDR" },
	{ "backchannel_allow prefix too long", "[oidc]\n\nbackchannel_allow = ::/129\n", 3,
	  "'::/129' is not an address or CIDR" },
	/* syntax */
	{ "line with no '='", "[server]\nlisten = 127.0.0.1:8080\njust some words\n", 3,
	  R_SYNTAX },
	{ "unterminated section header", "[server\n", 1, R_SYNTAX },
	{ "a line that is only a key", "[tokens]\n\ncode_ttl_s\n", 3, R_SYNTAX },
};

/* Each key in range, but together below argon2's 8 KiB a lane: refused at
 * load, not by every hash later; exactly 8 a lane is fine. */
START_TEST(test_argon2_memory_per_lane)
{
	ck_assert_int_eq(load("[passwords]\nargon2_parallelism = 4\nargon2_memory_kib = 31\n"), -1);
	ck_assert_msg(strstr(fx.err, "argon2_memory_kib (31) must be at least 8 times") != NULL,
	              "error \"%s\"", fx.err);
	ck_assert_int_eq(load("[passwords]\nargon2_parallelism = 4\nargon2_memory_kib = 32\n"), 0);
	ck_assert_uint_eq(fx.cfg.argon2_memory_kib, 32);
}
END_TEST

START_TEST(test_bad_file)
{
	int rc = load(bad_cases[_i].text);
	ck_assert_msg(rc == -1, "%s: config_load returned %d", bad_cases[_i].desc, rc);
	expect_error_at(bad_cases[_i].line, bad_cases[_i].reason, bad_cases[_i].desc);
}
END_TEST

/* The error names the line of the bad value however far down it is. */
START_TEST(test_error_line_after_valid_lines)
{
	ck_assert_int_eq(load(full_conf), 0);
	config_release(&fx.cfg);
	config_init(&fx.cfg);

	/* full_conf plus a section and one bad line: the error is on that line */
	char text[2048];
	int lines = 0;
	for (const char *p = full_conf; *p; p++)
		lines += *p == '\n';
	snprintf(text, sizeof text, "%s[passwords]\nhash_threads = many\n", full_conf);
	ck_assert_int_eq(load(text), -1);
	expect_error_at(lines + 2, R_NUMBER, "bad last line");
}
END_TEST

/* docs/operations.md §"Metrics": never the API's listener; an empty value turns it off. */
START_TEST(test_metrics_listen_apart)
{
	ck_assert_int_eq(load("[server]\nlisten = 127.0.0.1:9000\n[metrics]\nlisten = 127.0.0.1:9000\n"),
	                 -1);
	ck_assert_msg(strstr(fx.err, "[metrics] listen must differ from [server] listen") != NULL,
	              "%s", fx.err);
	ck_assert_int_eq(load("[metrics]\nlisten = 127.0.0.1:9464\n[metrics]\nlisten =\n"), 0);
	ck_assert_ptr_null(fx.cfg.metrics_host);
}
END_TEST

/* check-config's text: every key of the table once, under its section,
 * with the value in effect. */
START_TEST(test_dump)
{
	size_t n;
	const struct config_key *k = config_keys(&n);
	char *text, line[256];

	ck_assert_int_eq(load("[signin]\nwindow_s = 60\n[server]\ncors_origins = https://a.example\n"), 0);
	text = config_dump(&fx.cfg);
	for (size_t i = 0; i < n; i++) {
		snprintf(line, sizeof line, "\n%s =", k[i].key);
		ck_assert_msg(strstr(text, line), "no %s in:\n%.500s", k[i].key, text);
	}
	ck_assert_ptr_nonnull(strstr(text, "\n[signin]\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nwindow_s = 60\n"));
	ck_assert_ptr_nonnull(strstr(text, "\ncors_origins = https://a.example\n"));
	ck_assert_ptr_nonnull(strstr(text, "\naccess_ttl_s = 900\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nlisten =\n"));   /* [metrics], off */
	free(text);
}
END_TEST

static const struct {
	const char *value;
	const char *shown;
} masked[] = {
	{ "host=/run/postgresql dbname=edgeauth user=edgeauth",
	  "host=/run/postgresql dbname=edgeauth user=edgeauth" },
	{ "host=db password=s3cret dbname=e", "host=db password=*** dbname=e" },
	{ "password=a password=b", "password=*** password=***" },
	{ "postgresql://edgeauth:s3cret@db1:5432/edgeauth", "postgresql://edgeauth:***@db1:5432/edgeauth" },
	{ "postgresql://edgeauth@db1/edgeauth", "postgresql://edgeauth@db1/edgeauth" },
	{ "postgresql://db1/edgeauth?user=e&password=x&sslmode=verify-full",
	  "postgresql://db1/edgeauth?user=e&password=***&sslmode=verify-full" },
	{ "", "" },
};

START_TEST(test_mask_secret)
{
	char *got = config_mask_secret(masked[_i].value);

	ck_assert_str_eq(got, masked[_i].shown);
	free(got);
}
END_TEST

/* check-config shows [store] url with a password masked: postgres refuses
 * one (docs/operations.md §"A fleet on PostgreSQL"), but a url beside backend = sqlite is not read */
START_TEST(test_dump_masks_store_url)
{
	char *text;

	ck_assert_int_eq(load("[store]\nbackend = sqlite\n"
	                      "url = host=db dbname=e password=hunter2\n"), 0);
	text = config_dump(&fx.cfg);
	ck_assert_ptr_null(strstr(text, "hunter2"));
	ck_assert_ptr_nonnull(strstr(text, "\nurl = host=db dbname=e password=***\n"));
	free(text);
}
END_TEST

START_TEST(test_missing_file)
{
	char path[200];

	snprintf(path, sizeof path, "%s/no-such.conf", fx.dir);
	ck_assert_int_eq(config_load(&fx.cfg, path, fx.err, sizeof fx.err), -1);
	ck_assert_msg(strncmp(fx.err, path, strlen(path)) == 0,
	              "error \"%s\" does not start with the file name", fx.err);
	/* and nothing was changed */
	expect_defaults(&fx.cfg, NULL);
}
END_TEST

/* --- cors_origins ----------------------------------------------------------- */

START_TEST(test_cors_origins_split)
{
	ck_assert_int_eq(load("[server]\ncors_origins = https://a.example  http://b.example:3000"
	                      "\thttps://c.example\n"), 0);
	ck_assert_uint_eq(count_origins(&fx.cfg), 3);
	ck_assert_str_eq(fx.cfg.cors_origins[0], "https://a.example");
	ck_assert_str_eq(fx.cfg.cors_origins[1], "http://b.example:3000");
	ck_assert_str_eq(fx.cfg.cors_origins[2], "https://c.example");
	ck_assert_ptr_null(fx.cfg.cors_origins[3]);
}
END_TEST

START_TEST(test_cors_origins_single_and_empty)
{
	ck_assert_int_eq(load("[server]\ncors_origins = https://only.example\n"), 0);
	ck_assert_uint_eq(count_origins(&fx.cfg), 1);
	ck_assert_str_eq(fx.cfg.cors_origins[0], "https://only.example");
	/* a later empty value clears the list */
	ck_assert_int_eq(load("[server]\ncors_origins = https://x.example\ncors_origins =\n"), 0);
	ck_assert_uint_eq(count_origins(&fx.cfg), 0);
}
END_TEST

START_TEST(test_cors_allowed)
{
	ck_assert_int_eq(load("[server]\ncors_origins = https://a.example http://b.example:3000\n"),
	                 0);
	ck_assert(config_cors_allowed(&fx.cfg, "https://a.example"));
	ck_assert(config_cors_allowed(&fx.cfg, "http://b.example:3000"));
	ck_assert(!config_cors_allowed(&fx.cfg, "https://c.example"));
	ck_assert(!config_cors_allowed(&fx.cfg, "http://a.example"));
	ck_assert(!config_cors_allowed(&fx.cfg, "https://a.example/"));
	ck_assert(!config_cors_allowed(&fx.cfg, "https://a.exampl"));
	ck_assert(!config_cors_allowed(&fx.cfg, "https://a.example.evil"));
	ck_assert(!config_cors_allowed(&fx.cfg, "http://b.example"));
	ck_assert(!config_cors_allowed(&fx.cfg, "HTTPS://A.EXAMPLE"));
	ck_assert(!config_cors_allowed(&fx.cfg, ""));
	ck_assert(!config_cors_allowed(&fx.cfg, "null"));
	ck_assert(!config_cors_allowed(&fx.cfg, NULL));
}
END_TEST

START_TEST(test_cors_default_allows_nothing)
{
	ck_assert(!config_cors_allowed(&fx.cfg, "http://127.0.0.1:8080"));
	ck_assert(!config_cors_allowed(&fx.cfg, ""));
	ck_assert(!config_cors_allowed(&fx.cfg, NULL));
}
END_TEST

/* --- regressions ------------------------------------------------------------ */

/* inih goes on after the first error and returns its line; the reason must
 * be that line's, not a later one's. */
START_TEST(regression_reason_belongs_to_the_line)
{
	ck_assert_int_eq(load("[server]\nmax_body_bytes = lots\nbogus = 1\n"), -1);
	expect_error_at(2, R_NUMBER, "first error, later unknown key");
	ck_assert_int_eq(load("[server]\njust words\nmax_body_bytes = lots\n"), -1);
	expect_error_at(2, R_SYNTAX, "syntax error, later bad value");
	/* the keys under a broken header are "unknown section []" */
	ck_assert_int_eq(load("[server\nlisten = 127.0.0.1:8080\n"), -1);
	expect_error_at(1, R_SYNTAX, "unterminated section header, then a key");
}
END_TEST

/* inih reads lines into a 200-byte buffer. A longer line used to be cut and
 * its tail parsed as a new line (or, after a space, as a continuation that
 * silently replaced the value); now it is refused with its own line number. */
START_TEST(regression_long_line_refused)
{
	char text[1024] = "[server]\ncors_origins =";
	size_t n;

	for (int i = 0; i < 10; i++) {
		n = strlen(text);
		snprintf(text + n, sizeof text - n, " https://app-%02d.example.com", i);
	}
	n = strlen(text);
	snprintf(text + n, sizeof text - n, "\n");
	ck_assert_int_eq(load(text), -1);
	expect_error_at(2, "line longer than", "a 280-character line");
}
END_TEST

START_TEST(regression_long_line_not_truncated)
{
	char text[512] = "[server]\ncors_origins = https://";
	size_t n = strlen(text), line_start = strlen("[server]\n");

	/* the first origin ends where inih would cut the line (199 bytes) */
	while (n - line_start < 199 - strlen(".example.com"))
		text[n++] = 'a';
	snprintf(text + n, sizeof text - n, ".example.com https://b.example.com\n");
	ck_assert_int_eq(text[line_start + 199], ' ');
	ck_assert_int_eq(load(text), -1);
	expect_error_at(2, "line longer than", "a line cut at a space");
}
END_TEST

/* An indented line is a line of its own, not a continuation. */
START_TEST(regression_indented_line)
{
	ck_assert_msg(load("[server]\n  cors_origins = https://a.example\n") == 0, "%s", fx.err);
	ck_assert(config_cors_allowed(&fx.cfg, "https://a.example"));
	ck_assert_int_eq(load("[server]\ncors_origins = https://a.example\n  https://b.example\n"), -1);
	expect_error_at(3, "unknown key", "an indented value is a line of its own");
}
END_TEST

/* A first line that starts with a UTF-8 BOM is still checked. */
START_TEST(regression_bom_unknown_empty_section)
{
	ck_assert_int_eq(load("\xef\xbb\xbf[bogus]\n"), -1);
	expect_error_at(1, "unknown section [bogus]", "BOM then unknown section");
}
END_TEST

/* "::1" (a v6 address with no port) is refused, not host ":" port 1. */
START_TEST(regression_listen_v6_without_port)
{
	ck_assert_int_eq(load("[server]\nlisten = ::1\n"), -1);
	expect_error_at(2, R_LISTEN, "::1");
}
END_TEST

/* A directory opens with fopen(..., "r") on Linux: it must still be refused. */
START_TEST(regression_directory_as_file)
{
	ck_assert_int_eq(config_load(&fx.cfg, fx.dir, fx.err, sizeof fx.err), -1);
	ck_assert_msg(strncmp(fx.err, fx.dir, strlen(fx.dir)) == 0, "error \"%s\"", fx.err);
}
END_TEST

/* --- the table of keys -------------------------------------------------------- */

/* Where etc/edgeauth.conf and docs/configuration.md are: the Makefile passes the
 * repository's directory. */
#ifndef SOURCE_DIR
#define SOURCE_DIR "."
#endif

/* How often each of the table's keys was found, and with what value. */
struct key_tally {
	const struct config_key *keys;
	size_t count;
	int seen[64];
	char stray[256];   /* the first section and key that is not in the table */
	char wrong[256];   /* the first key whose value is not the table's default */
	bool conf_file;    /* etc/edgeauth.conf: a key's conf_value, when it has one */
};

static void tally_init(struct key_tally *t)
{
	memset(t, 0, sizeof *t);
	t->keys = config_keys(&t->count);
	ck_assert_uint_le(t->count, N_ELEMS(t->seen));
}

static void tally(struct key_tally *t, const char *section, const char *key, const char *value)
{
	for (size_t i = 0; i < t->count; i++) {
		const char *want = t->conf_file && t->keys[i].conf_value ? t->keys[i].conf_value
		                                                         : t->keys[i].default_value;
		if (strcmp(t->keys[i].section, section) || strcmp(t->keys[i].key, key))
			continue;
		t->seen[i]++;
		if (strcmp(want, value) && !t->wrong[0])
			snprintf(t->wrong, sizeof t->wrong, "[%s] %s is \"%s\", the table says \"%s\"",
			         section, key, value, want);
		return;
	}
	if (!t->stray[0])
		snprintf(t->stray, sizeof t->stray, "[%s] %s", section, key);
}

/* Every key of the table once, nothing else, each at its default. */
static void expect_tally_complete(const struct key_tally *t, const char *where)
{
	ck_assert_msg(!t->stray[0], "%s has %s, which the table lacks", where, t->stray);
	ck_assert_msg(!t->wrong[0], "%s: %s", where, t->wrong);
	for (size_t i = 0; i < t->count; i++)
		ck_assert_msg(t->seen[i] == 1, "%s has [%s] %s %d times, not once", where,
		              t->keys[i].section, t->keys[i].key, t->seen[i]);
}

static int on_conf_entry(void *user, const char *section, const char *key, const char *value)
{
	tally(user, section, key, value);
	return 1;
}

START_TEST(test_table_matches_conf_file)
{
	struct key_tally t;

	tally_init(&t);
	t.conf_file = true;
	ck_assert_int_eq(ini_parse(SOURCE_DIR "/etc/edgeauth.conf", on_conf_entry, &t), 0);
	expect_tally_complete(&t, "etc/edgeauth.conf");
	/* and it loads, to the defaults */
	ck_assert_msg(config_load(&fx.cfg, SOURCE_DIR "/etc/edgeauth.conf", fx.err,
	                          sizeof fx.err) == 0, "%s", fx.err);
	/* its ../var paths: the source tree's var/ */
	expect_defaults(&fx.cfg, SOURCE_DIR);
}
END_TEST

/* Reads a docs/configuration.md row "| `[section] key` | `default` | meaning |" (a default
 * of "empty", unquoted, is the empty string) into t; other lines are not rows. */
static void tally_doc_row(struct key_tally *t, char *line)
{
	char *section, *key, *value, *end;

	if (strncmp(line, "| `[", 4) != 0)
		return;
	section = line + 4;
	key = strstr(section, "] ");
	ck_assert_msg(key != NULL, "docs/configuration.md row without \"] \": %s", line);
	*key = '\0';
	key += 2;
	end = strstr(key, "` | ");
	ck_assert_msg(end != NULL, "docs/configuration.md row without \"` | \": %s", line);
	*end = '\0';
	value = end + 4;
	if (*value == '`') {
		end = strchr(++value, '`');
		ck_assert_msg(end != NULL, "docs/configuration.md default not closed: %s", line);
		*end = '\0';
	} else {
		ck_assert_msg(strncmp(value, "empty |", 7) == 0,
		              "docs/configuration.md default neither `quoted` nor empty: %s", line);
		value = "";
	}
	tally(t, section, key, value);
}

START_TEST(test_table_matches_docs)
{
	struct key_tally t;
	FILE *f = fopen(SOURCE_DIR "/docs/configuration.md", "r");
	char *line = NULL;
	size_t cap = 0;

	ck_assert_ptr_nonnull(f);
	tally_init(&t);
	while (getline(&line, &cap, f) > 0)
		tally_doc_row(&t, line);
	free(line);
	fclose(f);
	expect_tally_complete(&t, "docs/configuration.md");
}
END_TEST

/* No key twice; every range is one; every default is a value the file may
 * hold (config_init applies them unchecked but for an assert). */
START_TEST(test_table_sane)
{
	size_t n;
	const struct config_key *k = config_keys(&n);
	char text[256];

	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(strcmp(k[i].section, k[j].section) || strcmp(k[i].key, k[j].key),
			              "[%s] %s twice", k[i].section, k[i].key);
		ck_assert_msg(k[i].min <= k[i].max, "[%s] %s: min > max", k[i].section, k[i].key);
		ck_assert_msg(!k[i].path || k[i].type == CONFIG_STRING ||
		              k[i].type == CONFIG_OPTIONAL_STRING,
		              "[%s] %s: a path is a string", k[i].section, k[i].key);
		ck_assert_msg((k[i].type == CONFIG_PARSED) == (k[i].parse != NULL),
		              "[%s] %s: a parse function is for CONFIG_PARSED only", k[i].section,
		              k[i].key);
		snprintf(text, sizeof text, "[%s]\n%s = %s\n", k[i].section, k[i].key,
		         k[i].default_value);
		ck_assert_msg(load(text) == 0, "default of [%s] %s: %s", k[i].section, k[i].key,
		              fx.err);
	}
}
END_TEST

START_TEST(test_max_connections_per_address)
{
	ck_assert_int_eq(fx.cfg.max_connections_per_address, 64);
	ck_assert_msg(load("[server]\nmax_connections_per_address = 1\n") == 0, "%s", fx.err);
	ck_assert_int_eq(fx.cfg.max_connections_per_address, 1);
	ck_assert_msg(load("[server]\nmax_connections_per_address = 1000000\n") == 0, "%s",
	              fx.err);
	ck_assert_int_eq(fx.cfg.max_connections_per_address, 1000000);
	ck_assert_int_eq(load("[server]\nmax_connections_per_address = 0\n"), -1);
	expect_error_at(2, "expected a whole number from 1 to 1000000", "zero");
	ck_assert_int_eq(load("[server]\n\nmax_connections_per_address = 1000001\n"), -1);
	expect_error_at(3, "expected a whole number from 1 to 1000000", "above the maximum");
}
END_TEST

/* docs/operations.md §"TLS": both files or neither; with them an https issuer; an
 * empty value is no file; hsts_max_age_s is a number of seconds. */
START_TEST(test_tls_keys)
{
	ck_assert_int_eq(load("[server]\ntls_cert = c.pem\n"), -1);
	ck_assert_ptr_nonnull(strstr(fx.err, "tls_cert and tls_key go together"));
	config_release(&fx.cfg);   /* a load goes over what the last one set */
	config_init(&fx.cfg);
	ck_assert_int_eq(load("[server]\nissuer = https://x.example\ntls_key = k.pem\n"), -1);
	ck_assert_ptr_nonnull(strstr(fx.err, "tls_cert and tls_key go together"));
	config_release(&fx.cfg);
	config_init(&fx.cfg);
	ck_assert_int_eq(load("[server]\ntls_cert = c.pem\ntls_key = k.pem\n"), -1);
	ck_assert_msg(strstr(fx.err, "the issuer must be an https URL, not http://127.0.0.1:8080")
	              != NULL, "%s", fx.err);
	ck_assert_msg(load("[server]\nissuer = https://edge.lan:8443\ntls_cert = c.pem\n"
	                   "tls_key = k.pem\nhsts_max_age_s = 63072000\n") == 0, "%s", fx.err);
	ck_assert(config_tls_enabled(&fx.cfg));
	ck_assert_str_eq(fx.cfg.tls_key, in_dir(fx.dir, "k.pem"));
	ck_assert_int_eq(fx.cfg.hsts_max_age_s, 63072000);
	/* an https issuer without TLS of our own: a reverse proxy in front */
	ck_assert_msg(load("[server]\ntls_cert =\ntls_key =\n") == 0, "%s", fx.err);
	ck_assert(!config_tls_enabled(&fx.cfg));
	ck_assert(config_issuer_https(&fx.cfg));
	ck_assert_ptr_null(fx.cfg.tls_cert);
	ck_assert_int_eq(load("[server]\nhsts_max_age_s = 63072001\n"), -1);
	expect_error_at(2, "expected a whole number from 0 to 63072000", "hsts above two years");
	ck_assert_int_eq(load("[server]\nhsts_max_age_s = -1\n"), -1);
	expect_error_at(2, "expected a whole number from 0 to 63072000", "negative hsts");
}
END_TEST

/* issue27.3 (docs/operations.md §"Configuration"): every path key's relative value is
 * taken relative to the config file's directory, also when the file is
 * named by a relative path; absolute values stay as they are. */
START_TEST(test_relative_paths_under_config_dir)
{
	char parent[PATH_MAX], cwd[PATH_MAX], rel[PATH_MAX];
	char *real = realpath(fx.dir, NULL);

	ck_assert_ptr_nonnull(real);
	snprintf(parent, sizeof parent, "%.*s", (int)(strrchr(real, '/') - real), real);
	ck_assert_msg(load("[server]\nissuer = https://edge.lan\ntls_cert = tls/c.pem\n"
	                   "tls_key = /abs/k.pem\n[store]\npath = ./data/e.db\n"
	                   "[tokens]\nsigning_key = s.pem\nkey_encryption_key_file = ../kek\n"
	                   "[audit]\nfile = a.jsonl\n") == 0, "%s", fx.err);
	ck_assert_str_eq(fx.cfg.tls_cert, in_dir(fx.dir, "tls/c.pem"));
	ck_assert_str_eq(fx.cfg.tls_key, "/abs/k.pem");
	ck_assert_str_eq(fx.cfg.store_path, in_dir(fx.dir, "data/e.db"));
	ck_assert_str_eq(fx.cfg.signing_key, in_dir(fx.dir, "s.pem"));
	ck_assert_str_eq(fx.cfg.key_encryption_key_file, in_dir(parent, "kek"));
	ck_assert_str_eq(fx.cfg.audit_file, in_dir(fx.dir, "a.jsonl"));
	/* the file named relative to the working directory: the same files */
	config_release(&fx.cfg);
	config_init(&fx.cfg);
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
	ck_assert_int_eq(chdir(parent), 0);
	snprintf(rel, sizeof rel, "%s/edgeauth.conf", strrchr(real, '/') + 1);
	ck_assert_msg(config_load(&fx.cfg, rel, fx.err, sizeof fx.err) == 0, "%s", fx.err);
	ck_assert_int_eq(chdir(cwd), 0);
	ck_assert_str_eq(fx.cfg.store_path, in_dir(fx.dir, "data/e.db"));
	ck_assert_str_eq(fx.cfg.key_encryption_key_file, in_dir(parent, "kek"));
	free(real);
}
END_TEST

/* issue27.reload: config_reload applies the reloadable keys in place,
 * reports the others without applying them, and refuses a bad file whole. */
struct reported {
	char keys[512];
};

static void note_change(const struct config_key *k, bool applied, void *arg)
{
	struct reported *r = arg;
	size_t n = strlen(r->keys);

	snprintf(r->keys + n, sizeof r->keys - n, "%s%s.%s=%s", n ? " " : "", k->section, k->key,
	         applied ? "applied" : "restart");
}

START_TEST(test_reload)
{
	struct reported r = { "" };

	ck_assert_int_eq(load("[server]\nlisten = 127.0.0.1:8080\n[tokens]\naccess_ttl_s = 900\n"), 0);
	write_conf("[server]\nlisten = 127.0.0.1:9090\ncors_origins = https://a.example\n"
	           "[tokens]\naccess_ttl_s = 60\n[signin]\ntracked_keys = 64\n");
	ck_assert_int_eq(config_reload(&fx.cfg, fx.path, note_change, &r, fx.err, sizeof fx.err), 0);
	ck_assert_str_eq(r.keys, "server.listen=restart server.cors_origins=applied "
	                 "tokens.access_ttl_s=applied signin.tracked_keys=restart");
	ck_assert_int_eq(fx.cfg.access_ttl_s, 60);
	ck_assert_int_eq(fx.cfg.listen_port, 8080);
	ck_assert_int_eq(fx.cfg.signin_tracked_keys, 4096);
	ck_assert(config_cors_allowed(&fx.cfg, "https://a.example"));
	/* a bad value anywhere: nothing changes */
	r.keys[0] = '\0';
	write_conf("[tokens]\naccess_ttl_s = 30\nrefresh_ttl_s = 0\n");
	ck_assert_int_eq(config_reload(&fx.cfg, fx.path, note_change, &r, fx.err, sizeof fx.err), -1);
	ck_assert_ptr_nonnull(strstr(fx.err, "expected a whole number"));
	ck_assert_str_eq(r.keys, "");
	ck_assert_int_eq(fx.cfg.access_ttl_s, 60);
}
END_TEST

/* A listener gets or loses TLS only at a restart. */
START_TEST(test_reload_tls_on_needs_restart)
{
	struct reported r = { "" };

	ck_assert_int_eq(load("[server]\nissuer = https://a.example\n"), 0);
	write_conf("[server]\nissuer = https://a.example\ntls_cert = /c.pem\ntls_key = /k.pem\n");
	ck_assert_int_eq(config_reload(&fx.cfg, fx.path, note_change, &r, fx.err, sizeof fx.err), 0);
	ck_assert_str_eq(r.keys, "server.tls_cert=restart server.tls_key=restart");
	ck_assert(!config_tls_enabled(&fx.cfg));
}
END_TEST

static Suite *config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc;

	tc = tcase_create("defaults");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_empty_file_keeps_defaults);
	suite_add_tcase(s, tc);

	tc = tcase_create("valid");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_full_file_overrides_every_key);
	tcase_add_test(tc, test_listen_forms);
	tcase_add_test(tc, test_bounds_accepted);
	tcase_add_test(tc, test_postgres_urls_accepted);
	tcase_add_test(tc, test_relative_paths_under_config_dir);
	suite_add_tcase(s, tc);

	tc = tcase_create("refused");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_bad_file, 0, N_ELEMS(bad_cases));
	tcase_add_test(tc, test_argon2_memory_per_lane);
	tcase_add_test(tc, test_error_line_after_valid_lines);
	tcase_add_test(tc, test_missing_file);
	tcase_add_test(tc, test_tls_keys);
	tcase_add_test(tc, test_metrics_listen_apart);
	tcase_add_test(tc, test_dump);
	tcase_add_loop_test(tc, test_mask_secret, 0, N_ELEMS(masked));
	suite_add_tcase(s, tc);

	tc = tcase_create("cors");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_cors_origins_split);
	tcase_add_test(tc, test_cors_origins_single_and_empty);
	tcase_add_test(tc, test_cors_allowed);
	tcase_add_test(tc, test_cors_default_allows_nothing);
	suite_add_tcase(s, tc);

	tc = tcase_create("table");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_table_matches_conf_file);
	tcase_add_test(tc, test_table_matches_docs);
	tcase_add_test(tc, test_table_sane);
	tcase_add_test(tc, test_max_connections_per_address);
	suite_add_tcase(s, tc);

	tc = tcase_create("regressions");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, regression_reason_belongs_to_the_line);
	tcase_add_test(tc, regression_long_line_refused);
	tcase_add_test(tc, test_dump_masks_store_url);
	tcase_add_test(tc, regression_long_line_not_truncated);
	tcase_add_test(tc, regression_indented_line);
	tcase_add_test(tc, regression_bom_unknown_empty_section);
	tcase_add_test(tc, regression_listen_v6_without_port);
	tcase_add_test(tc, regression_directory_as_file);
	tcase_add_test(tc, test_reload);
	tcase_add_test(tc, test_reload_tls_on_needs_restart);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(config_suite()));
}
