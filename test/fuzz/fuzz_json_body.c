/*
 * libFuzzer harness: jbody_parse (jbody.c), then every per-area body
 * reader the JSON endpoints run before the store is asked anything
 * (resources_read_body, roles_read_body, users_read_body, clients_read_body)
 * and the generic readers with the rules of the other JSON bodies
 * (jbody_read_string, jbody_read_bool, jbody_read_id_list). What a reader
 * accepts is checked against docs/api.md §"Limits"; what it refuses must be
 * invalid_params with a sentence that repeats no value from the body.
 */
#include <stdbool.h>
#include <jansson.h>

#include "api_clients.h"
#include "api_resources.h"
#include "api_roles.h"
#include "api_users.h"
#include "fuzz.h"
#include "jbody.h"
#include "validate.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	json_object_seed(1);   /* the same hash order on every run */
	return 0;
}

/* A string that no error sentence could contain by chance: our sentences
 * are plain ASCII prose without these bytes. */
static bool distinctive(const char *s)
{
	return strlen(s) >= 4 && strpbrk(s, "\"{}<>|`^#!?*&$=\\\x7f") != NULL;
}

static bool any_high_byte(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return true;
	return false;
}

/* The error sentence holds no string value of the body (it could be a
 * password): walks v and checks each distinctive string. */
static void check_not_echoed(const json_t *v, const char *sentence)
{
	const char *key;
	json_t *item;
	size_t i;

	if (json_is_string(v)) {
		const char *s = json_string_value(v);

		if (distinctive(s) || (strlen(s) >= 4 && any_high_byte(s)))
			FUZZ_CHECK(strstr(sentence, s) == NULL);
	} else if (json_is_object(v)) {
		json_object_foreach((json_t *)v, key, item)
			check_not_echoed(item, sentence);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, item)
			check_not_echoed(item, sentence);
	}
}

/* A reader's failure: invalid_params, one sentence that fits, no value. */
static void check_error(const json_t *body, const struct api_error *err)
{
	FUZZ_CHECK(err->api_code == E_INVALID_PARAMS && err->status == 400);
	FUZZ_CHECK(err->description[0] != '\0');
	FUZZ_CHECK(strlen(err->description) < API_ERROR_DESCRIPTION_MAX);
	check_not_echoed(body, err->description);
}

/* jbody_parse's promise for every string it hands out, keys included:
 * UTF-8 without U+0000. */
static void check_strings(const json_t *v)
{
	const char *key;
	json_t *item;
	size_t i;

	if (json_is_string(v)) {
		FUZZ_CHECK(strlen(json_string_value(v)) == json_string_length(v));
		FUZZ_CHECK(utf8_valid(json_string_value(v), json_string_length(v)));
	} else if (json_is_object(v)) {
		json_object_foreach((json_t *)v, key, item) {
			FUZZ_CHECK(utf8_valid(key, strlen(key)));
			check_strings(item);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, item)
			check_strings(item);
	}
}

/* A present string of min..max code points (max 0: any). */
static void check_chars(const char *s, size_t min, size_t max)
{
	size_t n;

	FUZZ_CHECK(s != NULL);
	n = utf8_chars(s);
	FUZZ_CHECK(n >= min && (max == 0 || n <= max));
}

static void check_field(const struct str_field *f, size_t max)
{
	FUZZ_CHECK(f->state == FIELD_ABSENT || f->state == FIELD_CLEAR || f->state == FIELD_SET);
	FUZZ_CHECK((f->state == FIELD_SET) == (f->value != NULL));
	if (f->state == FIELD_SET)
		check_chars(f->value, 1, max);
}

/* Distinct, non-empty IDs of at most ID_MAX_CHARS, at most max of them. */
static void check_ids(const struct jbody_id_list *ids, size_t max)
{
	FUZZ_CHECK(ids->count <= max);
	for (size_t i = 0; i < ids->count; i++) {
		check_chars(ids->ids[i], 1, ID_MAX_CHARS);
		for (size_t j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(ids->ids[i], ids->ids[j]) != 0);
	}
}

