/*
 * The service manager's notification protocol (notify.h), spoken directly:
 * one datagram a message to the Unix socket NOTIFY_SOCKET names (a path, or
 * '@' for the abstract namespace), as systemd's sd_notify(3) documents it.
 * Why not libsystemd's sd_notify: linking libsystemd maps it and its five
 * libraries (libgcrypt, liblzma, libzstd, liblz4, libcap) into every server,
 * ~0.8 MiB resident for ten lines of protocol (docs/development.md "Libraries").
 * The socket is non-blocking, so a manager that stopped reading can never
 * hold the loop; a message it had no room for is lost, as a ping may be.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <event2/event.h>

#include "log.h"
#include "notify.h"
#include "util.h"

struct notify {
	struct event *watchdog;
};

/* The manager's address from NOTIFY_SOCKET; 0 when there is none we can use. */
static socklen_t notify_address(struct sockaddr_un *sa)
{
	const char *name = getenv("NOTIFY_SOCKET");
	size_t len = name ? strlen(name) : 0;

	if (len < 2 || len >= sizeof sa->sun_path || (name[0] != '/' && name[0] != '@'))
		return 0;
	memset(sa, 0, sizeof *sa);
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, name, len);
	if (name[0] == '@')
		sa->sun_path[0] = '\0';
	/* An abstract name is exactly its bytes; a path may carry its NUL. */
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + (name[0] == '/'));
}

/* 1 sent, 0 no manager to tell, -1 failed (errno). */
static int notify_send(const char *msg)
{
	struct sockaddr_un sa;
	socklen_t sa_len = notify_address(&sa);
	int fd, sent, err;

	if (sa_len == 0)
		return 0;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	sent = sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa, sa_len) >= 0;
	err = errno;
	close(fd);
	errno = err;
	return sent ? 1 : -1;
}

/* The watchdog's interval in µs, 0 when the manager asks for none: WATCHDOG_USEC,
 * for this process only when WATCHDOG_PID names another. */
static uint64_t watchdog_usec(void)
{
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	unsigned long long v;
	char *end;

	if (pid && *pid) {
		errno = 0;
		v = strtoull(pid, &end, 10);
		if (errno || *end || v != (unsigned long long)getpid())
			return 0;
	}
	if (!usec || !*usec || *usec == '-')
		return 0;
	errno = 0;
	v = strtoull(usec, &end, 10);
	return errno || *end ? 0 : (uint64_t)v;
}

static void on_watchdog(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	notify_send("WATCHDOG=1");
}

struct notify *notify_ready(struct event_base *base)
{
	struct notify *n = xcalloc(1, sizeof *n);
	uint64_t usec;

	if (notify_send("READY=1") < 0)
		log_warn("cannot tell the service manager READY=1: %s", strerror(errno));
	usec = watchdog_usec();
	if (usec > 0 && getenv("NOTIFY_SOCKET")) {
		struct timeval tv = { (time_t)(usec / 2 / 1000000), (suseconds_t)(usec / 2 % 1000000) };

		n->watchdog = event_new(base, -1, EV_PERSIST, on_watchdog, n);
		event_add(n->watchdog, &tv);
		notify_send("WATCHDOG=1");
	}
	return n;
}

void notify_stopping(void)
{
	notify_send("STOPPING=1");
}

void notify_reloading(void)
{
	notify_send("RELOADING=1");
}

void notify_reloaded(void)
{
	notify_send("READY=1");
}

void notify_free(struct notify *n)
{
	if (!n)
		return;
	if (n->watchdog)
		event_free(n->watchdog);
	free(n);
}
