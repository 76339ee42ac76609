#ifndef EDGEAUTH_NOTIFY_H
#define EDGEAUTH_NOTIFY_H
/*
 * The service manager's notifications (sd_notify, docs/operations.md §"systemd"):
 * READY=1 once every listener is bound, STOPPING=1 when a stop begins, and
 * WATCHDOG=1 from a timer of the loop at half of WATCHDOG_USEC when the
 * manager asks for it (so a stuck loop stops the pings). Without
 * NOTIFY_SOCKET (not under systemd) each is a no-op.
 */
struct event_base;
struct notify;

/* Says READY=1 and starts the watchdog timer when asked for. Never NULL. */
struct notify *notify_ready(struct event_base *base);
void notify_stopping(void);
/* RELOADING=1 when a SIGHUP reload begins, READY=1 when it ends. */
void notify_reloading(void);
void notify_reloaded(void);
/* Stops the timer; NULL is a no-op. */
void notify_free(struct notify *n);

#endif
