/*
 * Unit tests for store_events.c against a real store in a temporary
 * directory: an event rides its write's transaction (a rollback leaves no
 * row and sends nothing to the sink), the sink sees records only after the
 * commit (also of a group-commit batch, without a savepoint that rolled
 * back), the list's filters and order, and the retention purge.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "sqlite_stmt.h"
#include "sqlite_store.h"
#include "check_suite.h"
#include "store.h"
#include "store_events.h"

static struct {
	char dir[64];
	struct store *st;
	struct api_error err;
	char sunk[4096];     /* the sink's records, one a line */
	int n_sunk;
	int n_sink_calls;
	char listed[4096];   /* store_event_list's, one a line */
	int n_listed;
} fx;

static const struct event_origin by = { "user-1", "192.0.2.7" };

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
	fx.st = check_store_new("check_store_events", fx.dir);
}

static void teardown(void)
{
	check_store_remove(fx.st, fx.dir);
}

static void append(char *buf, size_t size, int *n, const char *record)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%s\n", record);
	(*n)++;
}

/* The sink takes whole lines, those of a commit at once. */
static void sink(void *arg, const char *lines, size_t len)
{
	size_t have = strlen(fx.sunk);

	(void)arg;
	ck_assert_uint_gt(len, 0);
	ck_assert_int_eq(lines[len - 1], '\n');
	ck_assert_uint_lt(have + len, sizeof fx.sunk);
	memcpy(fx.sunk + have, lines, len);
	fx.sunk[have + len] = '\0';
	for (size_t i = 0; i < len; i++)
		fx.n_sunk += lines[i] == '\n';
	fx.n_sink_calls++;
}

static void each(void *arg, const char *record)
{
	(void)arg;
	append(fx.listed, sizeof fx.listed, &fx.n_listed, record);
}

/* A write that fails when arg says so, after its event would have been. */
static int write_ok(struct store *st, void *arg, struct api_error *err)
{
	(void)st;
	return arg ? api_fail(err, E_INVALID_PARAMS, "refused") : 0;
}

static int write_event(const char *project_id, const char *action, bool fail)
{
	const struct event ev = { &by, project_id, action, "target-1", NULL };

	return store_write_tx_event(fx.st, write_ok, NULL, fail ? "fail" : NULL, &ev, &fx.err);
}

/* The read back fails: the event, inserted before it, must go too. */
static int read_back_fails(struct store *st, void *arg, struct api_error *err)
{
	(void)st;
	(void)arg;
	return api_fail(err, E_SYSTEM_ERROR, "read back");
}

static int list(const char *project_id, int64_t since, const char *action)
{
	const struct event_filter f = { project_id, since, action };

	fx.listed[0] = '\0';
	fx.n_listed = 0;
	ck_assert_int_eq(store_event_list(fx.st, &f, each, NULL, &fx.err), 0);
	return fx.n_listed;
}

static const char *count_events(void)
{
	return check_sql_text(sqlite_of(fx.st)->db, "SELECT count(*) FROM events");
}

START_TEST(test_event_record)
{
	json_t *rec;

	store_events_sink(fx.st, sink, NULL);
	ck_assert_int_eq(write_event("p1", EVENT_ROLE_CREATE, false), 0);
	ck_assert_int_eq(fx.n_sunk, 1);
	rec = json_loads(fx.sunk, JSON_DISABLE_EOF_CHECK, NULL);
	ck_assert_ptr_nonnull(rec);
	ck_assert_int_eq(json_object_size(rec), 8);
	ck_assert(json_is_integer(json_object_get(rec, "id")));
	ck_assert_int_eq(strlen(json_string_value(json_object_get(rec, "time"))), 24);
	ck_assert_str_eq(json_string_value(json_object_get(rec, "project_id")), "p1");
	ck_assert_str_eq(json_string_value(json_object_get(rec, "actor")), "user-1");
	ck_assert_str_eq(json_string_value(json_object_get(rec, "action")), "role.create");
	ck_assert_str_eq(json_string_value(json_object_get(rec, "target")), "target-1");
	ck_assert_str_eq(json_string_value(json_object_get(rec, "address")), "192.0.2.7");
	ck_assert_str_eq(json_string_value(json_object_get(rec, "outcome")), "success");
	json_decref(rec);
	/* the list shows the same record */
	ck_assert_int_eq(list(NULL, 0, NULL), 1);
	ck_assert_str_eq(fx.listed, fx.sunk);
}
END_TEST

