#ifndef EDGEAUTH_LIST_PARAMS_H
#define EDGEAUTH_LIST_PARAMS_H
/*
 * The request's side of the one list API (docs/api.md §"Lists"). An api file reads
 * a struct list_query from the query string (its sort vocabulary is its own),
 * a store operation answers a struct page (listing.h), and list_render writes
 * the envelope {"data": [...], "page_num", "page_size", "total"}.
 */
#include <stddef.h>
#include <event2/keyvalq_struct.h>

#include "error.h"
#include "flow.h"
#include "listing.h"

/* The query parameters list_read_query reads, for an endpoint's table of
 * the names it takes (input_names.h): every list's, and a sorted list's. */
#define LIST_QUERY_NAMES "page_num", "page_size", "search"
#define LIST_SORT_NAMES "sort_by", "sort_dir"

/* Reads page_num, page_size, sort_by (one of sort_keys, default index 0),
 * sort_dir (asc | desc, default desc) and search (empty: none) into *out.
 * With n_sort_keys 0 the list has no sort: sort_by and sort_dir are not
 * read. Filters are the endpoint's to read. 0, or -1 with invalid_params. */
int list_read_query(const struct evkeyvalq *q, const char *const *sort_keys,
                    size_t n_sort_keys, struct list_query *out, struct api_error *err);
/* The envelope with the page's data. Caller frees. */
char *list_render(const struct list_query *q, const struct page *p);

/* A list endpoint's steps keep a struct list_state as their request state
 * (request_state(ctx, sizeof (struct list_state), list_state_release)):
 * the first reads q, the next has the store fill page, and list_answer,
 * the last, answers with the envelope. */
struct list_state {
	struct list_query q;
	struct page page;
};
void list_state_release(void *state);
enum step_result list_answer(struct flow *f);

#endif