static void fuzz_resources(const json_t *body, bool is_update)
{
	struct resource_input in;
	struct api_error err = { 0 };

	if (resources_read_body(body, is_update, &in, &err) < 0) {
		check_error(body, &err);
		resources_input_release(&in);
		return;
	}
	check_chars(in.name, 1, NAME_MAX_CHARS);
	check_chars(in.code, 1, CODE_MAX_CHARS);
	if (!is_update)
		FUZZ_CHECK(validate_code(in.code));
	check_field(&in.description, DESCRIPTION_MAX_CHARS);
	FUZZ_CHECK(in.n_permissions <= RESOURCE_PERMISSIONS_MAX);
	FUZZ_CHECK(in.permissions_present || in.n_permissions == 0);
	for (size_t i = 0; i < in.n_permissions; i++) {
		const struct permission_input *p = &in.permissions[i];

		check_chars(p->name, 1, NAME_MAX_CHARS);
		FUZZ_CHECK(validate_code(p->code));
		check_field(&p->description, DESCRIPTION_MAX_CHARS);
		if (!is_update)
			FUZZ_CHECK(p->id == NULL);
		if (p->id)
			check_chars(p->id, 1, ID_MAX_CHARS);
		for (size_t j = 0; j < i; j++) {
			FUZZ_CHECK(strcmp(p->code, in.permissions[j].code) != 0);
			FUZZ_CHECK(!p->id || !in.permissions[j].id ||
			           strcmp(p->id, in.permissions[j].id) != 0);
		}
	}
	resources_input_release(&in);
}

static void fuzz_roles(const json_t *body)
{
	struct role_fields f;
	struct jbody_id_list ids = ID_LIST_INIT;
	struct api_error err = { 0 };

	if (roles_read_body(body, &f, &ids, &err) < 0) {
		check_error(body, &err);
	} else {
		FUZZ_CHECK(validate_code(f.code));
		check_chars(f.name, 1, NAME_MAX_CHARS);
		check_field(&f.description, DESCRIPTION_MAX_CHARS);
		FUZZ_CHECK(f.permission_ids == &ids);
		check_ids(&ids, ROLE_PERMISSION_IDS_MAX);
	}
	jbody_id_list_release(&ids);
}

static void fuzz_users(const json_t *body, enum user_write kind)
{
	struct user_fields f;
	struct str_field password = { FIELD_ABSENT, NULL };
	struct api_error err = { 0 };

	memset(&f, 0, sizeof f);
	if (users_read_body(body, kind, &f, &password, &err) < 0) {
		check_error(body, &err);
		return;
	}
	check_chars(f.display_name, 1, NAME_MAX_CHARS);
	check_field(&f.avatar_url, URL_MAX_CHARS);
	if (f.avatar_url.state == FIELD_SET)
		FUZZ_CHECK(validate_http_url(f.avatar_url.value));
	check_field(&f.external_user_id, EXTERNAL_ID_MAX_CHARS);
	check_field(&f.email, EMAIL_MAX_CHARS);
	if (f.email.state == FIELD_SET)
		FUZZ_CHECK(validate_email(f.email.value));
	check_field(&password, PASSWORD_MAX_CHARS);
	if (password.state == FIELD_SET)
		check_chars(password.value, PASSWORD_MIN_CHARS, PASSWORD_MAX_CHARS);
	check_field(&f.role_id, ID_MAX_CHARS);
	FUZZ_CHECK(f.password_hash == NULL);
	switch (kind) {
	case USER_CURRENT:
		FUZZ_CHECK(f.email.state == FIELD_SET && f.is_active == -1);
		FUZZ_CHECK(f.external_user_id.state == FIELD_ABSENT && f.role_id.state == FIELD_ABSENT);
		break;
	case USER_CREATE:
		FUZZ_CHECK(f.is_active == -1);
		FUZZ_CHECK(f.email.state != FIELD_SET || password.state == FIELD_SET);
		FUZZ_CHECK(f.email.state == FIELD_SET || f.external_user_id.state == FIELD_SET);
		break;
	case USER_UPDATE:
		FUZZ_CHECK(f.is_active == 0 || f.is_active == 1);
		FUZZ_CHECK(f.email.state == FIELD_SET || f.external_user_id.state == FIELD_SET);
		break;
	}
}

/* A URI list (redirect_uris, post_logout_redirect_uris) as
 * clients_read_body stores it: a JSON array of at most 20 distinct absolute
 * http(s) URLs without a fragment. */
static void check_redirect_uris(const char *text)
{
	json_t *uris = json_loads(text, JSON_REJECT_DUPLICATES, NULL), *v;
	size_t i, j;

	FUZZ_CHECK(json_is_array(uris) && json_array_size(uris) <= 20);
	json_array_foreach(uris, i, v) {
		const char *s = json_string_value(v);

		FUZZ_CHECK(s && validate_http_url(s) && !strchr(s, '#'));
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(s, json_string_value(json_array_get(uris, j))) != 0);
	}
	json_decref(uris);
}

static void check_uri_list(const struct uri_list *l)
{
	FUZZ_CHECK(l->present == (l->json != NULL));
	if (l->json)
		check_redirect_uris(l->json);
}

/* One of the values a choice field allows, or absent. */
static bool one_of(const char *v, const char *a, const char *b, const char *c)
{
	return !v || !strcmp(v, a) || !strcmp(v, b) || (c && !strcmp(v, c));
}

