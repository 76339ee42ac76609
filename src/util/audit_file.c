/*
 * The audit trail's JSON-lines file (audit_file.h). Loop thread only. A
 * record is IDs and fixed words (store_events.h), never a secret; the file
 * is still made 0600, as the store is.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "audit_file.h"
#include "util.h"

struct audit_file {
	char *path;
	int fd;            /* -1: not open */
	bool failing;      /* a failure was logged; quiet until a write succeeds */
};

/* Logs what failed, once per run of failures. */
static void failed(struct audit_file *f, const char *what, int err)
{
	if (f->failing)
		return;
	f->failing = true;
	log_error("audit file %s: %s: %s (events stay in the store; logged once)",
	          f->path, what, strerror(err));
}

static void file_open(struct audit_file *f)
{
	f->fd = open(f->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (f->fd < 0)
		failed(f, "cannot open", errno);
}

struct audit_file *audit_file_open(const char *path)
{
	struct audit_file *f = xcalloc(1, sizeof *f);

	f->path = xstrdup(path);
	file_open(f);
	return f;
}

/* One write() of whole lines, so that lines of two processes (the server
 * and a CLI command) appending to the file never interleave; and one per
 * commit, not per event: the loop makes no copy and one system call for
 * the batch (docs/BENCHMARKS.md). */
void audit_file_write(void *arg, const char *lines, size_t len)
{
	struct audit_file *f = arg;
	ssize_t w;

	assert(len > 0 && lines[len - 1] == '\n');
	if (f->fd < 0) {
		failed(f, "not open", EBADF);
	} else if ((w = write(f->fd, lines, len)) != (ssize_t)len) {
		failed(f, "cannot write", w < 0 ? errno : EIO);
	} else {
		f->failing = false;
	}
}

void audit_file_reopen(struct audit_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	file_open(f);
}

void audit_file_free(struct audit_file *f)
{
	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	free(f->path);
	free(f);
}
