/* Paging, sorting and searching read from a list endpoint's query string,
 * and the list envelope (docs/api.md §"Lists"). */
#include <stdlib.h>
#include <string.h>

#include "form.h"
#include "list_params.h"
#include "request.h"
#include "util.h"
#include "validate.h"

static const char *const sort_dirs[] = { "asc", "desc" };

int list_read_query(const struct evkeyvalq *q, const char *const *sort_keys,
                    size_t n_sort_keys, struct list_query *out, struct api_error *err)
{
	size_t dir = 1;

	if (form_read_page(q, &out->page_num, &out->page_size, err) < 0)
		return -1;
	if (n_sort_keys) {
		if (form_read_enum(q, "sort_by", sort_keys, n_sort_keys, 0, &out->sort, err) < 0 ||
		    form_read_enum(q, "sort_dir", sort_dirs, 2, 1, &dir, err) < 0)
			return -1;
	}
	out->desc = dir == 1;
	if (form_get(q, "search", &out->search, err) < 0)
		return -1;
	if (out->search && !*out->search)
		out->search = NULL;
	return 0;
}

char *list_render(const struct list_query *q, const struct page *p)
{
	return xasprintf("{\"data\":%s,\"page_num\":%ld,\"page_size\":%ld,\"total\":%lld}",
	                 p->data, q->page_num, q->page_size, p->total);
}

void list_state_release(void *state)
{
	page_release(&((struct list_state *)state)->page);
}

enum step_result list_answer(struct flow *f)
{
	struct request_ctx *ctx = request_of(f);
	const struct list_state *l = ctx->state;
	char *body = list_render(&l->q, &l->page);

	http_reply_raw(ctx, 200, "application/json", body, strlen(body));
	free(body);
	return STEP_DONE;
}
