/*
 * edgeauth user add | list | show | enable | disable | delete | set-password
 * (docs/commands.md §"Users"). Each reads its options into the body the API
 * would get and checks it with the API's own reader (users_read_body), then
 * writes through the store operation the API uses, with actor "cli" and no
 * scope (no escalation: the box's operator holds every permission). A
 * password comes from stdin or a prompt without echo, never from argv; it
 * is wiped once hashed and never printed, logged or audited.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "api_users.h"
#include "cli_lookup.h"
#include "cli_output.h"
#include "cli_users.h"
#include "crypto.h"
#include "passwords.h"
#include "store_factors.h"
#include "store_users.h"
#include "util.h"
#include "validate.h"

static const char *const user_columns[] = {
	"id", "email", "external_user_id", "display_name", "role_name", "is_active", NULL,
};

/* Room for a password at its longest (4 bytes a character), and its newline. */
#define PASSWORD_READ_MAX (PASSWORD_MAX_CHARS * 4 + 2)

/* One line of fd into buf (NUL-terminated, its "\n" or "\r\n" dropped),
 * read a byte at a time so that no buffer keeps the rest. 0, or -1 with
 * err (a line too long for any password). */
static int read_line(int fd, char *buf, struct api_error *err)
{
	size_t len = 0;
	bool over = false;
	char ch;

	while (read(fd, &ch, 1) == 1 && ch != '\n') {
		if (len + 1 < PASSWORD_READ_MAX)
			buf[len++] = ch;
		else
			over = true;
	}
	if (len > 0 && buf[len - 1] == '\r')
		len--;
	buf[len] = '\0';
	if (over)
		return api_fail(err, E_INVALID_PARAMS, "password must be at most %d characters",
		                PASSWORD_MAX_CHARS);
	return 0;
}

/* The terminal's settings while a prompt has turned its echo off. */
static struct termios echoing;

/* Ctrl-C or a kill at the prompt: the terminal gets its echo back first. */
static void restore_echo(int sig)
{
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &echoing);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* On a terminal: the prompt on stderr, the line read without echo (what
 * was typed before the prompt is dropped, as getpass(3) does). */
static int prompt_line(const char *prompt, char *buf, struct api_error *err)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct termios quiet;
	int rc;

	tcgetattr(STDIN_FILENO, &echoing);
	quiet = echoing;
	quiet.c_lflag &= ~(tcflag_t)ECHO;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], restore_echo);
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
	/* only now: what is typed once the prompt shows is neither echoed
	 * nor flushed */
	fputs(prompt, stderr);
	fflush(stderr);
	rc = read_line(STDIN_FILENO, buf, err);
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &echoing);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], SIG_DFL);
	fputs("\n", stderr);
	return rc;
}

/* The password: a line of stdin, or on a terminal typed twice without
 * echo. A new string (crypto_free_wiped), or NULL with err. */
static char *read_password(struct api_error *err)
{
	char *pw = xmalloc(PASSWORD_READ_MAX), *again;
	int rc;

	if (!isatty(STDIN_FILENO)) {
		if (read_line(STDIN_FILENO, pw, err) == 0)
			return pw;
		crypto_free_wiped(pw);
		return NULL;
	}
	again = xmalloc(PASSWORD_READ_MAX);
	rc = prompt_line("Password: ", pw, err);
	if (rc == 0)
		rc = prompt_line("Password again: ", again, err);
	if (rc == 0 && strcmp(pw, again) != 0)
		rc = api_fail(err, E_INVALID_PARAMS, "The two passwords differ.");
	crypto_free_wiped(again);
	if (rc == 0)
		return pw;
	crypto_free_wiped(pw);
	return NULL;
}

/* Reads the password into body["password"]; the read copy is wiped. */
static int body_set_password(json_t *body, struct api_error *err)
{
	char *pw = read_password(err);

	if (!pw)
		return -1;
	cli_body_set(body, "password", pw);
	crypto_free_wiped(pw);
	return 0;
}

