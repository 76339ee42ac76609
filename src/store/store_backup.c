/*
 * Backup and restore (store_backup.h): the files' names, places and locks;
 * SQLite's online backup and the check of a copy are its backend's
 * (sqlite_backup.c). A restore never touches the store until its copy has
 * passed every check; then one rename puts it in place.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sqlite_backup.h"
#include "store.h"
#include "store_backup.h"
#include "store_events.h"
#include "store_projects.h"
#include "util.h"

#define COPY_CHUNK 65536

int store_lock(const char *store_path, bool exclusive, char *errbuf, size_t errlen)
{
	char *path;
	int fd;

	if (store_files_make_parent_dir(store_path, errbuf, errlen) < 0)
		return -1;
	path = xasprintf("%s.lock", store_path);
	/* readable by all: a server and the operator's CLI may be different
	 * users, and a lock file holds nothing */
	fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(errbuf, errlen, "cannot open the lock file %s: %s", path, strerror(errno));
	} else if (flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
		snprintf(errbuf, errlen, errno == EWOULDBLOCK ? (exclusive ?
		         "an edgeauth server is running on %s (or a restore is): stop it first" :
		         "a restore of %s is under way") : "cannot lock %s", store_path);
		close(fd);
		fd = -1;
	}
	free(path);
	return fd;
}

/* Makes the rename (or link) of a file in the directory of path durable. */
static void sync_dir_of(const char *path)
{
	char *copy = xstrdup(path);
	int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(copy);
}

/* Removes a copy that failed, and any journal SQLite left beside it. */
static void remove_copy(const char *path)
{
	static const char *const suffixes[] = { "", "-journal", "-wal", "-shm" };

	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		char *name = xasprintf("%s%s", path, suffixes[i]);
		(void)unlink(name);
		free(name);
	}
}

int store_backup(const char *store_path, const char *dest, char *errbuf, size_t errlen)
{
	char *tmp = xasprintf("%s.partial-XXXXXX", dest);
	int rc = -1, fd;
	bool made = false;

	if (access(dest, F_OK) == 0) {
		snprintf(errbuf, errlen, "%s exists; a backup never overwrites a file", dest);
		goto out;
	}
	/* The copy is made under a name of its own in the destination's
	 * directory and takes dest's only once whole and checked: a backup that
	 * fails or is killed never leaves a file that looks like a backup. */
	fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(errbuf, errlen, "cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	close(fd);
	made = true;
	if (sqlite_backup_into(store_path, tmp, dest, errbuf, errlen) < 0)
		goto out;
	/* link fails on an existing dest, as O_EXCL would: never over a file
	 * that appeared meanwhile */
	if (link(tmp, dest) != 0) {
		snprintf(errbuf, errlen, errno == EEXIST ? "%s exists; a backup never overwrites a file"
		         : "cannot create %s: %s", dest, strerror(errno));
		goto out;
	}
	sync_dir_of(dest);
	rc = 0;
out:
	if (made)   /* dest is a link of its own to the copy once it is done */
		remove_copy(tmp);
	free(tmp);
	return rc;
}

/* Copies the file src to the new file dst (mode 0600). */
static int copy_file(const char *src, const char *dst, char *errbuf, size_t errlen)
{
	char *buf = xmalloc(COPY_CHUNK);
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1, rc = -1;
	ssize_t n = 0;

	if (in < 0) {
		snprintf(errbuf, errlen, "cannot read %s: %s", src, strerror(errno));
		goto done;
	}
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0) {
		snprintf(errbuf, errlen, "cannot create %s: %s", dst, strerror(errno));
		goto done;
	}
	while ((n = read(in, buf, COPY_CHUNK)) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	if (n < 0 || fsync(out) != 0)
		snprintf(errbuf, errlen, "cannot copy %s to %s: %s", src, dst, strerror(errno));
	else
		rc = 0;
done:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	free(buf);
	return rc;
}

/* The copy at tmp: checked, migrated, invalidated at now. */
static int prepare_copy(const char *tmp, const char *src, bool synchronous_full, int64_t now,
                        char *errbuf, size_t errlen)
{
	struct store *st;
	struct api_error err;
	int rc;

	if (sqlite_backup_check(tmp, src, errbuf, errlen) < 0)
		return -1;
	st = store_open(tmp, synchronous_full, errbuf, errlen);
	if (!st)
		return -1;
	store_events_origin(st, &event_origin_cli);   /* a restore is a command's */
	rc = store_invalidate_all(st, now, &err);
	if (rc < 0)
		snprintf(errbuf, errlen, "cannot invalidate what the backup holds: %s", err.description);
	store_close(st);   /* the last connection: the WAL is checkpointed and removed */
	return rc;
}

int store_restore(const char *store_path, bool synchronous_full, const char *src,
                  long long *restored_at, char *errbuf, size_t errlen)
{
	char *tmp = xasprintf("%s.restore-%ld", store_path, (long)getpid());
	char *wal = xasprintf("%s-wal", store_path), *shm = xasprintf("%s-shm", store_path);
	int64_t now = now_ms();
	int lock = store_lock(store_path, true, errbuf, errlen), rc = -1;

	if (lock < 0)
		goto out;
	unlink(tmp);   /* a restore that died before left it */
	if (copy_file(src, tmp, errbuf, errlen) < 0 ||
	    prepare_copy(tmp, src, synchronous_full, now, errbuf, errlen) < 0)
		goto out;
	/* the old store's WAL and index must not be read with the new file */
	if ((unlink(wal) != 0 && errno != ENOENT) || (unlink(shm) != 0 && errno != ENOENT) ||
	    rename(tmp, store_path) != 0) {
		snprintf(errbuf, errlen, "cannot put the copy in place of %s: %s", store_path,
		         strerror(errno));
		goto out;
	}
	sync_dir_of(store_path);
	/* Access tokens carry whole seconds, and those of the restore's own
	 * second count as issued before it: a server may start once that
	 * second is over, and never issue a token that is dead at once. */
	while (now_ms() / 1000 == now / 1000)
		pause_ms(10);
	*restored_at = now;
	rc = 0;
out:
	if (rc < 0)
		unlink(tmp);
	if (lock >= 0)
		close(lock);
	free(tmp);
	free(wal);
	free(shm);
	return rc;
}
