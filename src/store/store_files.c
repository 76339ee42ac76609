/*
 * The store file and its WAL under the running server: the batches' sync
 * through a descriptor opened once, and the checks that the names still
 * lead to the files SQLite writes; at open, the parent directory and the
 * files' modes. Touches no connection: the sync thread runs it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_files.h"
#include "util.h"

/* Whether name still leads to the file dev/ino: 0, or -1 with why. An
 * error other than "gone" proves nothing either way (a directory made
 * unreadable): it passes, and the sync through the descriptor goes on. */
static int same_file(const char *name, dev_t dev, ino_t ino, char *why, size_t len)
{
	struct stat sb;

	if (stat(name, &sb) != 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			return 0;
		snprintf(why, len, "%s was removed or renamed under the running server", name);
		return -1;
	}
	if (sb.st_dev != dev || sb.st_ino != ino) {
		snprintf(why, len, "%s was replaced by another file under the running server", name);
		return -1;
	}
	return 0;
}

int store_files_check(struct store_files *f, char *why, size_t len)
{
	struct stat sb;
	long long seen;

	if (fstat(f->wal_fd, &sb) != 0) {
		snprintf(why, len, "cannot stat the WAL %s: %s", f->wal_path, strerror(errno));
		return -1;
	}
	if (sb.st_nlink == 0) {
		if (same_file(f->db_path, f->db_dev, f->db_ino, why, len) < 0)
			return -1;
		snprintf(why, len, "the WAL %s was unlinked under the running server", f->wal_path);
		return STORE_FILES_WAL_UNLINKED;
	}
	seen = atomic_load(&f->wal_seen);
	if ((long long)sb.st_size < seen) {
		snprintf(why, len, "the WAL %s was truncated under the running server (%lld bytes,"
		         " was %lld)", f->wal_path, (long long)sb.st_size, seen);
		return -1;
	}
	atomic_store(&f->wal_seen, (long long)sb.st_size);
	if (same_file(f->wal_path, f->wal_dev, f->wal_ino, why, len) < 0 ||
	    same_file(f->db_path, f->db_dev, f->db_ino, why, len) < 0)
		return -1;
	return 0;
}

int store_files_sync(struct store_files *f, char *why, size_t len)
{
	if (fdatasync(f->wal_fd) != 0) {
		snprintf(why, len, "sync of %s failed: %s", f->wal_path, strerror(errno));
		return -1;
	}
	return store_files_check(f, why, len);
}

int store_files_open(struct store_files *f, const char *path, char *errbuf, size_t errlen)
{
	struct stat db, wal;

	f->db_path = xstrdup(path);
	f->wal_path = xasprintf("%s-wal", path);
	f->wal_fd = open(f->wal_path, O_RDONLY | O_CLOEXEC);
	if (f->wal_fd < 0 || fstat(f->wal_fd, &wal) != 0 || stat(path, &db) != 0) {
		snprintf(errbuf, errlen, "cannot open the store's WAL %s: %s", f->wal_path,
		         strerror(errno));
		return -1;
	}
	f->db_dev = db.st_dev;
	f->db_ino = db.st_ino;
	f->wal_dev = wal.st_dev;
	f->wal_ino = wal.st_ino;
	atomic_init(&f->wal_seen, (long long)wal.st_size);
	return 0;
}

void store_files_close(struct store_files *f)
{
	if (f->wal_path && f->wal_fd >= 0)
		close(f->wal_fd);
	free(f->db_path);
	free(f->wal_path);
}

int store_files_make_parent_dir(const char *path, char *errbuf, size_t errlen)
{
	char *failed = NULL;

	if (make_parent_dirs(path, &failed) == 0)
		return 0;
	snprintf(errbuf, errlen, "cannot create the directory %s of the store %s: %s", failed, path,
	         strerror(errno));
	free(failed);
	return -1;
}

/* The store holds password and token hashes: a file others may read is
 * refused, as the signing key is. */
int store_files_check_private(const char *path, char *errbuf, size_t errlen)
{
	static const char *const suffixes[] = { "", "-wal" };
	int rc = 0;

	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0] && rc == 0; i++) {
		char *name = xasprintf("%s%s", path, suffixes[i]);
		struct stat sb;

		if (stat(name, &sb) == 0 && (sb.st_mode & (S_IRWXG | S_IRWXO))) {
			snprintf(errbuf, errlen, "store file %s is accessible to others (mode %03o);"
			         " run chmod 600 on it", name, (unsigned)(sb.st_mode & 0777));
			rc = -1;
		}
		free(name);
	}
	return rc;
}
