/* Where back-channel logouts may go (backchannel_policy.h). Names are
 * resolved here only at start (the listen address); a delivery's own name
 * is resolved by backchannel.c, off the loop's critical path, and its
 * addresses checked here. */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "backchannel_policy.h"
#include "config.h"
#include "util.h"

/* The default rules (docs/signin.md §"Back-channel logout"): what no back-channel URI may reach
 * when [oidc] backchannel_allow is empty. */
static const struct cidr default_refused[] = {
	{ AF_INET, { 0 }, 8 },              /* 0.0.0.0/8: "this network", reaches this host */
	{ AF_INET, { 169, 254 }, 16 },      /* link-local: cloud metadata services */
	{ AF_INET, { 224 }, 4 },            /* multicast */
	{ AF_INET6, { 0 }, 128 },           /* ::, unspecified: reaches this host */
	{ AF_INET6, { 0xfe, 0x80 }, 10 },   /* link-local */
	{ AF_INET6, { 0xff }, 8 },          /* multicast */
};

/* A wildcard listener on port is reached through the loopback networks too. */
static const struct cidr loopback[] = {
	{ AF_INET, { 127 }, 8 },
	{ AF_INET6, { [15] = 1 }, 128 },
};

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static void own_add(struct backchannel_policy *p, const struct cidr *addr, unsigned port)
{
	p->own = xrealloc(p->own, (p->own_count + 1) * sizeof *p->own);
	p->own[p->own_count].addr = *addr;
	p->own[p->own_count].port = port;
	p->own_count++;
}

static void own_add_sockaddr(struct backchannel_policy *p, const struct sockaddr *sa,
                             unsigned port)
{
	struct cidr c;

	if (cidr_of_sockaddr(sa, &c, NULL) == 0)
		own_add(p, &c, port);
}

/* A wildcard listener of family (AF_INET: 0.0.0.0; AF_INET6: ::, which
 * Linux makes dual-stack) is reached at every address of the host. */
static int own_add_wildcard(struct backchannel_policy *p, int family, unsigned port,
                            char *errbuf, size_t errlen)
{
	struct ifaddrs *all, *i;

	if (getifaddrs(&all) < 0) {
		snprintf(errbuf, errlen, "cannot list this host's addresses (getifaddrs)");
		return -1;
	}
	for (i = all; i; i = i->ifa_next)
		if (i->ifa_addr && (i->ifa_addr->sa_family == family ||
		                    (family == AF_INET6 && i->ifa_addr->sa_family == AF_INET)))
			own_add_sockaddr(p, i->ifa_addr, port);
	freeifaddrs(all);
	for (size_t k = 0; k < N_ELEMS(loopback); k++)
		if (loopback[k].family == family || family == AF_INET6)
			own_add(p, &loopback[k], port);
	return 0;
}

int backchannel_policy_add_own(struct backchannel_policy *p, const char *host, unsigned port,
                               char *errbuf, size_t errlen)
{
	static const unsigned char zero[16];
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *r;
	struct cidr c;

	if (cidr_parse(host, &c) == 0) {
		if (!memcmp(c.addr, zero, sizeof zero))
			return own_add_wildcard(p, c.family, port, errbuf, errlen);
		own_add(p, &c, port);
		return 0;
	}
	/* a name: resolved once, at start, as evhttp resolves it to bind */
	if (getaddrinfo(host, NULL, &hints, &res) != 0) {
		snprintf(errbuf, errlen, "cannot resolve the listen address %.100s", host);
		return -1;
	}
	for (r = res; r; r = r->ai_next)
		own_add_sockaddr(p, r->ai_addr, port);
	freeaddrinfo(res);
	return 0;
}

int backchannel_policy_init(struct backchannel_policy *p, const struct config *cfg,
                            char *errbuf, size_t errlen)
{
	memset(p, 0, sizeof *p);
	p->allow = cfg->backchannel_allow;
	p->allow_count = cfg->backchannel_allow_count;
	if (backchannel_policy_add_own(p, cfg->listen_host, (unsigned)cfg->listen_port, errbuf,
	                               errlen) < 0)
		return -1;
	/* the metrics listener answers edgeauth's own state: never a target */
	if (cfg->metrics_host)
		return backchannel_policy_add_own(p, cfg->metrics_host, (unsigned)cfg->metrics_port,
		                                  errbuf, errlen);
	return 0;
}

void backchannel_policy_release(struct backchannel_policy *p)
{
	free(p->own);
	memset(p, 0, sizeof *p);
}

/* The address a connection to sa reaches: Linux connects the unspecified
 * address (0.0.0.0, ::) to the loopback one, so that an allow list holding
 * it cannot lead to a listener on 127.0.0.1 or ::1. Into ss. */
static const struct sockaddr *reached(const struct sockaddr *sa, const struct cidr *addr,
                                      unsigned port, struct sockaddr_storage *ss)
{
	static const unsigned char zero[16];
	size_t len = addr->family == AF_INET ? 4 : 16;

	if (memcmp(addr->addr, zero, len) != 0)
		return sa;
	cidr_sockaddr_parse(addr->family == AF_INET ? "127.0.0.1" : "::1", port, ss);
	return (const struct sockaddr *)ss;
}

bool backchannel_address_allowed(const struct backchannel_policy *p, const struct sockaddr *sa)
{
	struct sockaddr_storage ss;
	const struct sockaddr *to;
	struct cidr addr;
	unsigned port;

	if (cidr_of_sockaddr(sa, &addr, &port) < 0)
		return false;
	to = reached(sa, &addr, port, &ss);
	for (size_t i = 0; i < p->own_count; i++)
		if (p->own[i].port == port && cidr_contains(&p->own[i].addr, to))
			return false;
	if (p->allow_count > 0)
		return cidr_list_contains(p->allow, p->allow_count, sa);
	return !cidr_list_contains(default_refused, N_ELEMS(default_refused), sa);
}
