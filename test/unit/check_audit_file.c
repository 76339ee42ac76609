/*
 * Unit tests for audit_file.c: lines appended whole, the file made 0600,
 * a reopen after a rename starts a new file, and a file that cannot be
 * opened is logged once (until a write succeeds) and costs nothing else.
 */
#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit_file.h"
#include "check_suite.h"

static struct {
	char dir[64];
	char path[PATH_MAX];
	char moved[PATH_MAX];
	char err_path[PATH_MAX];
	int saved_stderr;
} fx;

static void setup(void)
{
	int fd;

	memset(&fx, 0, sizeof fx);
	snprintf(fx.dir, sizeof fx.dir, "/tmp/check_audit_file.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx.dir));
	snprintf(fx.path, sizeof fx.path, "%s/audit.log", fx.dir);
	snprintf(fx.moved, sizeof fx.moved, "%s/audit.log.1", fx.dir);
	snprintf(fx.err_path, sizeof fx.err_path, "%s/stderr", fx.dir);
	/* the module logs to stderr: catch it */
	fflush(stderr);
	fx.saved_stderr = dup(2);
	fd = open(fx.err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	dup2(fd, 2);
	close(fd);
}

static void teardown(void)
{
	fflush(stderr);
	dup2(fx.saved_stderr, 2);
	close(fx.saved_stderr);
	unlink(fx.path);
	rmdir(fx.path);
	unlink(fx.moved);
	unlink(fx.err_path);
	rmdir(fx.dir);
}

/* The whole of a small file, in a static buffer. */
static const char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	buf[0] = '\0';
	if (f) {
		n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static int logged(void)
{
	const char *text;
	int n = 0;

	fflush(stderr);
	for (text = slurp(fx.err_path); (text = strstr(text, "audit file")); text++)
		n++;
	return n;
}

/* A sink's call: whole lines, their length counted here. */
static void write_line(struct audit_file *f, const char *lines)
{
	audit_file_write(f, lines, strlen(lines));
}

START_TEST(test_append)
{
	struct audit_file *f = audit_file_open(fx.path);
	struct stat sb;

	write_line(f, "{\"id\":1}\n");
	write_line(f, "{\"id\":2}\n");
	ck_assert_str_eq(slurp(fx.path), "{\"id\":1}\n{\"id\":2}\n");
	ck_assert_int_eq(stat(fx.path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	audit_file_free(f);
	/* a second opener appends */
	f = audit_file_open(fx.path);
	write_line(f, "{\"id\":3}\n");
	ck_assert_str_eq(slurp(fx.path), "{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n");
	/* a commit's lines come at once */
	write_line(f, "{\"id\":4}\n{\"id\":5}\n");
	ck_assert_str_eq(slurp(fx.path),
	                 "{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n{\"id\":4}\n{\"id\":5}\n");
	audit_file_free(f);
	ck_assert_int_eq(logged(), 0);
}
END_TEST

START_TEST(test_reopen_after_rename)
{
	struct audit_file *f = audit_file_open(fx.path);

	write_line(f, "{\"id\":1}\n");
	ck_assert_int_eq(rename(fx.path, fx.moved), 0);
	write_line(f, "{\"id\":2}\n");   /* still the moved file, until the reopen */
	audit_file_reopen(f);
	write_line(f, "{\"id\":3}\n");
	ck_assert_str_eq(slurp(fx.moved), "{\"id\":1}\n{\"id\":2}\n");
	ck_assert_str_eq(slurp(fx.path), "{\"id\":3}\n");
	audit_file_free(f);
}
END_TEST

START_TEST(test_failure_logged_once)
{
	struct audit_file *f;

	ck_assert_int_eq(mkdir(fx.path, 0700), 0);   /* not a file: no open, even for root */
	f = audit_file_open(fx.path);
	ck_assert_int_eq(logged(), 1);
	write_line(f, "{\"id\":1}\n");
	write_line(f, "{\"id\":2}\n");
	audit_file_reopen(f);
	ck_assert_int_eq(logged(), 1);
	ck_assert_int_eq(rmdir(fx.path), 0);
	audit_file_reopen(f);
	write_line(f, "{\"id\":3}\n");
	ck_assert_str_eq(slurp(fx.path), "{\"id\":3}\n");
	/* a new run of failures is logged again */
	unlink(fx.path);
	ck_assert_int_eq(mkdir(fx.path, 0700), 0);
	audit_file_reopen(f);
	ck_assert_int_eq(logged(), 2);
	audit_file_free(f);
	audit_file_free(NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("audit_file");
	TCase *tc = check_tcase("audit_file", setup, teardown);

	tcase_add_test(tc, test_append);
	tcase_add_test(tc, test_reopen_after_rename);
	tcase_add_test(tc, test_failure_logged_once);
	suite_add_tcase(s, tc);
	return check_run(srunner_create(s));
}