/* The hash of a password the body carried, into f (*hash owns it). */
static int hash_into(const struct cli_call *c, const struct str_field *password,
                     struct user_fields *f, char **hash, struct api_error *err)
{
	*hash = NULL;
	if (password->state != FIELD_SET)
		return 0;
	*hash = passwords_hash_now(c->cfg, password->value);
	if (!*hash)
		return api_fail(err, E_UNAVAILABLE, "The password could not be hashed; try again shortly.");
	f->password_hash = *hash;
	return 0;
}

/* The record text of a write, printed. */
static int print_written(struct cli_call *c, struct sync_result *r, char *record)
{
	struct api_error err;
	json_t *v = sync_wait(r, &err) < 0 ? NULL : cli_record(record, &err);

	free(record);
	return v ? cli_print(c, v, user_columns) : cli_fail(&err);
}

/* Checks the body, finds the role (the API's order: invalid_params, then
 * role_not_found), hashes the password and creates the user. */
static int add_write(struct cli_call *c, json_t *body, struct api_error *err)
{
	struct str_field password = { FIELD_ABSENT, NULL };
	struct user_fields f = { 0 };
	const char *role = cli_arg(c, "--role");
	json_t *role_record = NULL;
	char *hash = NULL, *record = NULL;
	struct sync_result r;
	int rc;

	if (users_read_body(body, USER_CREATE, &f, &password, err) < 0)
		return -1;
	if (role && !(role_record = cli_find_role(c, role, err))) {
		if (err->api_code == E_ROLE_NOT_FOUND)
			api_fail(err, E_ROLE_NOT_FOUND, "%s", store_user_role_missing);
		return -1;
	}
	if (role_record)
		f.role_id = (struct str_field){ FIELD_SET,
			json_string_value(json_object_get(role_record, "id")) };
	rc = hash_into(c, &password, &f, &hash, err);
	if (rc == 0) {
		store_user_create(c->st, &event_origin_cli, c->project_id, &f, NULL, &record,
		                  sync_completion(&r));
		rc = print_written(c, &r, record) == 0 ? 0 : 1;
	}
	crypto_free_wiped(hash);
	json_decref(role_record);
	return rc;
}

static int user_add(struct cli_call *c)
{
	const char *email = cli_arg(c, "--email"), *external = cli_arg(c, "--external-id");
	json_t *body;
	struct api_error err;
	int rc = 0;

	if (!email == !external)
		return cli_usage_error(c, "give --email or --external-id (one of them)");
	body = json_object();
	cli_body_set(body, "display_name", cli_arg(c, "--name"));
	cli_body_set(body, "email", email);
	cli_body_set(body, "external_user_id", external);
	if (cli_arg(c, "--password-stdin") && body_set_password(body, &err) < 0)
		rc = cli_fail(&err);
	if (rc == 0) {
		rc = add_write(c, body, &err);
		if (rc < 0)
			rc = cli_fail(&err);
	}
	json_decref(body);   /* its strings are wiped as they are freed (main.c) */
	return rc;
}

static int user_list(struct cli_call *c)
{
	return cli_list_print(c, store_user_list, cli_arg(c, "--search"), user_columns);
}

static int user_show(struct cli_call *c)
{
	struct api_error err;
	json_t *user = cli_find_user(c, c->operand, &err);

	return user ? cli_print(c, user, user_columns) : cli_fail(&err);
}

/* An update of the user found: the record read back as the body (as a PUT
 * may send it), with is_active and the password as given (-1, NULL: kept).
 * What the body carries besides is kept as stored. */
static int update(struct cli_call *c, int is_active, bool new_password)
{
	struct str_field password = { FIELD_ABSENT, NULL };
	struct user_fields f = { 0 };
	struct api_error err;
	struct sync_result r;
	char *hash = NULL, *record = NULL;
	json_t *user = cli_find_user(c, c->operand, &err);
	int rc = -1;

	if (user && is_active >= 0)
		json_object_set_new(user, "is_active", json_boolean(is_active));
	if (user && (!new_password || body_set_password(user, &err) == 0) &&
	    users_read_body(user, USER_UPDATE, &f, &password, &err) == 0) {
		f.avatar_url = f.external_user_id = f.email = f.role_id =
			(struct str_field){ FIELD_ABSENT, NULL };
		rc = hash_into(c, &password, &f, &hash, &err);
	}
	if (rc == 0) {
		store_user_update(c->st, &event_origin_cli, c->project_id,
		                  json_string_value(json_object_get(user, "id")), &f, NULL, &record,
		                  sync_completion(&r));
		rc = print_written(c, &r, record);
	} else {
		rc = cli_fail(&err);
	}
	crypto_free_wiped(hash);
	json_decref(user);
	return rc;
}