START_TEST(test_rollback_records_nothing)
{
	store_events_sink(fx.st, sink, NULL);
	ck_assert_int_eq(write_event("p1", EVENT_ROLE_CREATE, true), -1);
	ck_assert_int_eq(store_write_tx_event(fx.st, write_ok, read_back_fails, NULL,
	                                      &(const struct event){ &by, "p1", EVENT_ROLE_UPDATE,
	                                                             "t", NULL },
	                                      &fx.err), -1);
	ck_assert_str_eq(count_events(), "0");
	ck_assert_int_eq(fx.n_sunk, 0);
	/* and what was dropped does not come with the next commit */
	ck_assert_int_eq(write_event("p1", EVENT_ROLE_DELETE, false), 0);
	ck_assert_int_eq(fx.n_sunk, 1);
	ck_assert_ptr_nonnull(strstr(fx.sunk, "role.delete"));
}
END_TEST

START_TEST(test_no_origin_records_nothing)
{
	const struct event ev = { NULL, "p1", EVENT_PROJECT_CREATE, "p1", NULL };

	ck_assert_int_eq(store_write_tx_event(fx.st, write_ok, NULL, NULL, &ev, &fx.err), 0);
	ck_assert_str_eq(count_events(), "0");
}
END_TEST

static int batch_opened_calls;

static void batch_opened(void *arg)
{
	(void)arg;
	batch_opened_calls++;
}

/* Group commit: the sink waits for the batch's commit, and never sees the
 * event of a request whose savepoint rolled back. */
START_TEST(test_batch_commit)
{
	store_events_sink(fx.st, sink, NULL);
	store_batch_enable(fx.st, batch_opened, NULL);
	ck_assert_int_eq(write_event("p1", EVENT_USER_CREATE, false), 0);
	ck_assert_int_eq(write_event("p1", EVENT_USER_UPDATE, true), -1);
	ck_assert_int_eq(write_event("p1", EVENT_USER_DELETE, false), 0);
	ck_assert_int_eq(batch_opened_calls, 1);
	ck_assert_int_eq(fx.n_sunk, 0);
	ck_assert_int_eq(store_batch_commit(fx.st, &fx.err), 0);
	ck_assert_int_eq(fx.n_sunk, 2);
	ck_assert_int_eq(fx.n_sink_calls, 1);   /* the batch's lines in one call */
	ck_assert_ptr_nonnull(strstr(fx.sunk, "user.create"));
	ck_assert_ptr_null(strstr(fx.sunk, "user.update"));
	ck_assert_ptr_nonnull(strstr(fx.sunk, "user.delete"));
	ck_assert_str_eq(count_events(), "2");
}
END_TEST

START_TEST(test_record_own_transaction)
{
	const struct event evs[2] = {
		{ &by, "p1", EVENT_SIGNIN_FAILURE, NULL, "refused" },
		{ &by, "p1", EVENT_SIGNIN_THROTTLED, NULL, "throttled" },
	};
	struct sync_result r;

	store_event_record(fx.st, evs, 2, sync_completion(&r));
	ck_assert(!r.failed);
	ck_assert_int_eq(list("p1", 0, EVENT_SIGNIN_FAILURE), 1);
	ck_assert_ptr_nonnull(strstr(fx.listed, "\"target\":null"));
	ck_assert_ptr_nonnull(strstr(fx.listed, "\"outcome\":\"refused\""));
	ck_assert_int_eq(list("p1", 0, NULL), 2);
}
END_TEST

