/*
 * The metrics (metrics.h): counts in static arrays, made into the
 * Prometheus text exposition format 0.0.4 only at a scrape. A histogram
 * keeps a count per bucket (not cumulative) and adds them up as it is
 * written, so an observation is one search and three increments.
 */
#include <assert.h>
#include <string.h>

#include "metrics.h"
#include "util.h"
#include "version.h"

/* Seconds, as the `le` labels say them, and the same in microseconds. */
static const struct {
	int64_t us;
	const char *le;
} buckets[] = {
	{ 100, "0.0001" }, { 250, "0.00025" }, { 500, "0.0005" }, { 1000, "0.001" },
	{ 2500, "0.0025" }, { 5000, "0.005" }, { 10000, "0.01" }, { 25000, "0.025" },
	{ 50000, "0.05" }, { 100000, "0.1" }, { 250000, "0.25" }, { 500000, "0.5" },
	{ 1000000, "1" }, { 2500000, "2.5" }, { 5000000, "5" }, { 10000000, "10" },
};
#define N_BUCKETS (sizeof buckets / sizeof buckets[0])

struct histogram {
	uint64_t count[N_BUCKETS + 1];   /* [N_BUCKETS]: above the last bound */
	uint64_t total;
	int64_t sum_us;
};

enum { M_GET, M_HEAD, M_POST, M_PUT, M_DELETE, M_OPTIONS, M_PATCH, M_TRACE, M_CONNECT,
       M_OTHER, M__N };
static const char *const method_names[M__N] = {
	"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "CONNECT", "other",
};
#define N_CLASSES 5   /* 1xx .. 5xx */

enum { G_AUTHORIZATION_CODE, G_REFRESH_TOKEN, G_CLIENT_CREDENTIALS, G_DEVICE_CODE, G__N };
static const char *const grant_names[G__N] = {
	"authorization_code", "refresh_token", "client_credentials",
	"urn:ietf:params:oauth:grant-type:device_code",
};
static const char *const signin_names[METRICS_SIGNIN__N] = {
	"success", "failure", "throttled", "error",
};
static const char *const totp_names[METRICS_TOTP__N] = {
	"enrolled", "used", "failed", "removed",
};
static const char *const recovery_names[METRICS_RECOVERY__N] = { "issued", "used" };
static const char *const passkey_names[METRICS_PASSKEY__N] = {
	"registered", "used", "failed", "removed",
};
static const char *const device_names[METRICS_DEVICE__N] = {
	"requested", "pending", "slow_down", "approved", "denied", "wrong_code", "throttled",
	"poll_denied", "expired",
};
static const char *const cache_names[METRICS_CACHE__N] = {
	"client_scope", "role_permissions", "token_holders", "client", "user_scope",
};
static const char *const backchannel_names[METRICS_BACKCHANNEL__N] = {
	"delivered", "rejected", "failed", "refused", "dropped",
};
/* Pattern 0 is "unmatched"; the route table's distinct patterns follow. */
#define MAX_PATTERNS (METRICS_MAX_ROUTES + 1)

static struct {
	const char *pattern[MAX_PATTERNS];
	size_t n_patterns;
	unsigned char route_pattern[METRICS_MAX_ROUTES];   /* route index -> pattern */
	uint64_t requests[MAX_PATTERNS][M__N][N_CLASSES];
	struct histogram latency[MAX_PATTERNS];
	uint64_t grants[G__N];
	uint64_t reuses[G__N];
	uint64_t device[METRICS_DEVICE__N];
	uint64_t signins[METRICS_SIGNIN__N];
	uint64_t totp[METRICS_TOTP__N];
	uint64_t recovery[METRICS_RECOVERY__N];
	uint64_t passkey[METRICS_PASSKEY__N];
	uint64_t factor_resets;
	uint64_t cache_hits[METRICS_CACHE__N], cache_misses[METRICS_CACHE__N];
	struct histogram commits;
	uint64_t commit_failures;
	uint64_t sync_failures;
	bool store_failed;
	int hash_queue;
	int connections;
	uint64_t sessions_started, sessions_ended;
	uint64_t backchannel[METRICS_BACKCHANNEL__N];
} m = { .pattern = { "unmatched" }, .n_patterns = 1 };

void metrics_reset(void)
{
	memset(&m, 0, sizeof m);
	m.pattern[0] = "unmatched";
	m.n_patterns = 1;
}

