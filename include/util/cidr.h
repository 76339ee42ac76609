#ifndef EDGEAUTH_CIDR_H
#define EDGEAUTH_CIDR_H
/*
 * IP networks written as CIDRs ("10.0.0.0/8", "fe80::/10", "192.0.2.7"),
 * and whether an address lies in one. An IPv4-mapped IPv6 address
 * (::ffff:a.b.c.d) counts as the IPv4 address it maps, so that an IPv6
 * socket cannot reach what a rule on the IPv4 address keeps out.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

struct cidr {
	int family;                /* AF_INET or AF_INET6 */
	unsigned char addr[16];    /* network order; the first 4 for AF_INET */
	unsigned bits;             /* prefix length: 0..32 or 0..128 */
};

/* Parses an address with an optional "/bits" (without: that one address).
 * The bits after the prefix must be zero, so that a typo (10.0.0.1/8) is
 * not quietly taken for another network. 0, or -1. */
int cidr_parse(const char *text, struct cidr *out);
/* A list of them separated by spaces or tabs; an empty text is no entry
 * (*list NULL, *n 0). 0, or -1 with reason naming the first bad entry.
 * The caller frees *list. */
int cidr_parse_list(const char *text, struct cidr **list, size_t *n, char *reason,
                    size_t reason_len);
/* The address of sa (AF_INET or AF_INET6; an IPv4-mapped IPv6 address as
 * its IPv4 address) as the one-address network, and its port in *port
 * (host order; NULL: not wanted). -1 for another family. */
int cidr_of_sockaddr(const struct sockaddr *sa, struct cidr *out, unsigned *port);
/* An address written as text (IPv4, or IPv6 without brackets) with port,
 * as a sockaddr into ss: 0, or -1 when text is not an address (a name). */
int cidr_sockaddr_parse(const char *text, unsigned port, struct sockaddr_storage *ss);
/* The group an address counts in for per-client limits (connection caps,
 * sign-in throttling): an IPv4 address alone, an IPv6 address its /64,
 * since one host or one LAN normally holds a whole /64 (RFC 4291 §2.5.4,
 * RFC 7421) and would otherwise count as 2^64 clients. c is one address
 * (cidr_of_sockaddr: an IPv4-mapped one is already IPv4); it becomes its
 * group, host bits zeroed. */
void cidr_client_group(struct cidr *c);
/* The group of the address written as text (IPv4, IPv6 without brackets)
 * as text into out: "192.0.2.7", "2001:db8:1:2::/64". An empty or
 * unreadable text is copied as it is. */
void cidr_client_group_text(const char *address, char *out, size_t size);
#define CIDR_GROUP_TEXT_MAX 48
/* Whether the address of sa is in c. */
bool cidr_contains(const struct cidr *c, const struct sockaddr *sa);
/* Whether it is in one of list[0..n). */
bool cidr_list_contains(const struct cidr *list, size_t n, const struct sockaddr *sa);

#endif
