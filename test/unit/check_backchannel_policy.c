/*
 * backchannel_policy.c: where back-channel logouts may go. The default
 * rules (docs/signin.md §"Back-channel logout"), an allow list, and edgeauth's own listening
 * sockets, always refused: as an address, a wildcard, or a name.
 */
#include <arpa/inet.h>
#include <check.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "backchannel_policy.h"
#include "check_suite.h"
#include "config.h"
#include "util.h"

static struct {
	struct config cfg;
	struct backchannel_policy p;
} fx;

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
	config_init(&fx.cfg);   /* listen 127.0.0.1:8080 */
}

static void teardown(void)
{
	backchannel_policy_release(&fx.p);
	config_release(&fx.cfg);
}

/* Opens the policy for [server] listen = host:port and backchannel_allow. */
static void open_policy(const char *host, int port, const char *allow)
{
	char reason[160], errbuf[256];

	free(fx.cfg.listen_host);
	fx.cfg.listen_host = xstrdup(host);
	fx.cfg.listen_port = port;
	free(fx.cfg.backchannel_allow);
	ck_assert_int_eq(cidr_parse_list(allow, &fx.cfg.backchannel_allow,
	                                 &fx.cfg.backchannel_allow_count, reason, sizeof reason), 0);
	ck_assert_msg(backchannel_policy_init(&fx.p, &fx.cfg, errbuf, sizeof errbuf) == 0, "%s",
	              errbuf);
}

static bool allowed(const char *address, unsigned port)
{
	struct sockaddr_storage ss;

	return backchannel_address_allowed(&fx.p, check_sockaddr(address, port, &ss));
}

/* With edgeauth on 127.0.0.1:8080, the defaults (allow ""), and a list,
 * which allows its networks only, those the defaults refuse too, but never
 * edgeauth itself. */
static const struct {
	const char *allow;
	const char *address;
	unsigned port;
	bool allowed;
} cases[] = {
	{ "", "127.0.0.1", 8081, true },          /* loopback is fine: apps on the box */
	{ "", "127.0.0.2", 8080, true },          /* another address, though the same port */
	{ "", "127.0.0.1", 8080, false },         /* edgeauth itself */
	{ "", "::ffff:127.0.0.1", 8080, false },  /* ... also as an IPv4-mapped address */
	{ "", "10.1.2.3", 80, true },
	{ "", "203.0.113.5", 443, true },
	{ "", "0.0.0.0", 80, false },
	{ "", "0.1.2.3", 80, false },
	{ "", "169.254.169.254", 80, false },     /* a cloud's metadata service */
	{ "", "::ffff:169.254.169.254", 80, false },
	{ "", "169.255.0.1", 80, true },
	{ "", "224.0.0.1", 80, false },
	{ "", "239.255.255.250", 80, false },
	{ "", "223.255.255.255", 80, true },
	{ "", "::", 80, false },
	{ "", "::1", 80, true },
	{ "", "fe80::1", 80, false },
	{ "", "febf::1", 80, false },
	{ "", "fec0::1", 80, true },
	{ "", "ff02::1", 80, false },
	{ "", "2001:db8::1", 80, true },
#define LIST "127.0.0.1/32 fd00::/8 169.254.0.0/16"
	{ LIST, "127.0.0.1", 9000, true },
	{ LIST, "127.0.0.2", 9000, false },
	{ LIST, "10.0.0.1", 80, false },
	{ LIST, "fd12::1", 80, true },
	{ LIST, "169.254.1.1", 80, true },
	{ LIST, "169.253.1.1", 80, false },
	{ LIST, "127.0.0.1", 8080, false },
#undef LIST
	/* issue24.6: 0.0.0.0 and :: reach the loopback address, so edgeauth too */
	{ "0.0.0.0/0", "0.0.0.0", 8080, false },
	{ "0.0.0.0/0", "0.0.0.0", 8081, true },
	{ "0.0.0.0/0", "::ffff:0.0.0.0", 8080, false },
};

START_TEST(test_addresses)
{
	open_policy("127.0.0.1", 8080, cases[_i].allow);
	ck_assert_msg(allowed(cases[_i].address, cases[_i].port) == cases[_i].allowed,
	              "%s port %u, allow \"%s\"", cases[_i].address, cases[_i].port,
	              cases[_i].allow);
}
END_TEST

