#ifndef EDGEAUTH_INPUT_NAMES_H
#define EDGEAUTH_INPUT_NAMES_H
/*
 * The names a management endpoint knows, as data beside the route table
 * (docs/api.md §"Conventions"): the body fields and query parameters it
 * takes, and the fields of the record it answers with, which a body may
 * carry and which are ignored. The router refuses any other name with
 * invalid_params, naming it and the nearest name the endpoint takes, so that
 * a typo is never dropped in silence. One look-up in a short table per name.
 */
#include <stddef.h>
#include <jansson.h>
#include <event2/keyvalq_struct.h>

#include "error.h"

/* A JSON body's names. The lists are NULL-terminated. */
struct input_names {
	const char *const *taken;     /* read by the endpoint */
	const char *const *ignored;   /* the record's other fields, or NULL */
	/* a member holding an array of objects (a resource's "permissions"),
	 * whose objects are held to items; NULL: none */
	const char *items_key;
	const struct input_names *items;
};

/* The query parameters of a management endpoint that takes none. */
extern const char *const input_query_none[];

/* Fails (invalid_params) at the first member of body, or of an object in
 * its items_key array, that names knows neither as taken nor as ignored.
 * Values are not looked at: their types are the endpoint's to check. */
int input_names_check_body(const json_t *body, const struct input_names *names,
                           struct api_error *err);
/* Fails (invalid_params) at the first parameter of q not in taken. */
int input_names_check_query(const struct evkeyvalq *q, const char *const *taken,
                            struct api_error *err);

/* The name of taken nearest to name (a typo's edit distance, a prefix), or
 * NULL when none is near enough to be a likely meaning. */
const char *input_names_nearest(const char *name, const char *const *taken);

#endif
