#ifndef EDGEAUTH_LISTING_H
#define EDGEAUTH_LISTING_H
/* What every list endpoint shares (CONTRACT.md §3): page, sort and search
 * parameters, the LIKE pattern for a search, and the response envelope. */
#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include <event2/keyvalq_struct.h>

#include "error.h"

struct list_params {
	long page_num;        /* >= 1 */
	long page_size;       /* 1..PAGE_SIZE_MAX */
	size_t sort;          /* index into the endpoint's sort keys */
	bool desc;
	char *like;           /* "%term%" with % _ \ escaped (ESCAPE '\'), or NULL */
};
#define LIST_PARAMS_INIT { 1, 10, 0, true, NULL }

/* Reads page_num, page_size, sort_by (one of sort_keys, default index 0),
 * sort_dir (asc | desc, default desc) and search. With n_sort_keys 0 the
 * endpoint has no sort: sort_by and sort_dir are not read. */
int list_read_params(const struct evkeyvalq *q, const char *const *sort_keys,
                     size_t n_sort_keys, struct list_params *out, struct api_error *err);
void list_params_release(struct list_params *p);
/* SQL LIMIT and OFFSET of the page. */
long long list_offset(const struct list_params *p);
/* {"data": data, "page_num", "page_size", "total"}; steals data. */
json_t *list_response(json_t *data, const struct list_params *p, long long total);
/* The same as text, for a page whose data is already JSON text (an array).
 * Caller frees. */
char *list_response_text(const char *data, const struct list_params *p, long long total);
/* A case-insensitive substring pattern for LIKE ... ESCAPE '\' in which %, _
 * and \ are literal. Caller frees. */
char *like_pattern(const char *term);

#endif
