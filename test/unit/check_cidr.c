/* CIDR ranges: parsing (strict: no host bits past the prefix, prefixes in
 * range), matching of IPv4 and IPv6 addresses, and the address form. */
#include <check.h>
#include <string.h>

#include "check_suite.h"
#include "cidr.h"

static struct cidr_list list;
static char reason[CIDR_REASON_MAX];

static void setup(void)
{
	memset(&list, 0, sizeof list);
	reason[0] = '\0';
}

static void teardown(void)
{
	cidr_list_release(&list);
}

static bool contains(const char *addr)
{
	unsigned char a[16];

	ck_assert_msg(cidr_addr_parse(addr, a) == 0, "%s is an address", addr);
	return cidr_list_contains(&list, a);
}

static const struct {
	const char *list;
	const char *addr;
	bool in;
} matches[] = {
	{ "127.0.0.1", "127.0.0.1", true },
	{ "127.0.0.1", "127.0.0.2", false },
	{ "10.0.0.0/8", "10.255.1.2", true },
	{ "10.0.0.0/8", "11.0.0.0", false },
	{ "192.168.1.0/24", "192.168.1.255", true },
	{ "192.168.1.0/24", "192.168.2.0", false },
	{ "172.16.0.0/12", "172.31.255.255", true },
	{ "172.16.0.0/12", "172.32.0.0", false },
	{ "192.168.1.128/25", "192.168.1.127", false },
	{ "192.168.1.128/25", "192.168.1.128", true },
	{ "0.0.0.0/0", "203.0.113.9", true },
	{ "0.0.0.0/0", "2001:db8::1", false },       /* an IPv4 range holds no IPv6 */
	{ "::/0", "2001:db8::1", true },
	{ "::/0", "10.0.0.1", true },                /* mapped into IPv6, all of it */
	{ "::1", "::1", true },
	{ "::1", "::2", false },
	{ "fd00::/8", "fd12:3456::1", true },
	{ "fd00::/8", "fe80::1", false },
	{ "2001:db8::/33", "2001:db8:7fff::1", true },
	{ "2001:db8::/33", "2001:db8:8000::1", false },
	{ "::ffff:10.0.0.0/104", "10.1.2.3", true },   /* the mapped form, as IPv6 */
	{ "10.0.0.1 ::1\t192.168.0.0/16", "192.168.5.5", true },
	{ "10.0.0.1 ::1\t192.168.0.0/16", "::1", true },
	{ "10.0.0.1 ::1\t192.168.0.0/16", "10.0.0.2", false },
	{ "", "127.0.0.1", false },
};

START_TEST(test_matches)
{
	ck_assert_msg(cidr_list_parse(matches[_i].list, &list, reason) == 0, "%s: %s",
	              matches[_i].list, reason);
	ck_assert_msg(contains(matches[_i].addr) == matches[_i].in, "%s in %s: expected %d",
	              matches[_i].addr, matches[_i].list, matches[_i].in);
}
END_TEST

static const char *const refused[] = {
	"10.0.0.1/8",            /* host bits past the prefix */
	"10.0.0.0/33", "::/129", "10.0.0.0/-1", "10.0.0.0/", "10.0.0.0/8x", "10.0.0.0/ 8",
	"10.0.0", "256.0.0.1", "localhost", "::1::2", "[::1]", "127.0.0.1:80", "fe80::1%eth0",
	"10.0.0.0/8 nonsense",
};

START_TEST(test_refused)
{
	ck_assert_int_eq(cidr_list_parse(refused[_i], &list, reason), -1);
	ck_assert_uint_eq(list.count, 0);
	ck_assert_msg(strstr(reason, "is not an address or a CIDR range"), "%s", reason);
}
END_TEST

START_TEST(test_list_replaced)
{
	ck_assert_int_eq(cidr_list_parse("10.0.0.0/8 fd00::/8", &list, reason), 0);
	ck_assert_uint_eq(list.count, 2);
	ck_assert_int_eq(cidr_list_parse("", &list, reason), 0);
	ck_assert_uint_eq(list.count, 0);
	ck_assert(!contains("10.0.0.1"));
}
END_TEST

START_TEST(test_address_form)
{
	unsigned char a[16];
	char text[48];

	ck_assert_int_eq(cidr_addr_parse("203.0.113.7", a), 0);
	cidr_addr_format(a, text, sizeof text);
	ck_assert_str_eq(text, "203.0.113.7");
	ck_assert_int_eq(cidr_addr_parse("2001:DB8:0::1", a), 0);
	cidr_addr_format(a, text, sizeof text);
	ck_assert_str_eq(text, "2001:db8::1");
	ck_assert_int_eq(cidr_addr_parse("", a), -1);
	ck_assert_int_eq(cidr_addr_parse(" 1.2.3.4", a), -1);
}
END_TEST

static Suite *cidr_suite(void)
{
	Suite *s = suite_create("cidr");
	TCase *tc = check_tcase("ranges", setup, teardown);

	tcase_add_loop_test(tc, test_matches, 0, N_ELEMS(matches));
	tcase_add_loop_test(tc, test_refused, 0, N_ELEMS(refused));
	tcase_add_test(tc, test_list_replaced);
	tcase_add_test(tc, test_address_form);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(cidr_suite()));
}
