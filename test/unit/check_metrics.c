/* The metrics: what each hook counts, and the text exposition format 0.0.4
 * (HELP and TYPE of every family, escaping of label values and HELP text,
 * histogram buckets cumulative up to +Inf with _sum and _count). */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <event2/buffer.h>

#include "check_suite.h"
#include "metrics.h"
#include "signin.h"

static struct evbuffer *out;
static char *text;

static void setup(void)
{
	metrics_reset();
	out = evbuffer_new();
	text = NULL;
}

static void teardown(void)
{
	free(text);
	evbuffer_free(out);
	metrics_reset();
}

/* The exposition now, as a string (freed by the teardown). */
static const char *render(void)
{
	size_t n;

	free(text);
	evbuffer_drain(out, evbuffer_get_length(out));
	metrics_render(out);
	n = evbuffer_get_length(out);
	text = xmalloc(n + 1);
	evbuffer_copyout(out, text, n);
	text[n] = '\0';
	return text;
}

/* The exposition holds the line `line` (a whole line). */
static void expect_line(const char *line)
{
	char *want = xasprintf("\n%s\n", line);
	char *hay = xasprintf("\n%s", render());

	ck_assert_msg(strstr(hay, want) != NULL, "no line \"%s\"", line);
	free(want);
	free(hay);
}

static void expect_no(const char *fragment)
{
	ck_assert_msg(strstr(render(), fragment) == NULL, "\"%s\" found", fragment);
}

START_TEST(test_every_family_has_help_and_type)
{
	static const char *const families[] = {
		"edgeauth_build_info gauge", "edgeauth_http_requests_total counter",
		"edgeauth_http_request_duration_seconds histogram",
		"edgeauth_tokens_issued_total counter", "edgeauth_token_reuse_detected_total counter",
		"edgeauth_signins_total counter", "edgeauth_password_hash_queue_depth gauge",
		"edgeauth_open_connections gauge", "edgeauth_store_commit_duration_seconds histogram",
		"edgeauth_store_commit_failures_total counter", "edgeauth_cache_hits_total counter",
		"edgeauth_cache_misses_total counter", "edgeauth_sessions_started_total counter",
		"edgeauth_sessions_ended_total counter", "edgeauth_backchannel_deliveries_total counter",
	};
	char line[200], name[100];
	const char *help;

	for (size_t i = 0; i < N_ELEMS(families); i++) {
		snprintf(line, sizeof line, "# TYPE %s", families[i]);
		expect_line(line);
		snprintf(name, sizeof name, "%.*s", (int)strcspn(families[i], " "), families[i]);
		snprintf(line, sizeof line, "# HELP %s ", name);
		help = strstr(text, line);
		ck_assert_msg(help && (help == text || help[-1] == '\n'), "no HELP line for %s", name);
	}
	ck_assert_int_eq(text[strlen(text) - 1], '\n');
}
END_TEST

/* Counters of a fixed enum are shown at zero before anything happened. */
START_TEST(test_enum_series_at_zero)
{
	expect_line("edgeauth_tokens_issued_total{grant_type=\"client_credentials\"} 0");
	expect_line("edgeauth_token_reuse_detected_total{grant_type=\"refresh_token\"} 0");
	expect_no("edgeauth_token_reuse_detected_total{grant_type=\"client_credentials\"}");
	expect_line("edgeauth_signins_total{outcome=\"throttled\"} 0");
	expect_line("edgeauth_cache_misses_total{cache=\"role_permissions\"} 0");
	expect_line("edgeauth_sessions_started_total 0");
	expect_line("edgeauth_sessions_ended_total 0");
	expect_line("edgeauth_backchannel_deliveries_total{outcome=\"dropped\"} 0");
	expect_line("edgeauth_store_commit_duration_seconds_count 0");
	expect_line("edgeauth_build_info{version=\"0.1.0\"} 1");
	expect_no("edgeauth_http_requests_total{");   /* routes appear once asked */
}
END_TEST

