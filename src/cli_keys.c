/*
 * edgeauth key list | rotate | retire (docs/tokens.md §"Signing keys").
 * They work beside a running server, which sees their changes at its next
 * request; a private key is never printed.
 */
#include <stdio.h>

#include "cli_keys.h"
#include "cli_output.h"
#include "keyring.h"
#include "key_schedule.h"
#include "store_keys.h"
#include "util.h"

/* A time of the key list: RFC 3339, or null for none. */
static json_t *key_time(int64_t ms, bool none)
{
	char buf[TIMESTAMP_LEN];

	if (none)
		return json_null();
	format_timestamp(ms, buf);
	return json_string(buf);
}

/* The keys as JSON: kid, alg, state and times; never the private key. */
static json_t *key_list_json(const struct key_row *rows, size_t n)
{
	json_t *list = json_array();
	int64_t now = now_ms();

	for (size_t i = 0; i < n; i++) {
		const struct key_row *k = &rows[i];

		json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o}",
			"kid", k->kid, "alg", jwt_alg_name(k->alg),
			"state", key_state_name(key_schedule_state(rows, n, i, now)),
			"created", key_time(k->created_at, false),
			"activates_at", key_time(k->activates_at, false),
			"published_until", key_time(k->publish_until, k->publish_until == KEY_NO_BOUND),
			"retired_at", key_time(k->retired_at, k->retired_at == 0)));
	}
	return list;
}

static int key_list(struct cli_call *c)
{
	struct key_rows all;
	struct api_error err;

	if (store_keys_list(c->st, &all, &err) < 0)
		return 1;
	cli_print_json(key_list_json(all.rows, all.count));
	store_keys_rows_release(&all);
	return 0;
}

static int rotate_check(struct cli_call *c)
{
	const char *name = cli_arg(c, "--alg");
	enum jwt_alg alg;

	if (name && jwt_alg_parse(name, &alg) < 0)
		return cli_usage_error(c, "--alg is ES256 or RS256");
	return 0;
}

/* A new key of each algorithm, or of --alg's. */
static int key_rotate(struct cli_call *c)
{
	enum jwt_alg algs[JWT_ALG_COUNT] = { JWT_ES256, JWT_RS256 };
	size_t n = JWT_ALG_COUNT;
	struct key_row added[JWT_ALG_COUNT];
	struct keyring *ring;
	struct api_error err;
	char errbuf[512];
	int rc = 1;

	if (cli_arg(c, "--alg")) {
		jwt_alg_parse(cli_arg(c, "--alg"), &algs[0]);   /* rotate_check took it */
		n = 1;
	}
	/* the start's checks: the KEK opens the stored keys, a new store is filled */
	ring = keyring_open(c->cfg, c->st, errbuf, sizeof errbuf);
	if (!ring) {
		fprintf(stderr, "edgeauth: %s\n", errbuf);
		return 1;
	}
	if (keyring_rotate(ring, c->st, algs, n, added, &err) == 0) {
		cli_print_json(key_list_json(added, n));
		rc = 0;
	} else {
		fprintf(stderr, "edgeauth: %s\n", err.description);
	}
	keyring_free(ring);
	return rc;
}

static int key_retire(struct cli_call *c)
{
	struct api_error err;
	int r = store_key_retire(c->st, c->operand, now_ms(), keyring_lifetime_ms(c->cfg), &err);

	if (r == 0)
		fprintf(stderr, "edgeauth: no key %s\n", c->operand);
	else if (r < 0)
		fprintf(stderr, "edgeauth: %s\n", err.description);
	return r == 1 ? 0 : 1;
}

static const struct cli_sub subs[] = {
	{ .name = "list", .run = key_list, .usage = "key list",
	  .help = "  Prints the signing keys as JSON: kid, alg, state and times; never a private key." },
	{ .name = "rotate", .run = key_rotate, .check = rotate_check,
	  .usage = "key rotate [--alg ES256|RS256]",
	  .help = "  Adds a key of each algorithm, or of the one named; it is published at once and\n"
	          "  signs [tokens] key_activation_delay_s later.",
	  .options = { { "--alg", CLI_VALUE, false } } },
	{ .name = "retire", .run = key_retire, .operand = "KID", .usage = "key retire KID",
	  .help = "  Stops a key signing and verifying at once. An unknown kid, or the last key of\n"
	          "  its algorithm, exits 1." },
};

const struct cli_group cli_keys = {
	.name = "key", .subs = subs, .n_subs = sizeof subs / sizeof subs[0],
};
