#ifndef EDGEAUTH_ADDR_COUNTS_H
#define EDGEAUTH_ADDR_COUNTS_H
/*
 * Open connections by client address (conn_guard.c's [server]
 * max_connections_per_address): a hash table seeded at start, so that
 * nobody can choose addresses that share a bucket. A client address is
 * its group (cidr_client_group) as 16 bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

/* Open connections from one client address. */
struct addr_count {
	unsigned char addr[16];    /* IPv6, or IPv4 as ::ffff:a.b.c.d */
	int count;
	SLIST_ENTRY(addr_count) link;   /* in its bucket */
};
SLIST_HEAD(addr_chain, addr_count);   /* a bucket's */

struct addr_counts {
	struct addr_chain *buckets;
	size_t nbuckets;           /* a power of two */
	size_t n;
	uint64_t seed;
};

/* An empty table with a fresh seed. */
void addr_counts_init(struct addr_counts *t);
/* Frees the table; every count has been dropped. */
void addr_counts_release(struct addr_counts *t);
/* The count of addr, made (at 0) if new; the caller increments it. */
struct addr_count *addr_counts_find(struct addr_counts *t, const unsigned char addr[16]);
/* Decrements a's count, and forgets the address when none is left. */
void addr_counts_drop(struct addr_counts *t, struct addr_count *a);
/* The client group of the socket's peer (cidr_client_group) as 16 bytes:
 * an IPv4 address mapped into IPv6 (::ffff:a.b.c.d), an IPv6 /64 with its
 * last 8 bytes zero, so that the two never meet. Returns -1 for a socket
 * that has none (it is then not counted). */
int addr_counts_peer(int fd, unsigned char out[16]);

#endif
