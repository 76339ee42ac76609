/*
 * Unit tests for router.c's route table: the invariants a new line in it
 * must keep, checked on the table itself rather than on requests.
 *
 * - Everything under /api/v1/projects/:project_id needs a bearer token and
 *   a permission, one of the twelve of the default resources (or several,
 *   space-separated, each one of them); a permission
 *   is only ever named on a bearer route (where it is checked).
 * - No two routes of one method match the same path (the first would win
 *   silently), so in particular no method + path appears twice.
 * - The routes that can match one path fit the Allow header's room
 *   (ROUTE_ALLOW_METHODS routes, ROUTE_ALLOW_MAX bytes with ", OPTIONS").
 * - Paths are well formed, at most ROUTE_MAX_PARAMS parameters, each named
 *   once; GET routes read no body.
 * - Every :param of the table is read by a handler (request_param with that
 *   name, found in src/), and every name a handler reads is a :param: a
 *   misspelt name would give the handler NULL.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_suite.h"
#include "router.h"

/* Where src/ is: the Makefile passes the repository's directory. */
#ifndef SOURCE_DIR
#define SOURCE_DIR "."
#endif

#define PROJECT_PREFIX "/api/v1/projects/:project_id"
#define NAME_MAX_LEN 64
#define NAMES_MAX 64

struct names {
	size_t n;
	char name[NAMES_MAX][NAME_MAX_LEN];
};

static const struct route *routes;
static size_t nroutes;

static void setup(void)
{
	routes = router_routes(&nroutes);
	ck_assert_uint_gt(nroutes, 0);
}

static void teardown(void)
{
}

static bool names_have(const struct names *ns, const char *name, size_t len)
{
	for (size_t i = 0; i < ns->n; i++)
		if (strlen(ns->name[i]) == len && !strncmp(ns->name[i], name, len))
			return true;
	return false;
}

static void names_add(struct names *ns, const char *name, size_t len)
{
	ck_assert_uint_lt(len, NAME_MAX_LEN);
	if (names_have(ns, name, len))
		return;
	ck_assert_uint_lt(ns->n, NAMES_MAX);
	memcpy(ns->name[ns->n], name, len);
	ns->name[ns->n++][len] = '\0';
}

/* The ":name" segments of a pattern, in order, into out (duplicates kept
 * out, counted in *count). */
static void path_params(const char *path, struct names *out, size_t *count)
{
	memset(out, 0, sizeof *out);
	*count = 0;
	for (const char *p = strstr(path, "/:"); p; p = strstr(p + 1, "/:")) {
		const char *name = p + 2;
		size_t len = strcspn(name, "/");
		(*count)++;
		names_add(out, name, len);
	}
}

/* Two patterns can match one path: as many segments, and each pair equal
 * or one of them a parameter. */
static bool patterns_overlap(const char *a, const char *b)
{
	while (*a && *b) {
		size_t la = strcspn(a + 1, "/") + 1, lb = strcspn(b + 1, "/") + 1;
		if (a[1] != ':' && b[1] != ':' && (la != lb || strncmp(a, b, la) != 0))
			return false;
		a += la;
		b += lb;
	}
	return *a == '\0' && *b == '\0';
}

START_TEST(test_project_routes_need_token_and_permission)
{
	static const char *const resources[] = { "resources", "users", "roles", "clients" };
	static const char *const actions[] = { "create", "read", "update" };

	for (size_t i = 0; i < nroutes; i++) {
		const struct route *r = &routes[i];
		bool known = false;

		if (r->permission)
			ck_assert_msg(r->auth == AUTH_BEARER, "%s names a permission it never checks",
			              r->path);
		if (strncmp(r->path, PROJECT_PREFIX, strlen(PROJECT_PREFIX)) != 0)
			continue;
		ck_assert_msg(r->auth == AUTH_BEARER, "%s %s: no bearer token needed",
		              http_method_name(r->method), r->path);
		ck_assert_msg(r->permission != NULL, "%s %s: no permission needed",
		              http_method_name(r->method), r->path);
		/* each of a space-separated list (the events' four reads) */
		for (const char *w = r->permission; *w;) {
			size_t n = strcspn(w, " ");

			known = false;
			for (size_t a = 0; a < N_ELEMS(resources); a++)
				for (size_t b = 0; b < N_ELEMS(actions); b++) {
					char named[32];
					snprintf(named, sizeof named, "%s:%s", resources[a], actions[b]);
					known |= strlen(named) == n && !strncmp(named, w, n);
				}
			ck_assert_msg(known, "%s: %.*s is not a permission of the default resources",
			              r->path, (int)n, w);
			w += n;
			if (*w == ' ')
				w++;
		}
	}
}
END_TEST

/* issue27 strict input: every management endpoint has its table of names
 * (docs/api.md §"Conventions"); the OAuth and OpenID Connect endpoints have
 * none, and ignore what they do not know (RFC 6749 §3.1). */
START_TEST(test_management_routes_name_their_input)
{
	for (size_t i = 0; i < nroutes; i++) {
		const struct route *r = &routes[i];
		bool management = strncmp(r->path, PROJECT_PREFIX, strlen(PROJECT_PREFIX)) == 0 ||
		                  strcmp(r->path, "/api/v1/users/current") == 0;

		ck_assert_msg(!management || r->query, "%s %s: no table of query parameters",
		              http_method_name(r->method), r->path);
		ck_assert_msg(!management || r->body != BODY_JSON || r->fields,
		              "%s %s: no table of body fields", http_method_name(r->method), r->path);
		ck_assert_msg(management || (!r->query && !r->fields),
		              "%s %s: an OAuth endpoint refuses unknown names",
		              http_method_name(r->method), r->path);
		ck_assert_msg(r->body == BODY_JSON || !r->fields, "%s %s: fields without a JSON body",
		              http_method_name(r->method), r->path);
	}
}
END_TEST

