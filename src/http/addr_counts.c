/*
 * Open connections by client address (addr_counts.h): conn_guard.c counts
 * each admitted connection under its peer's client group and refuses one
 * past [server] max_connections_per_address.
 */
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <event2/util.h>

#include "addr_counts.h"
#include "cidr.h"
#include "util.h"

#define ADDR_BUCKETS_MIN 64

void addr_counts_init(struct addr_counts *t)
{
	memset(t, 0, sizeof *t);
	evutil_secure_rng_get_bytes(&t->seed, sizeof t->seed);
}

void addr_counts_release(struct addr_counts *t)
{
	free(t->buckets);
	t->buckets = NULL;
}

static size_t bucket_of(const struct addr_counts *t, const unsigned char *addr)
{
	uint64_t h = 14695981039346656037ULL ^ t->seed;   /* FNV-1a */

	for (int i = 0; i < 16; i++)
		h = (h ^ addr[i]) * 1099511628211ULL;
	return (size_t)(h ^ (h >> 32)) & (t->nbuckets - 1);
}

static void grow(struct addr_counts *t)
{
	struct addr_chain *old = t->buckets;
	size_t n = t->nbuckets;
	struct addr_count *a;

	t->nbuckets = n ? n * 2 : ADDR_BUCKETS_MIN;
	t->buckets = xcalloc(t->nbuckets, sizeof *t->buckets);   /* all empty */
	for (size_t i = 0; i < n; i++)
		while ((a = SLIST_FIRST(&old[i]))) {
			SLIST_REMOVE_HEAD(&old[i], link);
			SLIST_INSERT_HEAD(&t->buckets[bucket_of(t, a->addr)], a, link);
		}
	free(old);
}

struct addr_count *addr_counts_find(struct addr_counts *t, const unsigned char addr[16])
{
	struct addr_chain *bucket;
	struct addr_count *a;

	if (t->n >= t->nbuckets)
		grow(t);
	bucket = &t->buckets[bucket_of(t, addr)];
	SLIST_FOREACH(a, bucket, link)
		if (!memcmp(a->addr, addr, sizeof a->addr))
			return a;
	a = xcalloc(1, sizeof *a);
	memcpy(a->addr, addr, sizeof a->addr);
	SLIST_INSERT_HEAD(bucket, a, link);
	t->n++;
	return a;
}

void addr_counts_drop(struct addr_counts *t, struct addr_count *a)
{
	if (--a->count > 0)
		return;
	SLIST_REMOVE(&t->buckets[bucket_of(t, a->addr)], a, addr_count, link);
	free(a);
	t->n--;
}

int addr_counts_peer(int fd, unsigned char out[16])
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	struct cidr c;

	if (getpeername(fd, (struct sockaddr *)&ss, &len) != 0 ||
	    cidr_of_sockaddr((struct sockaddr *)&ss, &c, NULL) < 0)
		return -1;
	cidr_client_group(&c);
	if (c.family == AF_INET6) {
		memcpy(out, c.addr, 16);
		return 0;
	}
	memset(out, 0, 10);
	out[10] = out[11] = 0xff;
	memcpy(out + 12, c.addr, 4);
	return 0;
}
