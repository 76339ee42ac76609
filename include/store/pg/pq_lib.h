#ifndef EDGEAUTH_PQ_LIB_H
#define EDGEAUTH_PQ_LIB_H
/*
 * libpq, loaded when the PostgreSQL store is first asked for, not linked:
 * a server on SQLite never maps libpq and the Kerberos, LDAP and GnuTLS
 * libraries it pulls in (~3.5 MiB resident; docs/development.md "Libraries"). The PQ*
 * functions the code calls are defined in pq_lib.c and call libpq's own.
 */
#include <stddef.h>

/* Loads libpq.so.5 once (later calls are free). 0, or -1 with the reason in
 * errbuf. Every PQ* call must come after a 0 from it. */
int pq_lib_load(char *errbuf, size_t errlen);

#endif
