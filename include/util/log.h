#ifndef EDGEAUTH_LOG_H
#define EDGEAUTH_LOG_H
/*
 * The log on stderr (docs/operations.md §"The program", §"Operating"): one line per request, and the
 * start-up, warning and error lines. As text (the default: the line of §1)
 * or, with [log] format = json, one JSON object per line for journald and
 * log shippers. A request line holds method, path, status and time, never a
 * query string, header or body: those carry codes, tokens and passwords.
 * Every write holds whole lines, so lines of several threads never mix.
 * Request lines wait in their thread until log_flush, which the loop runs
 * once an iteration, or until another line is written.
 */
#include <stddef.h>
#include <stdint.h>

enum log_format { LOG_TEXT, LOG_JSON };

/* Set at start, before any line, and by a SIGHUP reload; LOG_TEXT until then. */
void log_set_format(enum log_format format);

/* A request's line. method and path NULL: an answer libevent wrote before
 * edgeauth saw the request (they are gone by then); us < 0: unknown. */
void log_request(const char *method, const char *path, int status, int64_t us);
/* Writes the request lines this thread has gathered, in one write. */
void log_flush(void);

/* "edgeauth: MSG" (warnings "edgeauth: warning: MSG"), or
 * {"time","level","msg"}. */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The request line of log_request, at the wall-clock time time_ms, into
 * buf (NUL-terminated, newline included); returns its length. For tests. */
#define LOG_LINE_MAX 2048
size_t log_format_request(char buf[LOG_LINE_MAX], enum log_format format, int64_t time_ms,
                          const char *method, const char *path, int status, int64_t us);
/* s as the inside of a JSON string (no quotes): '"', '\\' and control
 * bytes escaped, invalid UTF-8 as U+FFFD, cut at a character boundary
 * when it would pass cap - 1 bytes (then "..." ends it). Returns the
 * length written to out (NUL-terminated). */
size_t log_json_string(char *out, size_t cap, const char *s);

#endif
