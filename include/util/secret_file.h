#ifndef EDGEAUTH_SECRET_FILE_H
#define EDGEAUTH_SECRET_FILE_H
/*
 * Files that hold a secret (the signing key file, the key-encryption key):
 * read only when they are regular files no one but the owner may access,
 * created with mode 0600 and never overwritten. Reasons name the file.
 */
#include <stddef.h>

/* Reads the regular file at path, at most max bytes, into *out (a new
 * buffer of max + 1 bytes, NUL after the data; the caller wipes it with
 * secret_file_free) and *len. Returns 0, 1 when the file does not exist,
 * -1 with a reason in errbuf (not a regular file, group or others may
 * access it, larger than max, unreadable). what names the file in reasons
 * ("key file"). */
int secret_file_read(const char *path, const char *what, size_t max, unsigned char **out,
                     size_t *len, char *errbuf, size_t errlen);
/* Wipes and frees a buffer of secret_file_read (size max + 1); NULL is a no-op. */
void secret_file_free(unsigned char *buf, size_t max);
/* Creates path with data[0..len), mode 0600 (O_EXCL: never over an existing
 * file), its directory (one level, mode 0700) if missing, synced; removed
 * again when it cannot be written whole. Returns 0, 1 when the file exists
 * already, -1 with a reason in errbuf. */
int secret_file_create(const char *path, const char *what, const void *data, size_t len,
                       char *errbuf, size_t errlen);
/* As secret_file_create, but an existing file at path is replaced whole
 * (written beside it as path.tmp, then renamed over it): a reader sees the
 * old file or the new one. Returns 0, or -1 with a reason in errbuf. */
int secret_file_replace(const char *path, const char *what, const void *data, size_t len,
                        char *errbuf, size_t errlen);
/* Writes data[0..len) to fd whole (through no stdio buffer, which would
 * keep a copy of the secret). Returns 0, or -1 with errno. */
int secret_file_write_fd(int fd, const void *data, size_t len);

#endif
