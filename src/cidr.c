/*
 * CIDR ranges (cidr.h). Parsing is strict: an address inet_pton takes, a
 * prefix of digits within the family's bits, and no host bits set past
 * the prefix (a typo such as 10.0.0.1/8 is refused rather than widened).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cidr.h"
#include "util.h"
#include "validate.h"

/* 96 bits of ::ffff: before a mapped IPv4 address */
#define V4_MAPPED_BITS 96

static const unsigned char v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

int cidr_addr_parse(const char *text, unsigned char out[16])
{
	struct in_addr v4;

	if (inet_pton(AF_INET, text, &v4) == 1) {
		memcpy(out, v4_mapped, sizeof v4_mapped);
		memcpy(out + 12, &v4, 4);
		return 0;
	}
	return inet_pton(AF_INET6, text, out) == 1 ? 0 : -1;
}

void cidr_addr_format(const unsigned char addr[16], char *buf, size_t size)
{
	if (!memcmp(addr, v4_mapped, sizeof v4_mapped))
		inet_ntop(AF_INET, addr + 12, buf, (socklen_t)size);
	else
		inet_ntop(AF_INET6, addr, buf, (socklen_t)size);
}

/* Whether a and b agree in their first bits bits. */
static bool prefix_equal(const unsigned char *a, const unsigned char *b, int bits)
{
	int whole = bits / 8, rest = bits % 8;

	if (memcmp(a, b, (size_t)whole) != 0)
		return false;
	return rest == 0 || ((a[whole] ^ b[whole]) & (0xff << (8 - rest))) == 0;
}

/* One "ADDR[/PREFIX]" into *c. */
static int parse_one(const char *item, struct cidr *c)
{
	char *text = xstrdup(item), *slash = strchr(text, '/');
	unsigned char masked[16];
	long prefix = -1;
	int rc = -1;
	bool v4;

	if (slash)
		*slash = '\0';
	if (cidr_addr_parse(text, c->addr) < 0)
		goto out;
	/* "::ffff:10.0.0.1" is IPv6 notation: its prefix counts 128 bits */
	v4 = !strchr(text, ':');
	if (!slash)
		prefix = v4 ? 32 : 128;
	else if (parse_long_range(slash + 1, 0, v4 ? 32 : 128, &prefix) < 0)
		goto out;
	c->prefix = (int)prefix + (v4 ? V4_MAPPED_BITS : 0);
	/* no bit set past the prefix */
	memcpy(masked, c->addr, 16);
	for (int bit = c->prefix; bit < 128; bit++)
		masked[bit / 8] &= (unsigned char)~(0x80 >> (bit % 8));
	rc = memcmp(masked, c->addr, 16) == 0 ? 0 : -1;
out:
	free(text);
	return rc;
}

int cidr_list_parse(const char *text, struct cidr_list *out, char reason[CIDR_REASON_MAX])
{
	char *copy = xstrdup(text), *save = NULL, *tok;
	int rc = 0;

	cidr_list_release(out);
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		out->items = xrealloc(out->items, (out->count + 1) * sizeof *out->items);
		if (parse_one(tok, &out->items[out->count]) < 0) {
			snprintf(reason, CIDR_REASON_MAX, "'%.60s' is not an address or a CIDR range "
			         "(ADDRESS/PREFIX, no bits set past the prefix)", tok);
			rc = -1;
			break;
		}
		out->count++;
	}
	free(copy);
	if (rc < 0)
		cidr_list_release(out);
	return rc;
}

void cidr_list_release(struct cidr_list *l)
{
	free(l->items);
	l->items = NULL;
	l->count = 0;
}

bool cidr_list_contains(const struct cidr_list *l, const unsigned char addr[16])
{
	for (size_t i = 0; i < l->count; i++)
		if (prefix_equal(addr, l->items[i].addr, l->items[i].prefix))
			return true;
	return false;
}
