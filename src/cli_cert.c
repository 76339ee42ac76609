/*
 * edgeauth cert self-signed --host NAME [--cert FILE] [--key FILE]
 * (docs/operations.md §"TLS"): the files default to the config's tls_cert
 * and tls_key, else var/. It needs no store.
 */
#include <stdio.h>

#include "cert.h"
#include "cli_cert.h"

static int cert_self_signed(struct cli_call *c)
{
	const char *host = cli_arg(c, "--host"), *cert = cli_arg(c, "--cert"), *key = cli_arg(c, "--key");
	char fingerprint[CERT_FINGERPRINT_LEN], errbuf[512];

	if (!cert)
		cert = c->cfg->tls_cert ? c->cfg->tls_cert : "var/tls-cert.pem";
	if (!key)
		key = c->cfg->tls_key ? c->cfg->tls_key : "var/tls-key.pem";
	if (cert_self_signed_write(host, cert, key, fingerprint, errbuf, sizeof errbuf) < 0) {
		fprintf(stderr, "edgeauth: %s\n", errbuf);
		return 1;
	}
	printf("certificate %s\nkey %s\nSHA-256 fingerprint %s\n", cert, key, fingerprint);
	return 0;
}

static const struct cli_sub subs[] = {
	{ .name = "self-signed", .run = cert_self_signed, .check = cli_check_nonempty,
	  .store = CLI_STORE_NONE,
	  .usage = "cert self-signed --host NAME [--cert FILE] [--key FILE]",
	  .help = "  Writes a self-signed TLS pair for NAME (a DNS name or an IP address), by default\n"
	          "  to the config's tls_cert and tls_key, and prints its SHA-256 fingerprint.",
	  .options = { { "--host", CLI_VALUE, true }, { "--cert", CLI_VALUE, false },
	               { "--key", CLI_VALUE, false } } },
};

const struct cli_group cli_cert = {
	.name = "cert", .subs = subs, .n_subs = sizeof subs / sizeof subs[0],
};