START_TEST(test_requests_by_pattern_method_class)
{
	metrics_route_add(0, "/healthz");
	metrics_route_add(1, "/api/v1/projects/:project_id/users");   /* POST */
	metrics_route_add(2, "/api/v1/projects/:project_id/users");   /* GET: the same pattern */
	metrics_request(0, EVHTTP_REQ_GET, 200, 10);
	metrics_request(0, EVHTTP_REQ_HEAD, 200, 10);
	metrics_request(1, EVHTTP_REQ_POST, 201, 10);
	metrics_request(2, EVHTTP_REQ_GET, 200, 10);
	metrics_request(1, EVHTTP_REQ_DELETE, 405, 10);
	metrics_request(-1, EVHTTP_REQ_GET, 404, 10);
	metrics_request(-1, (enum evhttp_cmd_type)(1 << 12), 501, 10);   /* BREW */
	metrics_request(7, EVHTTP_REQ_GET, 404, 10);   /* never added: unmatched */
	metrics_request(-1, EVHTTP_REQ_GET, 302, -1);  /* no time: not in the histogram */
	expect_line("edgeauth_http_requests_total{method=\"GET\",route=\"/healthz\",status_class=\"2xx\"} 1");
	expect_line("edgeauth_http_requests_total{method=\"HEAD\",route=\"/healthz\",status_class=\"2xx\"} 1");
	expect_line("edgeauth_http_requests_total{method=\"POST\",route=\"/api/v1/projects/:project_id/users\",status_class=\"2xx\"} 1");
	expect_line("edgeauth_http_requests_total{method=\"GET\",route=\"/api/v1/projects/:project_id/users\",status_class=\"2xx\"} 1");
	expect_line("edgeauth_http_requests_total{method=\"DELETE\",route=\"/api/v1/projects/:project_id/users\",status_class=\"4xx\"} 1");
	expect_line("edgeauth_http_requests_total{method=\"GET\",route=\"unmatched\",status_class=\"4xx\"} 2");
	expect_line("edgeauth_http_requests_total{method=\"other\",route=\"unmatched\",status_class=\"5xx\"} 1");
	expect_line("edgeauth_http_requests_total{method=\"GET\",route=\"unmatched\",status_class=\"3xx\"} 1");
	expect_line("edgeauth_http_request_duration_seconds_count{route=\"unmatched\"} 3");
	expect_line("edgeauth_http_request_duration_seconds_count{route=\"/api/v1/projects/:project_id/users\"} 3");
}
END_TEST

/* A bucket holds what is at most its bound; buckets add up to +Inf, which
 * is _count; _sum is in seconds. */
START_TEST(test_histogram_buckets)
{
	static const int64_t us[] = { 0, 100, 101, 250, 999, 1000, 7000, 10000000, 10000001, 60000000 };
	int64_t sum = 0;
	char line[160];

	metrics_route_add(0, "/r");
	for (size_t i = 0; i < N_ELEMS(us); i++) {
		metrics_request(0, EVHTTP_REQ_GET, 200, us[i]);
		sum += us[i];
	}
	expect_line("edgeauth_http_request_duration_seconds_bucket{route=\"/r\",le=\"0.0001\"} 2");
	expect_line("edgeauth_http_request_duration_seconds_bucket{route=\"/r\",le=\"0.00025\"} 4");
	expect_line("edgeauth_http_request_duration_seconds_bucket{route=\"/r\",le=\"0.0005\"} 4");
	expect_line("edgeauth_http_request_duration_seconds_bucket{route=\"/r\",le=\"0.001\"} 6");
	expect_line("edgeauth_http_request_duration_seconds_bucket{route=\"/r\",le=\"0.01\"} 7");
	expect_line("edgeauth_http_request_duration_seconds_bucket{route=\"/r\",le=\"10\"} 8");
	expect_line("edgeauth_http_request_duration_seconds_bucket{route=\"/r\",le=\"+Inf\"} 10");
	expect_line("edgeauth_http_request_duration_seconds_count{route=\"/r\"} 10");
	snprintf(line, sizeof line, "edgeauth_http_request_duration_seconds_sum{route=\"/r\"} %lld.%06lld",
	         (long long)(sum / 1000000), (long long)(sum % 1000000));
	expect_line(line);
}
END_TEST

/* The buckets of a histogram never go down, the last is +Inf. */
START_TEST(test_buckets_cumulative)
{
	unsigned long long prev = 0, v;
	const char *p;
	int n = 0;

	for (int i = 0; i < 1000; i++)
		metrics_store_commit(mono_us() - i * 37, i % 10 != 0);
	render();
	for (p = text; (p = strstr(p, "edgeauth_store_commit_duration_seconds_bucket{le=\"")); p++) {
		ck_assert_int_eq(sscanf(strchr(p, '}') + 1, " %llu", &v), 1);
		ck_assert_uint_ge(v, prev);
		prev = v;
		n++;
	}
	ck_assert_int_eq(n, 17);
	ck_assert_uint_eq(prev, 1000);
	expect_line("edgeauth_store_commit_duration_seconds_count 1000");
	expect_line("edgeauth_store_commit_failures_total 100");
	expect_line("edgeauth_store_commit_duration_seconds_bucket{le=\"+Inf\"} 1000");
}
END_TEST

