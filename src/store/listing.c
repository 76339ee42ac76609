/* The store's list types (docs/api.md §"Lists"): a page's release and offset. */
#include <stdlib.h>

#include "listing.h"

void page_release(struct page *p)
{
	free(p->data);
	p->data = NULL;
}

long long list_offset(const struct list_query *q)
{
	return (long long)(q->page_num - 1) * q->page_size;
}