static int user_enable(struct cli_call *c)
{
	return update(c, 1, false);
}

static int user_disable(struct cli_call *c)
{
	return update(c, 0, false);
}

static int user_set_password(struct cli_call *c)
{
	return update(c, -1, true);
}

static int user_delete(struct cli_call *c)
{
	struct api_error err;
	json_t *user = cli_find_user(c, c->operand, &err);

	return user ? cli_delete_print(c, user, store_user_delete, user_columns) : cli_fail(&err);
}

/* docs/signin.md §"Second factors": the user's factors go and its sessions
 * end; the record is printed as it is after, without factors. */
static int user_reset_factors(struct cli_call *c)
{
	struct api_error err;
	json_t *user = cli_find_user(c, c->operand, &err);

	if (!user)
		return cli_fail(&err);
	json_object_set_new(user, "second_factors", json_array());
	return cli_delete_print(c, user, store_factors_reset, user_columns);
}

#define PROJECT { "--project", CLI_VALUE, true }

static const struct cli_sub subs[] = {
	{ .name = "add", .run = user_add,
	  .usage = "user add --project P (--email E | --external-id X) --name N [--role R]"
	           " [--password-stdin]",
	  .help = "  Adds an active user. A user with an email signs in with a password: give it on\n"
	          "  stdin with --password-stdin (one line; on a terminal it is asked for twice,\n"
	          "  without echo). R is a role's ID or code.",
	  .options = { PROJECT, { "--email", CLI_VALUE, false }, { "--external-id", CLI_VALUE, false },
	               { "--name", CLI_VALUE, true }, { "--role", CLI_VALUE, false },
	               { "--password-stdin", CLI_FLAG, false } } },
	{ .name = "list", .run = user_list, .usage = "user list --project P [--search S]",
	  .help = "  Lists the project's users, oldest first; S matches a part of the display name\n"
	          "  or email, without regard to case.",
	  .options = { PROJECT, { "--search", CLI_VALUE, false } } },
	{ .name = "show", .run = user_show, .operand = "USER", .usage = "user show --project P USER",
	  .help = "  Shows one user. USER is the user's ID, email or external ID.",
	  .options = { PROJECT } },
	{ .name = "enable", .run = user_enable, .operand = "USER",
	  .usage = "user enable --project P USER",
	  .help = "  Lets the user sign in again. Tokens issued before it was disabled stay invalid.",
	  .options = { PROJECT } },
	{ .name = "disable", .run = user_disable, .operand = "USER",
	  .usage = "user disable --project P USER",
	  .help = "  Stops the user signing in, and its tokens working, at the server's next request.",
	  .options = { PROJECT } },
	{ .name = "delete", .run = user_delete, .operand = "USER",
	  .usage = "user delete --project P USER",
	  .help = "  Deletes the user, its sessions and tokens; prints the record it deleted.",
	  .options = { PROJECT } },
	{ .name = "reset-factors", .run = user_reset_factors, .operand = "USER",
	  .usage = "user reset-factors --project P USER",
	  .help = "  Removes the user's second factors (a lost phone) and ends its sessions; it\n"
	          "  signs in with its password alone and may enroll again. Prints the record.",
	  .options = { PROJECT } },
	{ .name = "set-password", .run = user_set_password, .operand = "USER",
	  .usage = "user set-password --project P USER",
	  .help = "  Sets the user's password: one line of stdin, or on a terminal typed twice\n"
	          "  without echo. Never an argument: it would show in ps and the shell's history.",
	  .options = { PROJECT } },
};

const struct cli_group cli_users = {
	.name = "user", .subs = subs, .n_subs = sizeof subs / sizeof subs[0], .records = true,
};