void metrics_route_add(size_t i, const char *pattern)
{
	size_t p;

	assert(i < METRICS_MAX_ROUTES);   /* raise it with the route table */
	for (p = 1; p < m.n_patterns && strcmp(m.pattern[p], pattern); p++)
		;
	if (p == m.n_patterns)
		m.pattern[m.n_patterns++] = pattern;
	m.route_pattern[i] = (unsigned char)p;
}

static void observe(struct histogram *h, int64_t us)
{
	size_t b = 0;

	while (b < N_BUCKETS && us > buckets[b].us)
		b++;
	h->count[b]++;
	h->total++;
	h->sum_us += us;
}

static int method_index(enum evhttp_cmd_type method)
{
	switch (method) {
	case EVHTTP_REQ_GET: return M_GET;
	case EVHTTP_REQ_HEAD: return M_HEAD;
	case EVHTTP_REQ_POST: return M_POST;
	case EVHTTP_REQ_PUT: return M_PUT;
	case EVHTTP_REQ_DELETE: return M_DELETE;
	case EVHTTP_REQ_OPTIONS: return M_OPTIONS;
	case EVHTTP_REQ_PATCH: return M_PATCH;
	case EVHTTP_REQ_TRACE: return M_TRACE;
	case EVHTTP_REQ_CONNECT: return M_CONNECT;
	default: return M_OTHER;
	}
}

void metrics_request(int route, enum evhttp_cmd_type method, int status, int64_t us)
{
	size_t p = route >= 0 && route < METRICS_MAX_ROUTES ? m.route_pattern[route] : 0;
	int class = status / 100 - 1;

	if (class < 0 || class >= N_CLASSES)
		class = N_CLASSES - 1;   /* no such status is sent; count it as a server error */
	m.requests[p][method_index(method)][class]++;
	if (us >= 0)
		observe(&m.latency[p], us);
}

static int grant_index(const char *grant_type)
{
	for (int g = 0; g < G__N; g++)
		if (!strcmp(grant_names[g], grant_type))
			return g;
	return -1;
}

void metrics_token_issued(const char *grant_type)
{
	int g = grant_index(grant_type);

	if (g >= 0)
		m.grants[g]++;
}

void metrics_reuse_detected(const char *grant_type)
{
	int g = grant_index(grant_type);

	if (g >= 0)
		m.reuses[g]++;
}

void metrics_signin(enum metrics_signin outcome)
{
	assert(outcome < METRICS_SIGNIN__N);
	m.signins[outcome]++;
}

void metrics_device(enum metrics_device event)
{
	assert(event < METRICS_DEVICE__N);
	m.device[event]++;
}

void metrics_totp(enum metrics_totp outcome)
{
	assert(outcome < METRICS_TOTP__N);
	m.totp[outcome]++;
}

void metrics_recovery(enum metrics_recovery outcome)
{
	assert(outcome < METRICS_RECOVERY__N);
	m.recovery[outcome]++;
}

void metrics_passkey(enum metrics_passkey outcome)
{
	assert(outcome < METRICS_PASSKEY__N);
	m.passkey[outcome]++;
}

void metrics_factors_reset(void)
{
	m.factor_resets++;
}

void metrics_cache_lookup(enum metrics_cache cache, bool hit)
{
	assert(cache < METRICS_CACHE__N);
	if (hit)
		m.cache_hits[cache]++;
	else
		m.cache_misses[cache]++;
}

void metrics_store_commit(int64_t start_us, bool ok)
{
	observe(&m.commits, mono_us() - start_us);
	if (!ok)
		m.commit_failures++;
}

void metrics_store_failed(void)
{
	m.store_failed = true;
}

void metrics_store_sync_failed(void)
{
	m.sync_failures++;
}

void metrics_hash_queue(int pending)
{
	m.hash_queue = pending;
}

void metrics_connections(int open)
{
	m.connections = open;
}

void metrics_session_started(void)
{
	m.sessions_started++;
}

void metrics_session_ended(void)
{
	m.sessions_ended++;
}

void metrics_backchannel(enum metrics_backchannel outcome)
{
	assert(outcome < METRICS_BACKCHANNEL__N);
	m.backchannel[outcome]++;
}

/* ---- the exposition ---- */

