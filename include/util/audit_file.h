#ifndef EDGEAUTH_AUDIT_FILE_H
#define EDGEAUTH_AUDIT_FILE_H
/*
 * [audit] file (docs/operations.md §"Audit trail"): each committed event of the audit trail
 * appended as one JSON line, for log shippers. The store hands over only
 * events whose transaction committed (store_events_sink). Reopened on
 * SIGHUP, so logrotate can move the file away and have the next event land
 * in a new one. A failure to open or write is logged once (until a write
 * succeeds again) and never stops the server: the store keeps every event.
 */

#include <stddef.h>

struct audit_file;

/* Opens path for appending (created 0600). A file that cannot be opened is
 * logged and tried again at the next reopen. Never NULL. */
struct audit_file *audit_file_open(const char *path);
/* Appends lines (len bytes: one or more records, each ending in a newline)
 * in one write; the sink of store_events_sink (arg: the struct audit_file). */
void audit_file_write(void *arg, const char *lines, size_t len);
/* Closes the file and opens path again (SIGHUP). */
void audit_file_reopen(struct audit_file *f);
/* Closes and frees; NULL is a no-op. */
void audit_file_free(struct audit_file *f);

#endif
