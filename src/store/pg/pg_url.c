/* [store] url's checks (pg_url.h). libpq parses the string; nothing here
 * connects, resolves or prints a value of it but a host. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <libpq-fe.h>

#include "pg_url.h"
#include "pq_lib.h"
#include "util.h"

/* The value of option key in opts, or "" when it is not set. */
static const char *option(const PQconninfoOption *opts, const char *key)
{
	for (const PQconninfoOption *o = opts; o->keyword; o++)
		if (!strcmp(o->keyword, key))
			return o->val ? o->val : "";
	return "";
}

/* The i-th element of a comma-separated list, into buf ("" past the end). */
static const char *nth(const char *list, int i, char *buf, size_t len)
{
	const char *p = list, *end;

	for (; i > 0 && p; i--)
		p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
	if (!p)
		p = "";
	end = strchrnul(p, ',');
	snprintf(buf, len, "%.*s", (int)(end - p), p);
	return buf;
}

static int count(const char *list)
{
	int n = *list ? 1 : 0;

	for (const char *p = list; *p; p++)
		n += *p == ',';
	return n;
}

static bool numeric_address(const char *h)
{
	unsigned char addr[16];

	return inet_pton(AF_INET, h, addr) == 1 || inet_pton(AF_INET6, h, addr) == 1;
}

/* Host i of the url: whether TCP reaches it; -1 with the reason for a
 * name the loop would have to resolve. */
static int host_is_tcp(const char *hosts, const char *addrs, int i, char *reason,
                       size_t reason_len)
{
	char h[256], a[256];

	nth(hosts, i, h, sizeof h);
	nth(addrs, i, a, sizeof a);
	if (*a)
		return 1;
	if (!*h || h[0] == '/' || h[0] == '@')
		return 0;   /* a socket directory (or the default one) */
	if (numeric_address(h))
		return 1;
	snprintf(reason, reason_len, "url: host %.100s is a name, which would be resolved with"
	         " the loop waiting; give its address as hostaddr= beside host=", h);
	return -1;
}

int pg_url_check(const char *url, bool insecure_transport, struct pg_url_info *info,
                 char *reason, size_t reason_len)
{
	char *msg = NULL;
	PQconninfoOption *opts;
	const char *hosts, *addrs;
	int rc = -1;

	memset(info, 0, sizeof *info);
	if (pq_lib_load(reason, reason_len) < 0)
		return -1;
	opts = PQconninfoParse(url, &msg);
	if (!opts) {
		snprintf(reason, reason_len, "url is not a libpq connection string or URI: %.100s",
		         msg ? strtok(msg, "\n") : "out of memory");
		PQfreemem(msg);
		return -1;
	}
	hosts = option(opts, "host");
	addrs = option(opts, "hostaddr");
	info->hosts = count(hosts) > count(addrs) ? count(hosts) : count(addrs);
	if (info->hosts == 0)
		info->hosts = 1;
	if (*option(opts, "password")) {
		snprintf(reason, reason_len, "url may not hold a password: use a passfile (mode"
		         " 0600), peer or certificate authentication");
		goto out;
	}
	for (int i = 0; i < info->hosts; i++) {
		int tcp = host_is_tcp(hosts, addrs, i, reason, reason_len);

		if (tcp < 0)
			goto out;
		info->tcp = info->tcp || tcp;
	}
	if (info->tcp && !insecure_transport && strcmp(option(opts, "sslmode"), "verify-full")) {
		snprintf(reason, reason_len, "url reaches its server over TCP, which needs"
		         " sslmode=verify-full (with sslrootcert), or [store] insecure_transport = true");
		goto out;
	}
	rc = 0;
out:
	PQconninfoFree(opts);
	return rc;
}