void metrics_put_escaped(struct evbuffer *out, const char *text, bool label)
{
	for (const char *c = text; *c; c++) {
		if (*c == '\\')
			evbuffer_add(out, "\\\\", 2);
		else if (*c == '\n')
			evbuffer_add(out, "\\n", 2);
		else if (*c == '"' && label)
			evbuffer_add(out, "\\\"", 2);
		else
			evbuffer_add(out, c, 1);
	}
}

static void family(struct evbuffer *out, const char *name, const char *type, const char *help)
{
	evbuffer_add_printf(out, "# HELP %s ", name);
	metrics_put_escaped(out, help, false);
	evbuffer_add_printf(out, "\n# TYPE %s %s\n", name, type);
}

/* name{label="value"} n, or name n without a label. */
static void sample(struct evbuffer *out, const char *name, const char *label, const char *value,
                   uint64_t n)
{
	evbuffer_add_printf(out, "%s", name);
	if (label) {
		evbuffer_add_printf(out, "{%s=\"", label);
		metrics_put_escaped(out, value, true);
		evbuffer_add(out, "\"}", 2);
	}
	evbuffer_add_printf(out, " %llu\n", (unsigned long long)n);
}

/* One counter family labelled by the names of an enum, every value shown
 * (zero too, so that rate() has a start). */
static void enum_counter(struct evbuffer *out, const char *name, const char *help,
                         const char *label, const char *const *names, const uint64_t *counts,
                         size_t n)
{
	family(out, name, "counter", help);
	for (size_t i = 0; i < n; i++)
		sample(out, name, label, names[i], counts[i]);
}

/* name_suffix{route="...", for the caller's other labels to follow, or
 * with close name_suffix{route="..."} (no route: name_suffix{ or
 * name_suffix). */
static void series_start(struct evbuffer *out, const char *name, const char *suffix,
                         const char *route, bool close)
{
	evbuffer_add_printf(out, "%s_%s%s", name, suffix, route || !close ? "{" : "");
	if (!route)
		return;
	evbuffer_add(out, "route=\"", 7);
	metrics_put_escaped(out, route, true);
	evbuffer_add(out, close ? "\"}" : "\",", 2);
}

/* A histogram's series, with route="..." when route is not NULL: the
 * buckets cumulative up to +Inf, then _sum (seconds) and _count. */
static void histogram_series(struct evbuffer *out, const char *name, const char *route,
                             const struct histogram *h)
{
	uint64_t cumulative = 0;

	for (size_t b = 0; b <= N_BUCKETS; b++) {
		cumulative += h->count[b];
		series_start(out, name, "bucket", route, false);
		evbuffer_add_printf(out, "le=\"%s\"} %llu\n", b < N_BUCKETS ? buckets[b].le : "+Inf",
		                    (unsigned long long)cumulative);
	}
	series_start(out, name, "sum", route, true);
	evbuffer_add_printf(out, " %lld.%06lld\n", (long long)(h->sum_us / 1000000),
	                    (long long)(h->sum_us % 1000000));
	series_start(out, name, "count", route, true);
	evbuffer_add_printf(out, " %llu\n", (unsigned long long)h->total);
}

static void render_requests(struct evbuffer *out)
{
	static const char name[] = "edgeauth_http_requests_total";

	family(out, name, "counter", "Requests answered, by method, route pattern and status class.");
	for (size_t p = 0; p < m.n_patterns; p++)
		for (int k = 0; k < M__N; k++)
			for (int c = 0; c < N_CLASSES; c++) {
				if (!m.requests[p][k][c])
					continue;
				evbuffer_add_printf(out, "%s{method=\"%s\",route=\"", name, method_names[k]);
				metrics_put_escaped(out, m.pattern[p], true);
				evbuffer_add_printf(out, "\",status_class=\"%dxx\"} %llu\n", c + 1,
				                    (unsigned long long)m.requests[p][k][c]);
			}
	family(out, "edgeauth_http_request_duration_seconds", "histogram",
	       "Time from a request's arrival to its answer, by route pattern.");
	for (size_t p = 0; p < m.n_patterns; p++)
		if (m.latency[p].total)
			histogram_series(out, "edgeauth_http_request_duration_seconds", m.pattern[p],
			                 &m.latency[p]);
}

