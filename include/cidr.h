#ifndef EDGEAUTH_CIDR_H
#define EDGEAUTH_CIDR_H
/*
 * Address ranges in CIDR notation ("10.0.0.0/8", "fd00::/8", "127.0.0.1"
 * for one host), for the config's lists of addresses ([server]
 * trusted_proxies). Addresses are 16 bytes: IPv6, or IPv4 mapped into
 * ::ffff:0:0/96, so that one comparison serves both families.
 */
#include <stdbool.h>
#include <stddef.h>

#define CIDR_REASON_MAX 160

struct cidr {
	unsigned char addr[16];   /* the bits past prefix are zero */
	int prefix;               /* 0..128, counted in the 16-byte form */
};

struct cidr_list {
	struct cidr *items;
	size_t count;
};

/* An IPv4 or IPv6 literal (no brackets, no port, no zone) into out.
 * Returns 0, or -1 when text is not one. */
int cidr_addr_parse(const char *text, unsigned char out[16]);
/* addr as text: dotted IPv4 for a mapped address, else IPv6. */
void cidr_addr_format(const unsigned char addr[16], char *buf, size_t size);

/* Space- or tab-separated ranges into *out (emptied first; empty text is
 * no range). Returns 0, or -1 with the reason (the first bad item named). */
int cidr_list_parse(const char *text, struct cidr_list *out, char reason[CIDR_REASON_MAX]);
void cidr_list_release(struct cidr_list *l);
/* Whether addr is in one of the ranges. */
bool cidr_list_contains(const struct cidr_list *l, const unsigned char addr[16]);

#endif
