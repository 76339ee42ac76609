#ifndef EDGEAUTH_JBODY_H
#define EDGEAUTH_JBODY_H
/*
 * Reading JSON request bodies into checked values, and building response
 * records. Every failure is invalid_params with a sentence that names the
 * field. Strings handed out are borrowed from the json_t and live as long as
 * it does. (Form bodies and query strings: form.h.)
 */
#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "error.h"

/* Parses a JSON request body: must be a well-formed object, valid UTF-8, no
 * U+0000 in strings, no duplicate keys. Returns a new reference or NULL with err set. */
json_t *jbody_parse(const char *data, size_t len, struct api_error *err);

enum field_state {
	FIELD_ABSENT,   /* key not in the body: on update, keep the stored value */
	FIELD_CLEAR,    /* null or "": on update, clear the stored value */
	FIELD_SET,      /* a non-empty string that passed the checks */
};

struct str_field {
	enum field_state state;
	const char *value;  /* NULL unless FIELD_SET */
};

/* Value checks applied to a present, non-empty string. */
enum str_check {
	CHECK_NONE,
	CHECK_CODE,   /* validate_code */
	CHECK_EMAIL,  /* validate_email */
	CHECK_URL,    /* validate_http_url */
};

struct str_rule {
	const char *key;
	bool required;      /* must be present, a string and non-empty */
	size_t min_chars;   /* 0: none */
	size_t max_chars;   /* 0: none */
	enum str_check check;
};

/* Reads body[rule->key]. A required field that is absent, null, "" or not a
 * string fails. An optional one: absent -> FIELD_ABSENT, null or "" ->
 * FIELD_CLEAR, a string -> checked, FIELD_SET; any other type fails. */
int jbody_read_string(const json_t *body, const struct str_rule *rule,
                     struct str_field *out, struct api_error *err);

/* Reads body[key] as a boolean. *out is -1 when absent (fails if required),
 * else 0 or 1. null or another type fails. */
int jbody_read_bool(const json_t *body, const char *key, bool required, int *out,
                   struct api_error *err);

/* A set of IDs read from a JSON array of strings, duplicates dropped, order kept. */
struct jbody_id_list {
	bool present;       /* false when the key was absent */
	size_t count;
	const char **ids;   /* borrowed strings; the array is owned (jbody_id_list_release) */
};
#define ID_LIST_INIT { false, 0, NULL }

/* Reads body[key]: absent -> present=false; null -> present, empty; an
 * array of non-empty strings of at most ID_MAX_CHARS -> present, deduplicated.
 * Anything else fails. At most max_count distinct entries. */
int jbody_read_id_list(const json_t *body, const char *key, size_t max_count,
                      struct jbody_id_list *out, struct api_error *err);
void jbody_id_list_release(struct jbody_id_list *list);

/*
 * A JSON object written directly, for the answers of every grant (the
 * token answer, an access token's claims), whose values need no escape:
 * IDs and tokens are base64url, scopes named permissions of valid codes.
 * A string value that would need one (a row another program wrote) is
 * not escaped by jbody_writer_string: the object is then refused, and the
 * caller builds it with jansson; jbody_writer_text escapes user text. A
 * zeroed struct is not valid: start with jbody_writer_init.
 */
struct jbody_writer {
	char *buf;
	size_t len, cap;
	bool plain;   /* false once a string value needed an escape */
};

/* Starts an object ("{") with room for about hint bytes. */
void jbody_writer_init(struct jbody_writer *w, size_t hint);
/* Adds "name":"value"; a NULL value is left out. name is a literal that
 * needs no escape. */
void jbody_writer_string(struct jbody_writer *w, const char *name, const char *value);
/* Adds "name":n. */
void jbody_writer_int(struct jbody_writer *w, const char *name, long long n);
/* Adds "name":"value" escaped as jansson escapes it, for text a user
 * wrote; a NULL value, or one jansson refuses (invalid UTF-8), is left
 * out, as json_object_set_new(o, name, json_string(value)) leaves it. */
void jbody_writer_text(struct jbody_writer *w, const char *name, const char *value);
/* Adds "name":["w1","w2",...], the words of a space-separated list, each
 * as jbody_writer_text writes it; no member when the list has no word. */
void jbody_writer_words(struct jbody_writer *w, const char *name, const char *list);
/* Adds "name":json, json being JSON text already ("true", "[\"pwd\"]"). */
void jbody_writer_raw(struct jbody_writer *w, const char *name, const char *json);
/* Closes the object: its text (NUL-terminated, *len bytes; caller frees),
 * or NULL, everything freed, when a value needed an escape. */
char *jbody_writer_finish(struct jbody_writer *w, size_t *len);

/* Response helpers: a string or JSON null for NULL; a timestamp string. */
json_t *jbody_string_or_null(const char *s);
json_t *jbody_timestamp(long long ms);

#endif
