#ifndef EDGEAUTH_UTIL_H
#define EDGEAUTH_UTIL_H
/*
 * Small things every module needs. Allocation failure aborts (xmalloc and
 * friends), so no code path is left half-handled on out-of-memory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "timestamp.h"   /* the clocks and timestamps, which every module needs */

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a new string; caller frees */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* mkdir -p of the directory that holds path: each missing directory is
 * made with mode 0700 (the umask may take more away). Returns 0, or -1
 * with errno, *failed (caller frees) naming the directory that could not
 * be made. */
int make_parent_dirs(const char *path, char **failed);

/* A string's hash for in-memory tables (djb2): fast, not for hostile keys
 * where collisions would matter. Inline: the store's cache hashes on every
 * read. */
static inline size_t str_hash(const char *s)
{
	size_t h = 5381;

	for (const char *p = s; *p; p++)
		h = h * 33 + (unsigned char)*p;
	return h;
}

#endif
