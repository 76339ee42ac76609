/* Allocation that aborts on failure. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "util.h"

static void die_oom(void)
{
	log_error("out of memory");
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die_oom();
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		die_oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die_oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		die_oom();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p)
		die_oom();
	return p;
}

/* Measured, then written once into memory of its size: vasprintf grows a
 * buffer of its own and frees the smaller ones unwiped, and some of what is
 * formatted here is a secret (a client's answer, a session's cookie). */
char *xvasprintf(const char *fmt, va_list ap)
{
	va_list again;
	char *p;
	int n;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0)
		die_oom();   /* only an invalid format, which the compiler checks */
	p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, again);
	va_end(again);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

int make_parent_dirs(const char *path, char **failed)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int rc = 0, err = 0;

	*failed = NULL;
	if (slash && slash != dir) {
		*slash = '\0';
		/* each prefix in turn, the last one being the directory itself */
		for (char *p = dir + 1; rc == 0; p++) {
			char c = *p;

			if (c != '/' && c != '\0')
				continue;
			*p = '\0';
			if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
				rc = -1;
				err = errno;
				*failed = xstrdup(dir);
			}
			*p = c;
			if (!c)
				break;
		}
	}
	free(dir);
	errno = err;
	return rc;
}