START_TEST(test_label_and_help_escaping)
{
	struct evbuffer *b = evbuffer_new();
	char got[64];
	size_t n;

	metrics_put_escaped(b, "a\\b\"c\nd", true);
	n = evbuffer_remove(b, got, sizeof got - 1);
	got[n] = '\0';
	ck_assert_str_eq(got, "a\\\\b\\\"c\\nd");
	metrics_put_escaped(b, "a\\b\"c\nd", false);   /* HELP: quotes stay */
	n = evbuffer_remove(b, got, sizeof got - 1);
	got[n] = '\0';
	ck_assert_str_eq(got, "a\\\\b\"c\\nd");
	evbuffer_free(b);
	/* a pattern that needs it is escaped wherever it is a label */
	metrics_route_add(0, "/x\"y\\z");
	metrics_request(0, EVHTTP_REQ_GET, 200, 1);
	expect_line("edgeauth_http_requests_total{method=\"GET\",route=\"/x\\\"y\\\\z\",status_class=\"2xx\"} 1");
	expect_line("edgeauth_http_request_duration_seconds_count{route=\"/x\\\"y\\\\z\"} 1");
}
END_TEST

START_TEST(test_hooks_count)
{
	metrics_token_issued("client_credentials");
	metrics_token_issued("client_credentials");
	metrics_token_issued("authorization_code");
	metrics_token_issued("password");   /* not a grant edgeauth has: not counted */
	metrics_reuse_detected("refresh_token");
	metrics_signin(signin_metric(SIGNIN_SIGNED_IN));
	metrics_signin(signin_metric(SIGNIN_REFUSED));
	metrics_signin(signin_metric(SIGNIN_REFUSED));
	metrics_signin(signin_metric(SIGNIN_THROTTLED));
	metrics_signin(signin_metric(SIGNIN_BUSY));
	metrics_signin(signin_metric(SIGNIN_NO_CODE));
	metrics_cache_lookup(METRICS_CACHE_CLIENT_SCOPE, true);
	metrics_cache_lookup(METRICS_CACHE_CLIENT_SCOPE, false);
	metrics_cache_lookup(METRICS_CACHE_TOKEN_HOLDERS, true);
	metrics_hash_queue(3);
	metrics_connections(12);
	metrics_session_started();
	metrics_session_ended();
	metrics_backchannel(METRICS_BACKCHANNEL_REJECTED);
	expect_line("edgeauth_tokens_issued_total{grant_type=\"client_credentials\"} 2");
	expect_line("edgeauth_tokens_issued_total{grant_type=\"authorization_code\"} 1");
	expect_line("edgeauth_tokens_issued_total{grant_type=\"refresh_token\"} 0");
	expect_no("grant_type=\"password\"");
	expect_line("edgeauth_token_reuse_detected_total{grant_type=\"refresh_token\"} 1");
	expect_line("edgeauth_signins_total{outcome=\"success\"} 1");
	expect_line("edgeauth_signins_total{outcome=\"failure\"} 2");
	expect_line("edgeauth_signins_total{outcome=\"throttled\"} 1");
	expect_line("edgeauth_signins_total{outcome=\"error\"} 2");
	expect_line("edgeauth_cache_hits_total{cache=\"client_scope\"} 1");
	expect_line("edgeauth_cache_misses_total{cache=\"client_scope\"} 1");
	expect_line("edgeauth_cache_hits_total{cache=\"token_holders\"} 1");
	expect_line("edgeauth_password_hash_queue_depth 3");
	expect_line("edgeauth_open_connections 12");
	expect_line("edgeauth_sessions_started_total 1");
	expect_line("edgeauth_sessions_ended_total 1");
	expect_line("edgeauth_backchannel_deliveries_total{outcome=\"rejected\"} 1");
}
END_TEST

static Suite *metrics_suite(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = check_tcase("exposition", setup, teardown);

	tcase_add_test(tc, test_every_family_has_help_and_type);
	tcase_add_test(tc, test_enum_series_at_zero);
	tcase_add_test(tc, test_requests_by_pattern_method_class);
	tcase_add_test(tc, test_histogram_buckets);
	tcase_add_test(tc, test_buckets_cumulative);
	tcase_add_test(tc, test_label_and_help_escaping);
	tcase_add_test(tc, test_hooks_count);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(metrics_suite()));
}
