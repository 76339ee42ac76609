/*
 * libpq by dlopen (pq_lib.h). Each PQ* function the code uses is defined
 * here with libpq-fe.h's own prototype (the compiler holds the two equal)
 * and calls the function of that name in the loaded library. Only the loop
 * thread and the CLI call libpq, after pq_lib_load; the table is written once.
 */
#include <assert.h>
#include <dlfcn.h>
#include <stdio.h>
#include <libpq-fe.h>

#include "pq_lib.h"

#define PQ_SONAME "libpq.so.5"

/* X(return type, name, parameters, arguments) of a function with a value;
 * V(name, parameters, arguments) of one without. */
#define PQ_FUNCTIONS(X, V) \
	X(PGconn *, PQconnectStartParams, (const char *const *k, const char *const *v, int e), (k, v, e)) \
	X(PGconn *, PQconnectdbParams, (const char *const *k, const char *const *v, int e), (k, v, e)) \
	X(PGconn *, PQconnectdb, (const char *info), (info)) \
	X(PostgresPollingStatusType, PQconnectPoll, (PGconn *c), (c)) \
	X(ConnStatusType, PQstatus, (const PGconn *c), (c)) \
	X(PGTransactionStatusType, PQtransactionStatus, (const PGconn *c), (c)) \
	X(char *, PQerrorMessage, (const PGconn *c), (c)) \
	X(int, PQsocket, (const PGconn *c), (c)) \
	X(int, PQsetnonblocking, (PGconn *c, int arg), (c, arg)) \
	X(PQnoticeProcessor, PQsetNoticeProcessor, (PGconn *c, PQnoticeProcessor p, void *arg), \
	  (c, p, arg)) \
	V(PQfinish, (PGconn *c), (c)) \
	X(PQconninfoOption *, PQconninfoParse, (const char *info, char **msg), (info, msg)) \
	V(PQconninfoFree, (PQconninfoOption *o), (o)) \
	X(PGresult *, PQexec, (PGconn *c, const char *q), (c, q)) \
	X(PGresult *, PQexecParams, (PGconn *c, const char *q, int n, const Oid *t, \
	                             const char *const *v, const int *l, const int *f, int rf), \
	  (c, q, n, t, v, l, f, rf)) \
	X(int, PQsendQueryParams, (PGconn *c, const char *q, int n, const Oid *t, \
	                           const char *const *v, const int *l, const int *f, int rf), \
	  (c, q, n, t, v, l, f, rf)) \
	X(int, PQsendPrepare, (PGconn *c, const char *name, const char *q, int n, const Oid *t), \
	  (c, name, q, n, t)) \
	X(int, PQsendQueryPrepared, (PGconn *c, const char *name, int n, const char *const *v, \
	                             const int *l, const int *f, int rf), \
	  (c, name, n, v, l, f, rf)) \
	X(int, PQenterPipelineMode, (PGconn *c), (c)) \
	X(int, PQpipelineSync, (PGconn *c), (c)) \
	X(int, PQflush, (PGconn *c), (c)) \
	X(int, PQconsumeInput, (PGconn *c), (c)) \
	X(int, PQisBusy, (PGconn *c), (c)) \
	X(PGresult *, PQgetResult, (PGconn *c), (c)) \
	X(PGnotify *, PQnotifies, (PGconn *c), (c)) \
	X(ExecStatusType, PQresultStatus, (const PGresult *r), (r)) \
	X(char *, PQresultErrorMessage, (const PGresult *r), (r)) \
	X(char *, PQresultErrorField, (const PGresult *r, int code), (r, code)) \
	X(int, PQntuples, (const PGresult *r), (r)) \
	X(int, PQnfields, (const PGresult *r), (r)) \
	X(int, PQfnumber, (const PGresult *r, const char *name), (r, name)) \
	X(char *, PQgetvalue, (const PGresult *r, int row, int col), (r, row, col)) \
	X(int, PQgetisnull, (const PGresult *r, int row, int col), (r, row, col)) \
	V(PQclear, (PGresult *r), (r)) \
	X(unsigned char *, PQescapeByteaConn, (PGconn *c, const unsigned char *from, size_t len, \
	                                       size_t *out_len), (c, from, len, out_len)) \
	X(unsigned char *, PQunescapeBytea, (const unsigned char *text, size_t *len), (text, len)) \
	V(PQfreemem, (void *p), (p))

#define PQ_INDEX(ret, name, params, args) PQ_I_##name,
#define PQ_VINDEX(name, params, args) PQ_I_##name,
enum { PQ_FUNCTIONS(PQ_INDEX, PQ_VINDEX) PQ_I__COUNT };

#define PQ_NAME(ret, name, params, args) #name,
#define PQ_VNAME(name, params, args) #name,
static const char *const pq_names[PQ_I__COUNT] = { PQ_FUNCTIONS(PQ_NAME, PQ_VNAME) };

/* libpq's functions by index; POSIX lets dlsym's void * become a function pointer. */
static void *pq_fn[PQ_I__COUNT];
static void *pq_handle;

int pq_lib_load(char *errbuf, size_t errlen)
{
	void *handle;
	const char *err;

	if (pq_handle)
		return 0;
	handle = dlopen(PQ_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		err = dlerror();
		snprintf(errbuf, errlen, "the PostgreSQL store needs %s (Debian's libpq5): %s",
		         PQ_SONAME, err ? err : "not found");
		return -1;
	}
	for (int i = 0; i < PQ_I__COUNT; i++) {
		pq_fn[i] = dlsym(handle, pq_names[i]);
		if (!pq_fn[i]) {
			snprintf(errbuf, errlen, "%s has no %s: it is older than this edgeauth needs",
			         PQ_SONAME, pq_names[i]);
			dlclose(handle);
			return -1;
		}
	}
	pq_handle = handle;
	return 0;
}

#define PQ_CALL(ret, name, params, args) \
	ret name params \
	{ \
		assert(pq_handle); \
		return ((ret (*) params)pq_fn[PQ_I_##name]) args; \
	}
#define PQ_VCALL(name, params, args) \
	void name params \
	{ \
		assert(pq_handle); \
		((void (*) params)pq_fn[PQ_I_##name]) args; \
	}
PQ_FUNCTIONS(PQ_CALL, PQ_VCALL)
