#ifndef EDGEAUTH_STORE_URL_H
#define EDGEAUTH_STORE_URL_H
/*
 * [store] url's check, for the configuration (config.c), which reads it
 * before anything connects and may not include a backend's header: the
 * rules are PostgreSQL's (pg_url.h, docs/operations.md §"A fleet on
 * PostgreSQL").
 */
#include <stdbool.h>
#include <stddef.h>

/* 0 when url is one edgeauth may use (insecure_transport: no TLS rule);
 * else -1 with the reason (never a secret of url). */
int store_url_check(const char *url, bool insecure_transport, char *reason, size_t reason_len);

#endif
