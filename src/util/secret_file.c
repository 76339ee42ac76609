/*
 * Reading and creating the files that hold secrets. A secret file others
 * can read is a secret others may have: it is refused, never used.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "secret_file.h"
#include "util.h"

int secret_file_read(const char *path, const char *what, size_t max, unsigned char **out,
                     size_t *len, char *errbuf, size_t errlen)
{
	unsigned char *buf = NULL;
	size_t have = 0;
	struct stat st;
	int fd, ret = -1;

	/* O_NONBLOCK: a FIFO at path must not hang the start; no effect on files */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return 1;
		snprintf(errbuf, errlen, "cannot open %s %s: %s", what, path, strerror(errno));
		return -1;
	}
	/* not a directory, FIFO or device */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(errbuf, errlen, "%s %s is not a regular file", what, path);
		goto out;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(errbuf, errlen, "%s %s is accessible to others (mode %03o);"
		         " run chmod 600 on it", what, path, (unsigned)(st.st_mode & 0777));
		goto out;
	}
	buf = xmalloc(max + 1);
	while (have <= max) {
		ssize_t n = read(fd, buf + have, max + 1 - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(errbuf, errlen, "cannot read %s %s: %s", what, path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		have += (size_t)n;
	}
	if (have > max) {
		snprintf(errbuf, errlen, "%s %s is larger than %zu bytes", what, path, max);
		goto out;
	}
	buf[have] = '\0';
	*out = buf;
	*len = have;
	buf = NULL;
	ret = 0;
out:
	secret_file_free(buf, max);
	close(fd);
	return ret;
}

void secret_file_free(unsigned char *buf, size_t max)
{
	if (!buf)
		return;
	OPENSSL_cleanse(buf, max + 1);
	free(buf);
}

/* Creates the directory that holds path, mode 0700, if it is missing. One
 * level only: a missing grandparent is an error. */
static int make_parent(const char *path, const char *what, char *errbuf, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int ret = 0;

	if (!slash || slash == path)
		return 0;
	dir = xstrndup(path, (size_t)(slash - path));
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		snprintf(errbuf, errlen, "cannot create the directory of %s %s: %s", what, path,
		         strerror(errno));
		ret = -1;
	}
	free(dir);
	return ret;
}

int secret_file_write_fd(int fd, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int secret_file_create(const char *path, const char *what, const void *data, size_t len,
                       char *errbuf, size_t errlen)
{
	int fd;

	if (make_parent(path, what, errbuf, errlen) != 0)
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		if (errno == EEXIST)
			return 1;
		snprintf(errbuf, errlen, "cannot create %s %s: %s", what, path, strerror(errno));
		return -1;
	}
	if (secret_file_write_fd(fd, data, len) != 0 || fsync(fd) != 0) {
		snprintf(errbuf, errlen, "cannot write %s %s: %s", what, path, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	if (close(fd) != 0) {
		snprintf(errbuf, errlen, "cannot write %s %s: %s", what, path, strerror(errno));
		unlink(path);
		return -1;
	}
	return 0;
}

int secret_file_replace(const char *path, const char *what, const void *data, size_t len,
                        char *errbuf, size_t errlen)
{
	char *tmp = xasprintf("%s.tmp", path);
	int rc;

	(void)unlink(tmp);   /* left by a start that stopped half-way */
	rc = secret_file_create(tmp, what, data, len, errbuf, errlen);
	if (rc > 0)   /* another writer at the same time */
		snprintf(errbuf, errlen, "cannot write %s %s: %s exists", what, path, tmp);
	if (rc == 0 && rename(tmp, path) != 0) {
		snprintf(errbuf, errlen, "cannot write %s %s: %s", what, path, strerror(errno));
		unlink(tmp);
		rc = -1;
	}
	free(tmp);
	return rc == 0 ? 0 : -1;
}