void metrics_render(struct evbuffer *out)
{
	family(out, "edgeauth_build_info", "gauge", "The running edgeauth's version, as a label.");
	sample(out, "edgeauth_build_info", "version", EDGEAUTH_VERSION, 1);
	render_requests(out);
	enum_counter(out, "edgeauth_tokens_issued_total", "Access tokens issued, by grant type.",
	             "grant_type", grant_names, m.grants, G__N);
	enum_counter(out, "edgeauth_token_reuse_detected_total", "Codes and refresh tokens used "
	             "again, each revoking its sign-in, by grant type.", "grant_type", grant_names,
	             m.reuses, G_REFRESH_TOKEN + 1);   /* nothing else is revoked on reuse */
	enum_counter(out, "edgeauth_signins_total", "Password sign-ins, by outcome.", "outcome",
	             signin_names, m.signins, METRICS_SIGNIN__N);
	enum_counter(out, "edgeauth_totp_total", "TOTP second factors, by outcome: enrolled, "
	             "a code used or failed at sign-in, removed by the user.", "outcome", totp_names,
	             m.totp, METRICS_TOTP__N);
	enum_counter(out, "edgeauth_recovery_codes_total", "Recovery codes, by outcome: a new set "
	             "issued, a code used at sign-in.", "outcome", recovery_names, m.recovery,
	             METRICS_RECOVERY__N);
	enum_counter(out, "edgeauth_passkeys_total", "Passkeys, by outcome: registered, an "
	             "assertion used at sign-in, a registration or assertion failed, removed by "
	             "the user.", "outcome", passkey_names, m.passkey, METRICS_PASSKEY__N);
	enum_counter(out, "edgeauth_device_total", "The device grant (docs/device.md), by event: "
	             "a device's request, its polls answered pending or slow_down, a user's "
	             "approval or denial, a wrong code typed, a code entry throttled, polls "
	             "answered access_denied or expired_token.", "event",
	             device_names, m.device, METRICS_DEVICE__N);
	family(out, "edgeauth_factor_resets_total", "counter",
	       "Resets of a user's second factors through the API at this node (the CLI's are "
	       "in the audit trail).");
	sample(out, "edgeauth_factor_resets_total", NULL, NULL, m.factor_resets);
	family(out, "edgeauth_password_hash_queue_depth", "gauge",
	       "Password hashes queued or running (503 past [passwords] max_pending_hashes).");
	sample(out, "edgeauth_password_hash_queue_depth", NULL, NULL, (uint64_t)m.hash_queue);
	family(out, "edgeauth_open_connections", "gauge", "Open connections to the API listener.");
	sample(out, "edgeauth_open_connections", NULL, NULL, (uint64_t)m.connections);
	family(out, "edgeauth_store_commit_duration_seconds", "histogram",
	       "Store commits (each a sync of a batch of writes), by their duration.");
	histogram_series(out, "edgeauth_store_commit_duration_seconds", NULL, &m.commits);
	family(out, "edgeauth_store_commit_failures_total", "counter",
	       "Store commits that failed (their requests answered system_error).");
	sample(out, "edgeauth_store_commit_failures_total", NULL, NULL, m.commit_failures);
	family(out, "edgeauth_store_sync_failures_total", "counter", "Syncs of committed batches "
	       "that failed: their writes were answered, and may not survive a crash.");
	sample(out, "edgeauth_store_sync_failures_total", NULL, NULL, m.sync_failures);
	family(out, "edgeauth_store_writes_refused", "gauge", "1 once the store refuses every "
	       "write (its files changed underneath or a sync failed; see the log), until restart.");
	sample(out, "edgeauth_store_writes_refused", NULL, NULL, m.store_failed ? 1 : 0);
	enum_counter(out, "edgeauth_cache_hits_total", "Look-ups answered by a cache, by cache.",
	             "cache", cache_names, m.cache_hits, METRICS_CACHE__N);
	enum_counter(out, "edgeauth_cache_misses_total", "Look-ups a cache could not answer, by "
	             "cache.", "cache", cache_names, m.cache_misses, METRICS_CACHE__N);
	family(out, "edgeauth_sessions_started_total", "counter", "Browser sessions started.");
	sample(out, "edgeauth_sessions_started_total", NULL, NULL, m.sessions_started);
	family(out, "edgeauth_sessions_ended_total", "counter",
	       "Browser sessions ended (logout, deactivation, new password, deletion; not expiry).");
	sample(out, "edgeauth_sessions_ended_total", NULL, NULL, m.sessions_ended);
	enum_counter(out, "edgeauth_backchannel_deliveries_total", "Back-channel logout deliveries, "
	             "by outcome.", "outcome", backchannel_names, m.backchannel,
	             METRICS_BACKCHANNEL__N);
}