START_TEST(test_no_two_routes_match_one_request)
{
	for (size_t i = 0; i < nroutes; i++)
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(routes[i].method != routes[j].method ||
			              !patterns_overlap(routes[i].path, routes[j].path),
			              "%s %s and %s match the same paths",
			              http_method_name(routes[i].method), routes[j].path,
			              routes[i].path);
}
END_TEST

/* Routes whose patterns overlap route i's may all match one path; the
 * router lists them in Allow, so they must fit its room, or a method would
 * be left out of the header silently. */
START_TEST(test_allow_list_fits)
{
	for (size_t i = 0; i < nroutes; i++) {
		size_t n = 0, len = strlen(", OPTIONS") + 1;

		for (size_t j = 0; j < nroutes; j++) {
			if (!patterns_overlap(routes[i].path, routes[j].path))
				continue;
			n++;
			len += strlen(http_method_name(routes[j].method)) + (n > 1 ? 2 : 0);
		}
		ck_assert_msg(n <= ROUTE_ALLOW_METHODS, "%zu routes may match %s", n, routes[i].path);
		ck_assert_msg(len <= ROUTE_ALLOW_MAX, "the Allow list of %s needs %zu bytes",
		              routes[i].path, len);
	}
}
END_TEST

START_TEST(test_routes_well_formed)
{
	for (size_t i = 0; i < nroutes; i++) {
		const struct route *r = &routes[i];
		struct names params;
		size_t count, n = strlen(r->path);

		ck_assert_msg(r->steps != NULL, "%s: no steps", r->path);
		for (size_t k = 0; r->steps && k < 64; k++)
			if (!r->steps[k])
				break;
			else if (k == 63)
				ck_abort_msg("%s: steps without their NULL end", r->path);
		/* a trailing '/' only for the console's folder pages (docs/console.md) */
		ck_assert_msg(r->path[0] == '/' &&
		              (n == 1 || r->path[n - 1] != '/' || strncmp(r->path, "/console/", 9) == 0) &&
		              !strstr(r->path, "//") && !strstr(r->path, "/:/"),
		              "%s: a malformed pattern", r->path);
		path_params(r->path, &params, &count);
		ck_assert_msg(count <= ROUTE_MAX_PARAMS, "%s: more than %d parameters", r->path,
		              ROUTE_MAX_PARAMS);
		ck_assert_msg(params.n == count, "%s: a parameter named twice", r->path);
		ck_assert_msg(r->method != EVHTTP_REQ_GET || r->body == BODY_NONE,
		              "GET %s reads a body", r->path);
	}
}
END_TEST

/* Reads a whole file; caller frees. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text;
	long n;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_ge(n, 0);
	rewind(f);
	text = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	text[n] = '\0';
	fclose(f);
	return text;
}

/* The names read with request_param(..., "name") in the file at path. */
static void names_read_in_file(struct names *out, const char *path)
{
	char *text = slurp(path);

	for (char *p = strstr(text, "request_param("); p; p = strstr(p + 1, "request_param(")) {
		char *close = strchr(p, ')'), *quote = strchr(p, '"');
		if (quote && close && quote < close)   /* a call with a literal name */
			names_add(out, quote + 1, strcspn(quote + 1, "\""));
	}
	free(text);
}

/* Every name a file of dir (src/ and its layer folders) reads. */
static void names_read_in_dir(struct names *out, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	ck_assert_msg(d != NULL, "cannot open %s", dir);
	while ((e = readdir(d)) != NULL) {
		char path[512];
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR)
			names_read_in_dir(out, path);
		else if (len >= 3 && strcmp(e->d_name + len - 2, ".c") == 0)
			names_read_in_file(out, path);
	}
	closedir(d);
}

static void names_read_in_src(struct names *out)
{
	memset(out, 0, sizeof *out);
	names_read_in_dir(out, SOURCE_DIR "/src");
}

START_TEST(test_params_read_by_handlers)
{
	struct names read, params, all = { 0 };
	size_t count;

	names_read_in_src(&read);
	ck_assert_uint_gt(read.n, 0);
	for (size_t i = 0; i < nroutes; i++) {
		path_params(routes[i].path, &params, &count);
		for (size_t k = 0; k < params.n; k++) {
			ck_assert_msg(names_have(&read, params.name[k], strlen(params.name[k])),
			              "%s: no handler reads :%s", routes[i].path, params.name[k]);
			names_add(&all, params.name[k], strlen(params.name[k]));
		}
	}
	for (size_t k = 0; k < read.n; k++)
		ck_assert_msg(names_have(&all, read.name[k], strlen(read.name[k])),
		              "request_param(ctx, \"%s\"): no route has :%s", read.name[k],
		              read.name[k]);
}
END_TEST

static Suite *router_suite(void)
{
	Suite *s = suite_create("router");
	TCase *tc = check_tcase("table", setup, teardown);

	tcase_add_test(tc, test_project_routes_need_token_and_permission);
	tcase_add_test(tc, test_management_routes_name_their_input);
	tcase_add_test(tc, test_no_two_routes_match_one_request);
	tcase_add_test(tc, test_allow_list_fits);
	tcase_add_test(tc, test_routes_well_formed);
	tcase_add_test(tc, test_params_read_by_handlers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(router_suite()));
}
