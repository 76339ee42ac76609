/*
 * The log (log.h): text lines as docs/operations.md §"The program" has them, or JSON objects.
 * Nothing from the network reaches a line unescaped: in text, bytes a
 * terminal would act on become '?'; in JSON, every string is escaped, so a
 * path cannot forge or break a line.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "timestamp.h"
#include "validate.h"

/* Where a text line's path is cut ("..." then marks it). */
#define TEXT_PATH_MAX 255
/* A JSON line's path at most, in bytes of its escaped form. */
#define JSON_PATH_MAX 512
#define MSG_MAX 768

/* Written by the loop thread (at start, on a SIGHUP reload), read by any
 * thread that logs. */
static _Atomic enum log_format log_format = LOG_TEXT;

void log_set_format(enum log_format format)
{
	log_format = format;
}

/* Request lines wait here for log_flush: one write a line cost ~4 µs on
 * our 2-core machine, a fifth of a /healthz (docs/BENCHMARKS.md). At most
 * PIPE_BUF bytes, so a write to a pipe stays whole. Per thread. */
static _Thread_local char pending[PIPE_BUF];
static _Thread_local size_t pending_len;

void log_flush(void)
{
	if (pending_len > 0)
		fwrite(pending, 1, pending_len, stderr);
	pending_len = 0;
}

/* Any other line: after the request lines before it. */
static void write_line(const char *line, size_t len)
{
	log_flush();
	fwrite(line, 1, len, stderr);
}

/* The length of the valid UTF-8 character at s (of n bytes left), or 0. */
static size_t utf8_char_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;

	return len && len <= n && utf8_valid((const char *)s, len) ? len : 0;
}

size_t log_json_string(char *out, size_t cap, const char *s)
{
	static const char ellipsis[] = "...", replacement[] = "\\ufffd";
	const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
	size_t o = 0, len;

	/* room for the longest escape (6 bytes), the ellipsis and the NUL */
	for (; p < end && o + 6 + sizeof ellipsis <= cap; p += len) {
		len = 1;
		if (*p == '"' || *p == '\\') {
			out[o++] = '\\';
			out[o++] = (char)*p;
		} else if (*p < 0x20 || *p == 0x7f) {
			o += (size_t)snprintf(out + o, 7, "\\u%04x", *p);
		} else if (*p < 0x80) {
			out[o++] = (char)*p;
		} else if ((len = utf8_char_len(p, (size_t)(end - p)))) {
			memcpy(out + o, p, len);
			o += len;
		} else {
			len = 1;
			memcpy(out + o, replacement, sizeof replacement - 1);
			o += sizeof replacement - 1;
		}
	}
	if (p < end) {
		memcpy(out + o, ellipsis, sizeof ellipsis - 1);
		o += sizeof ellipsis - 1;
	}
	out[o] = '\0';
	return o;
}

/* The path as text: control bytes as '?', cut at TEXT_PATH_MAX. */
static void text_path(char out[TEXT_PATH_MAX + 4], const char *path)
{
	size_t i;

	for (i = 0; path[i] && i < TEXT_PATH_MAX; i++) {
		unsigned char c = (unsigned char)path[i];
		out[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	strcpy(out + i, path[i] ? "..." : "");
}

size_t log_format_request(char buf[LOG_LINE_MAX], enum log_format format, int64_t time_ms,
                          const char *method, const char *path, int status, int64_t us)
{
	char when[TIMESTAMP_LEN], text[TEXT_PATH_MAX + 4], json[JSON_PATH_MAX];
	int n;

	if (format == LOG_TEXT && !method)
		n = snprintf(buf, LOG_LINE_MAX, "? ? %d -\n", status);
	else if (format == LOG_TEXT) {
		text_path(text, path);
		n = snprintf(buf, LOG_LINE_MAX, "%s %s %d %lldus\n", method, text, status,
		             (long long)us);
	} else {
		format_timestamp(time_ms, when);
		if (path)
			log_json_string(json, sizeof json, path);
		n = snprintf(buf, LOG_LINE_MAX, "{\"time\":\"%s\",\"method\":%s%s%s,\"path\":%s%s%s,"
		             "\"status\":%d,\"us\":", when, method ? "\"" : "", method ? method : "null",
		             method ? "\"" : "", path ? "\"" : "", path ? json : "null",
		             path ? "\"" : "", status);
		n += snprintf(buf + n, LOG_LINE_MAX - (size_t)n, us < 0 ? "null}\n" : "%lld}\n",
		              (long long)us);
	}
	return (size_t)n;
}

void log_request(const char *method, const char *path, int status, int64_t us)
{
	char line[LOG_LINE_MAX];
	size_t n = log_format_request(line, log_format, log_format == LOG_JSON ? now_ms() : 0,
	                              method, path, status, us);

	_Static_assert(LOG_LINE_MAX <= PIPE_BUF, "a request line fits the pending lines");
	if (pending_len + n > sizeof pending)
		log_flush();
	memcpy(pending + pending_len, line, n);
	pending_len += n;
}

/* One message line of level (info, warning, error). */
static void log_message(const char *level, const char *fmt, va_list ap)
{
	char msg[MSG_MAX], line[LOG_LINE_MAX], when[TIMESTAMP_LEN], json[MSG_MAX * 2];
	int n;

	vsnprintf(msg, sizeof msg, fmt, ap);
	if (log_format == LOG_TEXT) {
		n = snprintf(line, sizeof line, "edgeauth: %s%s%s\n",
		             strcmp(level, "warning") ? "" : level, strcmp(level, "warning") ? "" : ": ",
		             msg);
	} else {
		format_timestamp(now_ms(), when);
		log_json_string(json, sizeof json, msg);
		n = snprintf(line, sizeof line, "{\"time\":\"%s\",\"level\":\"%s\",\"msg\":\"%s\"}\n",
		             when, level, json);
	}
	write_line(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_message("info", fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_message("warning", fmt, ap);
	va_end(ap);
}

void log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_message("error", fmt, ap);
	va_end(ap);
}
