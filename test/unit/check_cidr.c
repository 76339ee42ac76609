/*
 * cidr.c: what a CIDR list accepts and refuses, and which addresses are in
 * a network, IPv4-mapped IPv6 addresses as their IPv4 address.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_suite.h"
#include "cidr.h"

static const struct {
	const char *text;
	int ok;
	int family;
	unsigned bits;
} parse_cases[] = {
	{ "10.0.0.0/8", 1, AF_INET, 8 },
	{ "192.0.2.7", 1, AF_INET, 32 },
	{ "0.0.0.0/0", 1, AF_INET, 0 },
	{ "169.254.0.0/16", 1, AF_INET, 16 },
	{ "fe80::/10", 1, AF_INET6, 10 },
	{ "::1", 1, AF_INET6, 128 },
	{ "::/0", 1, AF_INET6, 0 },
	{ "10.0.0.1/8", 0, 0, 0 },      /* bits after the prefix: a typo, refused */
	{ "fe80::1/10", 0, 0, 0 },
	{ "10.0.0.0/33", 0, 0, 0 },
	{ "::/129", 0, 0, 0 },
	{ "10.0.0.0/", 0, 0, 0 },
	{ "10.0.0.0/+8", 0, 0, 0 },
	{ "10.0.0.0/ 8", 0, 0, 0 },
	{ "/8", 0, 0, 0 },
	{ "", 0, 0, 0 },
	{ "localhost", 0, 0, 0 },       /* names are not resolved */
	{ "10.0.0", 0, 0, 0 },
	{ "[::1]", 0, 0, 0 },
};

START_TEST(test_parse)
{
	struct cidr c;
	int rc = cidr_parse(parse_cases[_i].text, &c);

	ck_assert_msg((rc == 0) == parse_cases[_i].ok, "%s: %d", parse_cases[_i].text, rc);
	if (rc == 0) {
		ck_assert_int_eq(c.family, parse_cases[_i].family);
		ck_assert_uint_eq(c.bits, parse_cases[_i].bits);
	}
}
END_TEST

START_TEST(test_parse_list)
{
	struct cidr *list;
	size_t n;
	char reason[160] = "";

	ck_assert_int_eq(cidr_parse_list("", &list, &n, reason, sizeof reason), 0);
	ck_assert_ptr_null(list);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(cidr_parse_list(" 10.0.0.0/8\tfd00::/8  127.0.0.1 ", &list, &n, reason,
	                                 sizeof reason), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(list[2].bits, 32);
	free(list);
	ck_assert_int_eq(cidr_parse_list("10.0.0.0/8 10.0.0.1/8", &list, &n, reason,
	                                 sizeof reason), -1);
	ck_assert_ptr_null(list);
	ck_assert_uint_eq(n, 0);
	ck_assert_msg(strstr(reason, "'10.0.0.1/8'") != NULL, "%s", reason);
}
END_TEST

static const struct {
	const char *net;
	const char *address;
	int in;
} contains_cases[] = {
	{ "10.0.0.0/8", "10.255.1.2", 1 },
	{ "10.0.0.0/8", "11.0.0.0", 0 },
	{ "10.0.0.0/8", "::ffff:10.1.2.3", 1 },   /* mapped: the IPv4 address */
	{ "10.0.0.0/8", "::a01:203", 0 },         /* not mapped: another address */
	{ "169.254.0.0/16", "169.254.169.254", 1 },
	{ "169.254.0.0/16", "169.255.0.1", 0 },
	{ "224.0.0.0/4", "239.255.255.250", 1 },
	{ "224.0.0.0/4", "223.255.255.255", 0 },
	{ "fe80::/10", "febf:ffff::1", 1 },
	{ "fe80::/10", "fec0::1", 0 },
	{ "::1", "::1", 1 },
	{ "::1", "::2", 0 },
	{ "0.0.0.0/0", "203.0.113.9", 1 },
	{ "0.0.0.0/0", "2001:db8::1", 0 },        /* another family */
	{ "::/0", "2001:db8::1", 1 },
	{ "192.0.2.0/25", "192.0.2.127", 1 },
	{ "192.0.2.0/25", "192.0.2.128", 0 },
};

START_TEST(test_contains)
{
	struct sockaddr_storage ss;
	struct cidr c;

	ck_assert_int_eq(cidr_parse(contains_cases[_i].net, &c), 0);
	ck_assert_msg(cidr_contains(&c, check_sockaddr(contains_cases[_i].address, 0, &ss)) ==
	              contains_cases[_i].in, "%s in %s", contains_cases[_i].address,
	              contains_cases[_i].net);
}
END_TEST

/* issue24.7: per-client limits group an IPv6 /64 and an IPv4-mapped
 * address's IPv4 address */
static const struct {
	const char *address;
	const char *group;
} group_cases[] = {
	{ "192.0.2.7", "192.0.2.7" },
	{ "::ffff:192.0.2.7", "192.0.2.7" },
	{ "2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64" },
	{ "2001:DB8:1:2::ffff", "2001:db8:1:2::/64" },
	{ "2001:db8:1:3::1", "2001:db8:1:3::/64" },
	{ "::1", "::/64" },
	{ "fe80::1", "fe80::/64" },
	{ "", "" },
	{ "not an address", "not an address" },
};

START_TEST(test_client_group)
{
	char out[CIDR_GROUP_TEXT_MAX];

	cidr_client_group_text(group_cases[_i].address, out, sizeof out);
	ck_assert_str_eq(out, group_cases[_i].group);
}
END_TEST

static Suite *cidr_suite(void)
{
	Suite *s = suite_create("cidr");
	TCase *tc = tcase_create("cidr");

	tcase_add_loop_test(tc, test_parse, 0, N_ELEMS(parse_cases));
	tcase_add_test(tc, test_parse_list);
	tcase_add_loop_test(tc, test_contains, 0, N_ELEMS(contains_cases));
	tcase_add_loop_test(tc, test_client_group, 0, N_ELEMS(group_cases));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(cidr_suite()));
}
