/*
 * libFuzzer harness: the list endpoints' query readers (listing.c,
 * form.c) on what form_parse makes of a query string: list_read_query
 * with each endpoint's sort keys, form_read_bool, form_read_enum and
 * form_read_page. Each outcome is compared with docs/api.md §"Lists" read
 * independently here: which keys may appear once, which values are allowed,
 * and the defaults.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/queue.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include <jansson.h>

#include "form.h"
#include "fuzz.h"
#include "list_params.h"
#include "validate.h"

/* The sort keys of the users, roles and clients lists (api_users.c,
 * api_roles.c, api_clients.c). */
static const char *const user_sort_keys[] = { "created_at", "updated_at", "display_name",
                                             "email", "is_active", "external_user_id",
                                             "role_name" };
static const char *const role_sort_keys[] = { "created_at", "updated_at", "name", "code" };
static const char *const client_sort_keys[] = { "created_at", "updated_at", "name",
                                               "is_active" };
/* Enough long names that the sentence listing them cannot fit. */
static const char *const long_keys[] = {
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
	"cccccccccccccccccccccccccccccccccccccccc", "dddddddddddddddddddddddddddddddddddddddd",
	"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
};

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define PAGE_NUM_LIMIT (LONG_MAX / PAGE_SIZE_MAX)

/* The value of key when it occurs exactly once; *count says how often. */
static const char *lookup(const struct evkeyvalq *q, const char *key, size_t *count)
{
	const struct evkeyval *kv;
	const char *v = NULL;

	*count = 0;
	TAILQ_FOREACH(kv, q, next) {
		if (strcmp(kv->key, key) == 0) {
			v = kv->value;
			(*count)++;
		}
	}
	return *count == 1 ? v : NULL;
}

/* A decimal of digits only in [min, max], read with strtol. */
static bool ref_number(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno == ERANGE || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static bool in_list(const char *s, const char *const *list, size_t n, size_t *index)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(s, list[i]) == 0) {
			*index = i;
			return true;
		}
	}
	return false;
}

/* The error every reader here fails with. */
static void check_error(int rc, const struct api_error *err)
{
	FUZZ_CHECK(rc == -1);
	FUZZ_CHECK(err->api_code == E_INVALID_PARAMS && err->status == 400);
	FUZZ_CHECK(err->description[0] != '\0');
	FUZZ_CHECK(strlen(err->description) < API_ERROR_DESCRIPTION_MAX);
}

static void check_list(const struct evkeyvalq *q, const char *const *sort_keys, size_t n_keys)
{
	struct list_query lq = LIST_QUERY_INIT;
	struct api_error err = { 0 };
	size_t c_num, c_size, c_by, c_dir, c_search, sort = 0, dir = 1;
	const char *num = lookup(q, "page_num", &c_num), *size = lookup(q, "page_size", &c_size);
	const char *by = lookup(q, "sort_by", &c_by), *sdir = lookup(q, "sort_dir", &c_dir);
	const char *search = lookup(q, "search", &c_search);
	long want_num = 1, want_size = PAGE_SIZE_DEFAULT;
	static const char *const dirs[] = { "asc", "desc" };
	bool ok = c_num <= 1 && c_size <= 1 && c_search <= 1 &&
	          (!num || ref_number(num, 1, PAGE_NUM_LIMIT, &want_num)) &&
	          (!size || ref_number(size, 1, PAGE_SIZE_MAX, &want_size));
	int rc;

	if (n_keys)
		ok = ok && c_by <= 1 && c_dir <= 1 && (!by || in_list(by, sort_keys, n_keys, &sort)) &&
		     (!sdir || in_list(sdir, dirs, 2, &dir));
	rc = list_read_query(q, sort_keys, n_keys, &lq, &err);
	if (!ok) {
		check_error(rc, &err);
		return;
	}
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(lq.page_num == want_num && lq.page_size == want_size);
	FUZZ_CHECK(lq.sort == sort && lq.desc == (dir == 1));
	FUZZ_CHECK(list_offset(&lq) >= 0 && list_offset(&lq) <= LLONG_MAX - PAGE_SIZE_MAX);
	/* the term goes to the store as sent; an empty one is no search */
	if (search && *search)
		FUZZ_CHECK(lq.search && !strcmp(lq.search, search));
	else
		FUZZ_CHECK(lq.search == NULL);
	if (lq.page_size < 3) {
		struct page pg = { .data = strdup("[]"), .total = 7 };
		char *text = list_render(&lq, &pg);
		json_t *r = json_loads(text, 0, NULL);

		FUZZ_CHECK(r && json_integer_value(json_object_get(r, "page_num")) == lq.page_num);
		FUZZ_CHECK(json_integer_value(json_object_get(r, "total")) == 7);
		json_decref(r);
		free(text);
		page_release(&pg);
	}
}

static void check_bool(const struct evkeyvalq *q, const char *key)
{
	struct api_error err = { 0 };
	size_t count;
	const char *v = lookup(q, key, &count);
	int out = 7, rc = form_read_bool(q, key, &out, &err);

	if (count == 0) {
		FUZZ_CHECK(rc == 0 && out == -1);
	} else if (count == 1 && (!strcmp(v, "true") || !strcmp(v, "false"))) {
		FUZZ_CHECK(rc == 0 && out == !strcmp(v, "true"));
	} else {
		check_error(rc, &err);
	}
}

static void check_enum(const struct evkeyvalq *q, const char *key, const char *const *allowed,
                       size_t n, size_t def)
{
	struct api_error err = { 0 };
	size_t count, index = 0, out = n + 1;
	const char *v = lookup(q, key, &count);
	int rc = form_read_enum(q, key, allowed, n, def, &out, &err);

	if (count == 0)
		FUZZ_CHECK(rc == 0 && out == def);
	else if (count == 1 && in_list(v, allowed, n, &index))
		FUZZ_CHECK(rc == 0 && out == index);
	else
		check_error(rc, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct evkeyvalq q;
	struct api_error err = { 0 };
	long num, psize;

	TAILQ_INIT(&q);
	if (form_parse((const char *)data, size, &q) == 0) {
		check_list(&q, user_sort_keys, N_ELEMS(user_sort_keys));
		check_list(&q, role_sort_keys, N_ELEMS(role_sort_keys));
		check_list(&q, client_sort_keys, N_ELEMS(client_sort_keys));
		check_list(&q, NULL, 0);   /* resources: no sort */
		check_bool(&q, "is_active");
		check_bool(&q, "is_default");
		check_bool(&q, "include_permissions");
		check_enum(&q, "sort_by", long_keys, N_ELEMS(long_keys), 2);
		if (form_read_page(&q, &num, &psize, &err) == 0)
			FUZZ_CHECK(num >= 1 && num <= PAGE_NUM_LIMIT && psize >= 1 &&
			           psize <= PAGE_SIZE_MAX);
	}
	evhttp_clear_headers(&q);
	return 0;
}
