#ifndef EDGEAUTH_PG_URL_H
#define EDGEAUTH_PG_URL_H
/*
 * [store] url, a libpq connection string or URI, held to the rules of docs/operations.md
 * §"A fleet on PostgreSQL" before anything connects: no password in it, a TCP host only over
 * TLS that checks the server's name (sslmode=verify-full) unless the
 * operator says the network needs none, and no host name that the loop
 * would have to resolve (libpq resolves names with a blocking
 * getaddrinfo): such a host needs hostaddr beside it.
 */
#include <stdbool.h>
#include <stddef.h>

/* What the checks found out about a url that passed them. */
struct pg_url_info {
	int hosts;        /* how many hosts it names (1 for the default socket) */
	bool tcp;         /* at least one is reached over TCP */
};

/* 0 when url is one edgeauth may use (insecure_transport: no TLS rule),
 * with *info filled; else -1 with the reason (never a secret of url). */
int pg_url_check(const char *url, bool insecure_transport, struct pg_url_info *info,
                 char *reason, size_t reason_len);

#endif
