#ifndef EDGEAUTH_LISTING_H
#define EDGEAUTH_LISTING_H
/*
 * The store's side of the one list API (docs/api.md §"Lists"): what a list
 * operation is asked (struct list_query) and what it answers (struct page).
 * Reading the query string and rendering the envelope are the request's
 * (list_params.h). The search term goes to the store raw: what it means for
 * a LIKE, an index or another engine is the store's business.
 */
#include <stdbool.h>
#include <stddef.h>

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
	/* The page alone: total is left 0 (the events' count, over the whole
	 * trail, costs far more than a page of the newest). Only the events'
	 * pages read it. */
	bool no_total;
};
#define LIST_QUERY_INIT { 1, 10, 0, true, NULL, -1, -1, NULL, false }

/* One page: the records as a JSON array's text, and how many match in all. */
struct page {
	char *data;              /* owned; page_release */
	long long total;
};
void page_release(struct page *p);

/* The SQL OFFSET of the page. */
long long list_offset(const struct list_query *q);

#endif
