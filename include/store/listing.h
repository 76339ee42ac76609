#ifndef EDGEAUTH_LISTING_H
#define EDGEAUTH_LISTING_H
/*
 * The one list API (docs/api.md §"Lists"). An api file reads a struct list_query
 * from the query string (its sort vocabulary is its own), a store operation
 * answers a struct page, and list_render writes the envelope
 * {"data": [...], "page_num", "page_size", "total"}. The search term goes to
 * the store raw: what it means for a LIKE, an index or another engine is the
 * store's business.
 */
#include <stdbool.h>
#include <stddef.h>
#include <event2/keyvalq_struct.h>

#include "error.h"
#include "flow.h"

struct list_query {
	long page_num;           /* >= 1 */
	long page_size;          /* 1..PAGE_SIZE_MAX */
	size_t sort;             /* index into the endpoint's sort keys (its store enum) */
	bool desc;
	const char *search;      /* the raw term, borrowed from the query; NULL: none */
	/* Filters; not every list has each. -1 / NULL: no filter. */
	int is_active;
	int is_default;
	const char *role_id;
};
#define LIST_QUERY_INIT { 1, 10, 0, true, NULL, -1, -1, NULL }

/* One page: the records as a JSON array's text, and how many match in all. */
struct page {
	char *data;              /* owned; page_release */
	long long total;
};
void page_release(struct page *p);

/* Reads page_num, page_size, sort_by (one of sort_keys, default index 0),
 * sort_dir (asc | desc, default desc) and search (empty: none) into *out.
 * With n_sort_keys 0 the list has no sort: sort_by and sort_dir are not
 * read. Filters are the endpoint's to read. 0, or -1 with invalid_params. */
int list_read_query(const struct evkeyvalq *q, const char *const *sort_keys,
                    size_t n_sort_keys, struct list_query *out, struct api_error *err);
/* The SQL OFFSET of the page. */
long long list_offset(const struct list_query *q);
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
