/*
 * A disk that syncs slowly, for t_sync.sh (LD_PRELOAD): while the file
 * SLOWSYNC_FILE names holds a number, every fdatasync and fsync of the
 * process takes that many ms more; while it holds "fail", they fail with
 * EIO. Read at each call, so a test changes the disk as it goes.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int slow(int (*real)(int), int fd)
{
	const char *path = getenv("SLOWSYNC_FILE");
	char buf[16] = "";
	int f = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;

	if (f >= 0) {
		ssize_t n = read(f, buf, sizeof buf - 1);
		buf[n > 0 ? n : 0] = '\0';
		close(f);
	}
	if (!strncmp(buf, "fail", 4)) {
		errno = EIO;
		return -1;
	}
	if (buf[0] >= '0' && buf[0] <= '9') {
		long ms = atol(buf);
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	return real(fd);
}

int fdatasync(int fd)
{
	static int (*real)(int);

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	return slow(real, fd);
}

int fsync(int fd)
{
	static int (*real)(int);

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	return slow(real, fd);
}
