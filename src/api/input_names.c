/*
 * Unknown body fields and query parameters of the management API
 * (docs/api.md §"Conventions"): each name is looked up in its endpoint's
 * table; the first unknown one is invalid_params with the nearest known
 * name. An error quotes only the name, never a value.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "input_names.h"

const char *const input_query_none[] = { NULL };

/* Names longer than this are not compared for a suggestion: no name we
 * take comes near it. */
#define NEAREST_MAX 64
/* Bytes of an unknown name quoted in an error (room in the description). */
#define QUOTE_MAX 48

static bool in_list(const char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (strcmp(*list, name) == 0)
			return true;
	return false;
}

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;
	return m < c ? m : c;
}

/* The optimal string alignment distance of a[0..n) and b[0..m), n and m at
 * most NEAREST_MAX: insertions, deletions, substitutions and swaps of two
 * neighbours ("nmae") cost one each. */
static size_t edit_distance(const char *a, size_t n, const char *b, size_t m)
{
	size_t rows[3][NEAREST_MAX + 1], *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	for (size_t j = 0; j <= m; j++)
		prev[j] = j;
	for (size_t i = 1; i <= n; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= m; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[m];
}

/* Near enough to be a likely meaning: a distance of at most a third of the
 * longer name ("permissions" and "permission_ids"), or the one a prefix of
 * the other ("desc" and "description", "sort" and "sort_by"). */
static bool near(const char *name, size_t n, const char *known, size_t m, size_t d)
{
	size_t shorter = n < m ? n : m, longer = n < m ? m : n;

	return d * 3 <= longer || (shorter >= 3 && strncmp(name, known, shorter) == 0);
}

const char *input_names_nearest(const char *name, const char *const *taken)
{
	size_t n = strlen(name), best_d = (size_t)-1;
	const char *best = NULL;

	if (n == 0 || n > NEAREST_MAX)
		return NULL;
	for (; taken && *taken; taken++) {
		size_t m = strlen(*taken), d;

		if (m > NEAREST_MAX)
			continue;
		d = edit_distance(name, n, *taken, m);
		if (d < best_d && near(name, n, *taken, m, d)) {
			best = *taken;
			best_d = d;
		}
	}
	return best;
}

/* name as quoted in an error: at most QUOTE_MAX bytes, cut at a character
 * boundary (names are UTF-8: jansson and form_parse checked them), control
 * characters as '?' so that no log line breaks. */
static void quote_name(char out[QUOTE_MAX + 4], const char *name)
{
	size_t i = 0, k = strlen(name);

	if (k > QUOTE_MAX) {
		k = QUOTE_MAX;
		while (k > 0 && ((unsigned char)name[k] & 0xc0) == 0x80)
			k--;
	}
	for (; i < k; i++)
		out[i] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
	strcpy(out + i, k < strlen(name) ? "..." : "");
}

/* The error for an unknown name: what (field, query parameter), the name,
 * with a prefix ("permissions[2].") when it is an item's, and the nearest
 * name taken. */
static int unknown(struct api_error *err, const char *what, const char *prefix, size_t item,
                   const char *name, const char *const *taken)
{
	const char *nearest = input_names_nearest(name, taken);
	char quoted[QUOTE_MAX + 4], at[64] = "";

	quote_name(quoted, name);
	if (prefix)
		snprintf(at, sizeof at, "%s[%zu].", prefix, item);
	if (nearest)
		return api_fail(err, E_INVALID_PARAMS, "unknown %s \"%s%s\"; did you mean \"%s\"?",
		                what, at, quoted, nearest);
	return api_fail(err, E_INVALID_PARAMS, "unknown %s \"%s%s\"", what, at, quoted);
}

static int check_object(const json_t *obj, const struct input_names *names, const char *prefix,
                        size_t item, struct api_error *err)
{
	const char *key;
	const json_t *v;

	json_object_foreach((json_t *)obj, key, v) {
		if (in_list(names->taken, key) || in_list(names->ignored, key))
			continue;
		return unknown(err, "field", prefix, item, key, names->taken);
	}
	return 0;
}

int input_names_check_body(const json_t *body, const struct input_names *names,
                           struct api_error *err)
{
	const json_t *items, *v;
	size_t i;

	if (check_object(body, names, NULL, 0, err) < 0)
		return -1;
	if (!names->items_key)
		return 0;
	items = json_object_get(body, names->items_key);
	json_array_foreach(items, i, v)   /* not an array: no iteration */
		if (json_is_object(v) && check_object(v, names->items, names->items_key, i, err) < 0)
			return -1;
	return 0;
}

int input_names_check_query(const struct evkeyvalq *q, const char *const *taken,
                            struct api_error *err)
{
	for (const struct evkeyval *kv = q->tqh_first; kv; kv = kv->next.tqe_next)
		if (!in_list(taken, kv->key))
			return unknown(err, "query parameter", NULL, 0, kv->key, taken);
	return 0;
}