START_TEST(test_list_filters)
{
	ck_assert_int_eq(write_event("p1", EVENT_ROLE_CREATE, false), 0);
	ck_assert_int_eq(write_event("p2", EVENT_ROLE_CREATE, false), 0);
	ck_assert_int_eq(write_event(NULL, EVENT_KEY_ROTATE, false), 0);
	ck_assert_int_eq(write_event("p1", EVENT_ROLE_DELETE, false), 0);
	check_sql(sqlite_of(fx.st)->db,
	          "UPDATE events SET time = 1000 WHERE action = 'key.rotate'");
	ck_assert_int_eq(list(NULL, 0, NULL), 4);
	/* oldest first: the key rotation is now the oldest */
	ck_assert_ptr_eq(strstr(fx.listed, "key.rotate"), strstr(fx.listed, "\"action\"") + 10);
	ck_assert_int_eq(list("p1", 0, NULL), 2);
	ck_assert_ptr_null(strstr(fx.listed, "\"p2\""));
	ck_assert_int_eq(list(NULL, 0, EVENT_ROLE_CREATE), 2);
	ck_assert_int_eq(list("p1", 0, EVENT_ROLE_CREATE), 1);
	ck_assert_int_eq(list(NULL, 1001, NULL), 3);
	ck_assert_int_eq(list(NULL, 1000, NULL), 4);
	ck_assert_int_eq(list("p3", 0, NULL), 0);
	ck_assert_int_eq(list(NULL, 0, "role.nothing"), 0);
}
END_TEST

/* Every action the server records can be asked for by the events API's
 * action filter: each `#define EVENT_X "a.b"` of store_events.h is in
 * event_actions (a new action left out of it could not be filtered). */
START_TEST(test_every_action_filterable)
{
	FILE *f = fopen(SOURCE_DIR "/include/store/store_events.h", "r");
	char line[256], name[128], value[128];
	int defines = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof line, f)) {
		bool listed = false;

		if (sscanf(line, "#define EVENT_%127s \"%127[^\"]\"", name, value) != 2 ||
		    !strchr(value, '.'))
			continue;
		defines++;
		for (size_t i = 0; i < EVENT_ACTION_COUNT; i++)
			listed |= !strcmp(event_actions[i], value);
		ck_assert_msg(listed, "action %s (EVENT_%s) is not in event_actions", value, name);
	}
	fclose(f);
	ck_assert_int_eq(defines, EVENT_ACTION_COUNT);
}
END_TEST

START_TEST(test_purge)
{
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(write_event("p1", EVENT_ROLE_CREATE, false), 0);
	check_sql(sqlite_of(fx.st)->db, "UPDATE events SET time = 1000 + id WHERE id <= 3");
	ck_assert_int_eq(store_event_purge(fx.st, 2, 2000, &fx.err), 2);
	ck_assert_int_eq(store_event_purge(fx.st, 2, 2000, &fx.err), 1);
	ck_assert_int_eq(store_event_purge(fx.st, 2, 2000, &fx.err), 0);
	ck_assert_str_eq(count_events(), "2");
	ck_assert_str_eq(check_sql_text(sqlite_of(fx.st)->db, "SELECT min(id) FROM events"), "4");
	/* a purge that empties the table brings no ID back */
	ck_assert_int_eq(store_event_purge(fx.st, 10, INT64_MAX, &fx.err), 2);
	ck_assert_int_eq(write_event("p1", EVENT_ROLE_CREATE, false), 0);
	ck_assert_str_eq(check_sql_text(sqlite_of(fx.st)->db, "SELECT id FROM events"), "6");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("store_events");
	TCase *tc = check_tcase("events", setup, teardown);

	tcase_add_test(tc, test_event_record);
	tcase_add_test(tc, test_rollback_records_nothing);
	tcase_add_test(tc, test_no_origin_records_nothing);
	tcase_add_test(tc, test_batch_commit);
	tcase_add_test(tc, test_record_own_transaction);
	tcase_add_test(tc, test_list_filters);
	tcase_add_test(tc, test_purge);
	tcase_add_test(tc, test_every_action_filterable);
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
