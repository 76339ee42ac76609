/*
 * A disk that syncs slowly, for t_sync.sh (LD_PRELOAD): while the file
 * SLOWSYNC_FILE names holds a number, every fdatasync and fsync of the
 * process takes that many ms more; while it holds "hold", they wait until
 * it holds something else (a test decides when the disk is done, rather
 * than race a clock); while it holds "fail", they fail with EIO. Read at
 * each call, so a test changes the disk as it goes. Each call first adds a
 * line to SLOWSYNC_FILE.log, so a test sees a sync begin and counts them.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* What the file at path holds now, into buf ("" when none). */
static void disk_read(const char *path, char *buf, size_t len)
{
	int f = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	ssize_t n = -1;

	if (f >= 0) {
		n = read(f, buf, len - 1);
		close(f);
	}
	buf[n > 0 ? n : 0] = '\0';
}

static void sync_note(const char *path)
{
	char log[4096];
	int f;

	if (!path || snprintf(log, sizeof log, "%s.log", path) >= (int)sizeof log)
		return;
	f = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (f >= 0) {
		ssize_t n = write(f, "sync\n", 5);   /* one missing: the test's count says so */

		(void)n;
		close(f);
	}
}

static int slow(int (*real)(int), int fd)
{
	const char *path = getenv("SLOWSYNC_FILE");
	char buf[16];
	struct timespec tick = { 0, 10000000L };

	sync_note(path);
	disk_read(path, buf, sizeof buf);
	while (!strncmp(buf, "hold", 4)) {
		nanosleep(&tick, NULL);
		disk_read(path, buf, sizeof buf);
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
