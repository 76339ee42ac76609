#ifndef EDGEAUTH_STORE_BACKUP_H
#define EDGEAUTH_STORE_BACKUP_H
/*
 * Backup and restore of the SQLite store (docs/operations.md §"Backup and restore"), run by the CLI
 * process: backup beside a running server, restore only while none runs.
 * A running server holds a shared lock on a file beside the store
 * (STORE.lock); restore takes it exclusively, so neither starts while the
 * other is at work.
 */
#include <stdbool.h>
#include <stddef.h>

/* Locks store_path's lock file, shared (a server) or exclusive (restore),
 * without waiting. Returns the descriptor to keep open while it holds, or
 * -1 with the reason in errbuf (busy: a server runs; restore: a restore or
 * a server). */
int store_lock(const char *store_path, bool exclusive, char *errbuf, size_t errlen);

/* Copies the store at store_path, as one consistent snapshot taken when it
 * begins, into dest, a new file (mode 0600; an existing one is never
 * overwritten), in steps; then PRAGMA integrity_check of the copy. Returns
 * 0, or -1 with the reason in errbuf (dest is then removed, unless it was
 * there before). */
int store_backup(const char *store_path, const char *dest, char *errbuf, size_t errlen);

/* Puts the backup src in place of the store at store_path, which no server
 * may be using (the lock): src is copied beside the store, checked with
 * PRAGMA integrity_check, migrated to this edgeauth's schema, everything
 * issued before now is invalidated in it (store_invalidate_all), and it is
 * renamed over the store. *restored_at gets that time (ms). Returns 0, or
 * -1 with the reason in errbuf (the store untouched). */
int store_restore(const char *store_path, bool synchronous_full, const char *src,
                  long long *restored_at, char *errbuf, size_t errlen);

#endif
