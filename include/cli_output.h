#ifndef EDGEAUTH_CLI_OUTPUT_H
#define EDGEAUTH_CLI_OUTPUT_H
/*
 * The everyday commands' one output (docs/commands.md): a record or a list
 * as JSON (one compact line: an object, or an array for a list) when
 * stdout is not a terminal or with --json, else as a table.
 */
#include <jansson.h>

#include "cli_args.h"

/* Prints value (takes it): with c->json its JSON; else an object as
 * "key  value" lines (every key), an array of objects as a row of columns
 * each. Text goes to stdout's descriptor whole, through no stdio buffer,
 * and is wiped: it may hold a client secret. 0, or 1 said on stderr. */
int cli_print(const struct cli_call *c, json_t *value, const char *const *columns);

/* Prints value (takes it) as one compact line of JSON on stdout, whatever
 * stdout is: the older commands' output (project, key). Returns 0. */
int cli_print_json(json_t *value);

/* A store's record text as JSON; NULL (system_error in err) when it is not. */
json_t *cli_record(const char *text, struct api_error *err);

/* body[key] = value when value is not NULL, kept as given: the API's body
 * reader then refuses what is not UTF-8 text, with its own sentence. */
void cli_body_set(json_t *body, const char *key, const char *value);

#endif
