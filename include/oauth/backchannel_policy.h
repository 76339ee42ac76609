#ifndef EDGEAUTH_BACKCHANNEL_POLICY_H
#define EDGEAUTH_BACKCHANNEL_POLICY_H
/*
 * Where back-channel logouts may be sent (docs/signin.md §"Back-channel logout"): the check on
 * every address a delivery would connect to, after its name was resolved,
 * so that a URI cannot reach what its text hides (a name that resolves to
 * a link-local metadata service, edgeauth's own listener).
 *
 * With [oidc] backchannel_allow empty, any address but the default rules'
 * (0.0.0.0/8, :: (the IPv6 unspecified address, which reaches this host as
 * 0.0.0.0 does), 169.254.0.0/16, fe80::/10, 224.0.0.0/4 and ff00::/8
 * (multicast)); with a list, only its networks. Either way never one of
 * edgeauth's own listening sockets (address and port): the API's and the
 * metrics listener's. An IPv4-mapped IPv6 address counts as its IPv4
 * address, and the unspecified address (0.0.0.0, ::) as the loopback one
 * it reaches.
 */
#include <stdbool.h>
#include <stddef.h>

#include "cidr.h"

struct config;
struct sockaddr;

/* One of edgeauth's own listening sockets. */
struct own_socket {
	struct cidr addr;   /* one address */
	unsigned port;
};

struct backchannel_policy {
	const struct cidr *allow;     /* [oidc] backchannel_allow (the config's) */
	size_t allow_count;           /* 0: the default rules */
	struct own_socket *own;       /* owned */
	size_t own_count;
};

/*
 * Fills p from cfg: its allow list, and the sockets of [server] listen and
 * [metrics] listen (when set), each as the address itself, its name's
 * addresses (resolved now, at start, as evhttp does to bind), or for a
 * wildcard (0.0.0.0, ::) every address of this host's interfaces and the
 * loopback networks. 0, or -1 with a reason.
 */
int backchannel_policy_init(struct backchannel_policy *p, const struct config *cfg,
                            char *errbuf, size_t errlen);
/* Adds host:port (an address, a name or a wildcard, as above) to p's own
 * sockets. 0, or -1 with a reason. */
int backchannel_policy_add_own(struct backchannel_policy *p, const char *host, unsigned port,
                               char *errbuf, size_t errlen);
void backchannel_policy_release(struct backchannel_policy *p);

/* Whether a delivery may connect to sa, an AF_INET or AF_INET6 address
 * with its port. */
bool backchannel_address_allowed(const struct backchannel_policy *p, const struct sockaddr *sa);

#endif