static void fuzz_clients(const json_t *body, bool update)
{
	struct client_body b;
	struct api_error err = { 0 };

	clients_body_init(&b);
	if (clients_read_body(body, update, &b, &err) < 0) {
		check_error(body, &err);
	} else {
		check_field(&b.name, NAME_MAX_CHARS);
		FUZZ_CHECK(b.name.state == FIELD_SET);
		check_field(&b.description, DESCRIPTION_MAX_CHARS);
		FUZZ_CHECK(update ? (b.is_active == 0 || b.is_active == 1) : b.is_active == -1);
		check_ids(&b.permission_ids, 1000);
		check_uri_list(&b.redirect_uris);
		check_uri_list(&b.post_logout_redirect_uris);
		check_field(&b.backchannel_logout_uri, 2048);
		FUZZ_CHECK(b.backchannel_logout_uri.state != FIELD_SET ||
		           (validate_http_url(b.backchannel_logout_uri.value) &&
		            !strchr(b.backchannel_logout_uri.value, '#')));
		FUZZ_CHECK(one_of(b.token_endpoint_auth_method, "none", "client_secret_basic",
		                  "client_secret_post"));
		FUZZ_CHECK(one_of(b.id_token_signed_response_alg, "RS256", "ES256", NULL));
	}
	clients_body_release(&b);
	FUZZ_CHECK(b.redirect_uris.json == NULL && b.post_logout_redirect_uris.json == NULL &&
	           b.permission_ids.ids == NULL);
}

/* The rules of the other JSON bodies: BYOU codes (api_authorize.c) and
 * POST /tokens/current/revoke (api_revoke.c), and a few of each check. */
static const struct str_rule other_rules[] = {
	{ .key = "client_id", .required = true, .max_chars = ID_MAX_CHARS },
	{ .key = "redirect_uri", .required = true, .check = CHECK_URL },
	{ .key = "code_challenge", .required = true, .max_chars = 128 },
	{ .key = "code_challenge_method", .required = true, .max_chars = 16 },
	{ .key = "refresh_token", .required = true, .max_chars = 512 },
	{ .key = "code", .check = CHECK_CODE },
	{ .key = "email", .min_chars = 3, .max_chars = 200, .check = CHECK_EMAIL },
	{ .key = "avatar_url", .max_chars = 20, .check = CHECK_URL },
	{ .key = "name", .min_chars = 2 },
};

static void fuzz_generic(const json_t *body)
{
	struct api_error err = { 0 };
	struct jbody_id_list ids = ID_LIST_INIT;
	struct str_field f;
	int b;

	for (size_t i = 0; i < sizeof other_rules / sizeof other_rules[0]; i++) {
		const struct str_rule *r = &other_rules[i];

		if (jbody_read_string(body, r, &f, &err) < 0) {
			check_error(body, &err);
			continue;
		}
		FUZZ_CHECK(!r->required || f.state == FIELD_SET);
		check_field(&f, 0);
		if (f.state != FIELD_SET)
			continue;
		if (r->min_chars)
			check_chars(f.value, r->min_chars, 0);
		if (r->max_chars)
			check_chars(f.value, 1, r->max_chars);
		if (r->check == CHECK_URL)
			FUZZ_CHECK(validate_http_url(f.value));
		else if (r->check == CHECK_EMAIL)
			FUZZ_CHECK(validate_email(f.value));
		else if (r->check == CHECK_CODE)
			FUZZ_CHECK(validate_code(f.value));
	}
	for (int required = 0; required < 2; required++) {
		if (jbody_read_bool(body, "is_active", required, &b, &err) < 0)
			check_error(body, &err);
		else
			FUZZ_CHECK(b == 1 || b == 0 || (b == -1 && !required));
	}
	/* A small cap, so that the "at most" path is reached. */
	if (jbody_read_id_list(body, "permission_ids", 3, &ids, &err) < 0)
		check_error(body, &err);
	else
		check_ids(&ids, 3);
	jbody_id_list_release(&ids);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct api_error err = { 0 };
	json_t *body = jbody_parse((const char *)data, size, &err);

	if (!body) {
		FUZZ_CHECK(err.api_code == E_INVALID_PARAMS && err.description[0]);
		return 0;
	}
	FUZZ_CHECK(json_is_object(body));
	check_strings(body);

	fuzz_resources(body, false);
	fuzz_resources(body, true);
	fuzz_roles(body);
	fuzz_users(body, USER_CREATE);
	fuzz_users(body, USER_UPDATE);
	fuzz_users(body, USER_CURRENT);
	fuzz_clients(body, false);
	fuzz_clients(body, true);
	fuzz_generic(body);
	json_decref(body);
	return 0;
}
