/* IP networks as CIDRs, and membership of an address. Pure functions over
 * bytes: no name is ever resolved here. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cidr.h"
#include "util.h"
#include "validate.h"

#define ADDR_TEXT_MAX 64

static size_t addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}

/* Whether the first bits bits of a and b are the same. */
static bool prefix_equal(const unsigned char *a, const unsigned char *b, unsigned bits)
{
	size_t whole = bits / 8;
	unsigned rest = bits % 8;
	unsigned char mask = (unsigned char)(0xff << (8 - rest));

	if (memcmp(a, b, whole) != 0)
		return false;
	return rest == 0 || ((a[whole] ^ b[whole]) & mask) == 0;
}

/* Whether every bit of a[0..len) after the first bits is zero. */
static bool host_bits_zero(const unsigned char *a, size_t len, unsigned bits)
{
	for (size_t i = bits / 8; i < len; i++) {
		/* the byte the prefix ends in keeps its first bits % 8 bits */
		unsigned char keep = i == bits / 8 ? (unsigned char)(0xff << (8 - bits % 8)) : 0;
		if (a[i] & (unsigned char)~keep)
			return false;
	}
	return true;
}

int cidr_parse(const char *text, struct cidr *out)
{
	const char *slash = strchr(text, '/');
	size_t n = slash ? (size_t)(slash - text) : strlen(text);
	char addr[ADDR_TEXT_MAX];
	long bits;

	memset(out, 0, sizeof *out);
	if (n == 0 || n >= sizeof addr)
		return -1;
	memcpy(addr, text, n);
	addr[n] = '\0';
	if (inet_pton(AF_INET, addr, out->addr) == 1)
		out->family = AF_INET;
	else if (inet_pton(AF_INET6, addr, out->addr) == 1)
		out->family = AF_INET6;
	else
		return -1;
	bits = (long)addr_len(out->family) * 8;
	if (slash && parse_long_range(slash + 1, 0, bits, &bits) < 0)
		return -1;
	out->bits = (unsigned)bits;
	return host_bits_zero(out->addr, addr_len(out->family), out->bits) ? 0 : -1;
}

int cidr_parse_list(const char *text, struct cidr **list, size_t *n, char *reason,
                    size_t reason_len)
{
	char *copy = xstrdup(text), *save = NULL, *tok;
	int rc = 0;

	*list = NULL;
	*n = 0;
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		*list = xrealloc(*list, (*n + 1) * sizeof **list);
		if (cidr_parse(tok, &(*list)[*n]) < 0) {
			snprintf(reason, reason_len, "'%.60s' is not an address or CIDR "
			         "(e.g. 10.0.0.0/8, fd00::/8)", tok);
			free(*list);
			*list = NULL;
			*n = 0;
			rc = -1;
			break;
		}
		(*n)++;
	}
	free(copy);
	return rc;
}

int cidr_of_sockaddr(const struct sockaddr *sa, struct cidr *out, unsigned *port)
{
	static const unsigned char v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	memset(out, 0, sizeof *out);
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
		out->family = AF_INET;
		memcpy(out->addr, &in->sin_addr, 4);
		out->bits = 32;
		if (port)
			*port = ntohs(in->sin_port);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
		const unsigned char *b = in6->sin6_addr.s6_addr;
		if (memcmp(b, v4_mapped, sizeof v4_mapped) == 0) {
			out->family = AF_INET;
			memcpy(out->addr, b + 12, 4);
			out->bits = 32;
		} else {
			out->family = AF_INET6;
			memcpy(out->addr, b, 16);
			out->bits = 128;
		}
		if (port)
			*port = ntohs(in6->sin6_port);
		return 0;
	}
	return -1;
}

int cidr_sockaddr_parse(const char *text, unsigned port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof *ss);
	if (inet_pton(AF_INET, text, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		return 0;
	}
	if (inet_pton(AF_INET6, text, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		return 0;
	}
	return -1;
}

#define IPV6_CLIENT_BITS 64

void cidr_client_group(struct cidr *c)
{
	if (c->family != AF_INET6 || c->bits <= IPV6_CLIENT_BITS)
		return;
	memset(c->addr + IPV6_CLIENT_BITS / 8, 0, 16 - IPV6_CLIENT_BITS / 8);
	c->bits = IPV6_CLIENT_BITS;
}

void cidr_client_group_text(const char *address, char *out, size_t size)
{
	struct sockaddr_storage ss;
	struct cidr c;
	char text[ADDR_TEXT_MAX];

	if (cidr_sockaddr_parse(address, 0, &ss) < 0 ||
	    cidr_of_sockaddr((const struct sockaddr *)&ss, &c, NULL) < 0) {
		snprintf(out, size, "%s", address);
		return;
	}
	cidr_client_group(&c);
	if (!inet_ntop(c.family, c.addr, text, sizeof text))
		snprintf(out, size, "%s", address);
	else if (c.family == AF_INET6)
		snprintf(out, size, "%s/%u", text, c.bits);
	else
		snprintf(out, size, "%s", text);
}

bool cidr_contains(const struct cidr *c, const struct sockaddr *sa)
{
	struct cidr a;

	if (cidr_of_sockaddr(sa, &a, NULL) < 0 || a.family != c->family)
		return false;
	return prefix_equal(a.addr, c->addr, c->bits);
}

bool cidr_list_contains(const struct cidr *list, size_t n, const struct sockaddr *sa)
{
	for (size_t i = 0; i < n; i++)
		if (cidr_contains(&list[i], sa))
			return true;
	return false;
}
