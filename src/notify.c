/*
 * sd_notify from libsystemd (notify.h). sd_watchdog_enabled reads
 * WATCHDOG_USEC, and WATCHDOG_PID when set (the pings are for that process
 * only); the timer runs in the loop, so pings stop when the loop does.
 */
#include <stdint.h>
#include <stdlib.h>
#include <event2/event.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "notify.h"
#include "util.h"

struct notify {
	struct event *watchdog;
};

static void on_watchdog(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	sd_notify(0, "WATCHDOG=1");
}

struct notify *notify_ready(struct event_base *base)
{
	struct notify *n = xcalloc(1, sizeof *n);
	uint64_t usec = 0;

	if (sd_notify(0, "READY=1") < 0)
		log_warn("cannot tell the service manager READY=1");
	if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
		struct timeval tv = { (time_t)(usec / 2 / 1000000), (suseconds_t)(usec / 2 % 1000000) };

		n->watchdog = event_new(base, -1, EV_PERSIST, on_watchdog, n);
		event_add(n->watchdog, &tv);
		sd_notify(0, "WATCHDOG=1");
	}
	return n;
}

void notify_stopping(void)
{
	sd_notify(0, "STOPPING=1");
}

void notify_free(struct notify *n)
{
	if (!n)
		return;
	if (n->watchdog)
		event_free(n->watchdog);
	free(n);
}