/* The first IPv4 address of an interface other than loopback, or NULL. */
static const char *interface_address(char *buf, size_t len)
{
	struct ifaddrs *all, *i;
	const char *found = NULL;

	ck_assert_int_eq(getifaddrs(&all), 0);
	for (i = all; i && !found; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, buf,
		              (socklen_t)len) && strncmp(buf, "127.", 4) != 0)
			found = buf;
	freeifaddrs(all);
	return found;
}

/* A wildcard listener is reached at every address of the host. */
START_TEST(test_wildcard_listen)
{
	char buf[INET_ADDRSTRLEN];
	const char *mine = interface_address(buf, sizeof buf);

	open_policy("0.0.0.0", 8080, "");
	ck_assert(!allowed("127.0.0.1", 8080));
	ck_assert(!allowed("127.9.9.9", 8080));
	ck_assert(allowed("127.0.0.1", 8081));
	ck_assert(allowed("::1", 8080));   /* 0.0.0.0 is IPv4 only */
	if (mine)
		ck_assert_msg(!allowed(mine, 8080), "%s", mine);
	backchannel_policy_release(&fx.p);

	open_policy("::", 8080, "");      /* Linux: dual-stack */
	ck_assert(!allowed("::1", 8080));
	ck_assert(!allowed("127.0.0.1", 8080));
	ck_assert(allowed("::1", 8081));
	if (mine)
		ck_assert_msg(!allowed(mine, 8080), "%s", mine);
}
END_TEST

/* A name is resolved at start (localhost is 127.0.0.1 in /etc/hosts). */
START_TEST(test_named_listen)
{
	char errbuf[256];

	open_policy("localhost", 8080, "");
	ck_assert(!allowed("127.0.0.1", 8080));
	ck_assert(allowed("127.0.0.1", 8081));
	ck_assert_int_eq(backchannel_policy_add_own(&fx.p, "192.0.2.9", 9464, errbuf,
	                                            sizeof errbuf), 0);
	ck_assert(!allowed("192.0.2.9", 9464));
	ck_assert(allowed("192.0.2.9", 9465));
}
END_TEST

/* issue24.6: the metrics listener is edgeauth's own socket too, refused in
 * every form the API's is: its address, IPv4-mapped, through the
 * unspecified address, a wildcard's addresses, a name's, whatever a list
 * allows. The API listens on 127.0.0.1:8080. */
static const struct {
	const char *metrics;
	const char *allow;
	const char *address;
	unsigned port;
	bool allowed;
} metrics_cases[] = {
	{ "127.0.0.1", "", "127.0.0.1", 9464, false },
	{ "127.0.0.1", "", "::ffff:127.0.0.1", 9464, false },
	{ "127.0.0.1", "", "127.0.0.1", 9465, true },
	{ "127.0.0.1", "", "127.0.0.2", 9464, true },
	{ "127.0.0.1", "127.0.0.0/8", "127.0.0.1", 9464, false },
	{ "127.0.0.1", "0.0.0.0/0", "0.0.0.0", 9464, false },
	{ "localhost", "", "127.0.0.1", 9464, false },
	{ "0.0.0.0", "", "127.3.2.1", 9464, false },
	{ "::", "", "::1", 9464, false },
	{ "::", "", "127.0.0.1", 9464, false },
	{ "::1", "", "::1", 9464, false },
	{ "::1", "::/0", "::", 9464, false },
	{ "192.0.2.9", "", "192.0.2.9", 9464, false },
	{ "192.0.2.9", "", "127.0.0.1", 8080, false },   /* the API's still */
};

START_TEST(test_metrics_listener)
{
	fx.cfg.metrics_host = xstrdup(metrics_cases[_i].metrics);
	fx.cfg.metrics_port = 9464;
	open_policy("127.0.0.1", 8080, metrics_cases[_i].allow);
	ck_assert_msg(allowed(metrics_cases[_i].address, metrics_cases[_i].port) ==
	              metrics_cases[_i].allowed, "issue24.6: %s port %u, metrics on %s:9464, "
	              "allow \"%s\"", metrics_cases[_i].address, metrics_cases[_i].port,
	              metrics_cases[_i].metrics, metrics_cases[_i].allow);
}
END_TEST

static Suite *policy_suite(void)
{
	Suite *s = suite_create("backchannel_policy");
	TCase *tc = check_tcase("policy", setup, teardown);

	tcase_add_loop_test(tc, test_addresses, 0, N_ELEMS(cases));
	tcase_add_test(tc, test_wildcard_listen);
	tcase_add_test(tc, test_named_listen);
	tcase_add_loop_test(tc, test_metrics_listener, 0, N_ELEMS(metrics_cases));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(policy_suite()));
}
