#ifndef EDGEAUTH_STORE_TX_CLOSE_H
#define EDGEAUTH_STORE_TX_CLOSE_H
/*
 * What store_close (store.c) asks of the transactions' side (store_tx.c)
 * before the SQLite connection closes. Only those two files include this:
 * it names no store.h type beyond struct store, so that neither file's
 * module includes the other's.
 */
struct store;

/* Ends the loop iteration's read transaction (store_read_stamp) and, after
 * store_fail_writes saw the WAL unlinked, copies what the WAL holds into
 * the store file: every write answered is kept. */
void store_tx_close(struct store *st);

#endif
