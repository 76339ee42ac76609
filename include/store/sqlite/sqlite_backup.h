#ifndef EDGEAUTH_SQLITE_BACKUP_H
#define EDGEAUTH_SQLITE_BACKUP_H
/*
 * The SQLite side of backup and restore (store_backup.h, docs/operations.md
 * §"Backup and restore"): the online backup of a store file and the check
 * of a copy. The front (store_backup.c) names, places and locks the files.
 */
#include <stddef.h>

/* Pages copied a step, and the pause between steps, so that the server's
 * writes and reads share the disk with the copy. */
#define BACKUP_STEP_PAGES 64
#define BACKUP_STEP_PAUSE_MS 2

/* The snapshot of the store at store_path copied into the existing empty
 * file tmp, in steps, inside one read transaction; then the copy's check
 * (sqlite_backup_check, naming it dest). 0, or -1 with the reason. */
int sqlite_backup_into(const char *store_path, const char *tmp, const char *dest, char *errbuf,
                       size_t errlen);

/* The file at path passes PRAGMA integrity_check and its schema version is
 * one this edgeauth can open (1 .. its own); errors name it name. 0, or -1
 * with the reason. */
int sqlite_backup_check(const char *path, const char *name, char *errbuf, size_t errlen);

#endif
