#ifndef EDGEAUTH_STORE_FILES_H
#define EDGEAUTH_STORE_FILES_H
/*
 * Whether the store's files are still the ones its connection writes, and
 * the sync of its WAL (store.h: group commit). No SQLite here.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <sys/types.h>

/* The store file and its WAL as the connection opened them. SQLite keeps
 * writing through its own descriptors whatever happens to the names; these
 * say whether the names still lead to the same files (SQLite's "how to
 * corrupt" list: a file unlinked, renamed over, or truncated underneath). */
/* Room for the reason store_files_check gives. */
#define STORE_FILES_WHY_MAX 300

struct store_files {
	char *db_path;
	char *wal_path;
	int wal_fd;                  /* the WAL, opened once: syncs go through it */
	dev_t db_dev, wal_dev;
	ino_t db_ino, wal_ino;
	/* The largest size the WAL was seen at: SQLite never shrinks it
	 * (journal_size_limit -1), so a smaller one was truncated by another.
	 * Read and written by the loop and the sync thread. */
	_Atomic long long wal_seen;
};

/* Opens path's WAL once and notes which files path and the WAL are now;
 * call just after SQLite opened them (the WAL exists once the connection
 * has read). 0, or -1 with the reason in errbuf. */
int store_files_open(struct store_files *f, const char *path, char *errbuf, size_t errlen);
/* Closes the WAL's descriptor and frees f's names (a zeroed f: nothing). */
void store_files_close(struct store_files *f);
/* fdatasync of the WAL through the descriptor opened with the store (never
 * a reopen by name, which finds nothing or another file once the WAL is
 * unlinked), then store_files_check; on any thread (it touches nothing
 * else of the store). 0, or what store_files_check returns (-1 too when
 * the sync failed), with why. */
int store_files_sync(struct store_files *f, char *why, size_t len);
/* Whether the store file and the WAL are still the files the store opened,
 * at their names, and the WAL no shorter than it was seen: 0, or -1 with
 * why (in a sentence for the log); STORE_FILES_WAL_UNLINKED (< 0, with why)
 * when only the WAL's name is gone: the store file is still the store's,
 * and a checkpoint can still carry the WAL's frames into it. */
#define STORE_FILES_WAL_UNLINKED (-2)
int store_files_check(struct store_files *f, char *why, size_t len);

/* Creates the directories of path that are missing (mode 0700, with their
 * parents: docs/configuration.md "Configuration" lets [store] path name a
 * new directory).
 * Returns 0, or -1 with the system's reason in errbuf. */
int store_files_make_parent_dir(const char *path, char *errbuf, size_t errlen);
/* Whether the store file path and its WAL, those that exist, are private
 * to their owner: 0, or -1 with the reason in errbuf. */
int store_files_check_private(const char *path, char *errbuf, size_t errlen);

#endif
