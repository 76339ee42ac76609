/*
 * Unit tests for tls.c and cert.c: the context's protocols, ciphers and
 * options (docs/operations.md §"TLS"), the pair's load errors, reload, session-ticket
 * key rotation (handshakes over memory BIOs), and the self-signed
 * certificate. Each test makes its files in its own temp directory.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "cert.h"
#include "check_suite.h"
#include "config.h"
#include "tls.h"

static struct {
	char dir[64];
	char cert[128], key[128];
	struct config cfg;
	struct tls *tls;
	char err[512];
} fx;

/* path of name in the test's directory, into out (128 bytes) */
static char *in_dir(char out[128], const char *name)
{
	snprintf(out, 128, "%s/%s", fx.dir, name);
	return out;
}

static void setup(void)
{
	char fp[CERT_FINGERPRINT_LEN];

	memset(&fx, 0, sizeof fx);
	snprintf(fx.dir, sizeof fx.dir, "/tmp/check_tls.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx.dir));
	ck_assert_int_eq(cert_self_signed_write("127.0.0.1", in_dir(fx.cert, "cert.pem"),
	                                        in_dir(fx.key, "key.pem"), fp, fx.err,
	                                        sizeof fx.err), 0);
	config_init(&fx.cfg);
	fx.cfg.tls_cert = strdup(fx.cert);
	fx.cfg.tls_key = strdup(fx.key);
}

static void teardown(void)
{
	DIR *d = opendir(fx.dir);
	struct dirent *e;
	char p[512];

	tls_free(fx.tls);
	config_release(&fx.cfg);
	while (d && (e = readdir(d)) != NULL) {
		snprintf(p, sizeof p, "%s/%s", fx.dir, e->d_name);
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(fx.dir);
}

static void load_ok(void)
{
	fx.tls = tls_new(&fx.cfg, NULL, fx.err, sizeof fx.err);
	ck_assert_msg(fx.tls != NULL, "tls_new: %s", fx.err);
}

/* tls_new refuses the config with a reason containing want. */
static void load_refused(const char *want)
{
	fx.tls = tls_new(&fx.cfg, NULL, fx.err, sizeof fx.err);
	ck_assert_ptr_null(fx.tls);
	ck_assert_msg(strstr(fx.err, want) != NULL, "reason \"%s\" lacks \"%s\"", fx.err, want);
}

/* --- the context --------------------------------------------------------------- */

START_TEST(test_protocols_and_options)
{
	SSL_CTX *ctx;
	uint64_t opts;

	load_ok();
	ctx = tls_ctx(fx.tls);
	ck_assert_int_eq(SSL_CTX_get_min_proto_version(ctx), TLS1_2_VERSION);
	ck_assert_int_eq(SSL_CTX_get_max_proto_version(ctx), TLS1_3_VERSION);
	opts = SSL_CTX_get_options(ctx);
	ck_assert(opts & SSL_OP_CIPHER_SERVER_PREFERENCE);
	ck_assert(opts & SSL_OP_NO_COMPRESSION);
	ck_assert(opts & SSL_OP_NO_RENEGOTIATION);
	ck_assert(!(opts & SSL_OP_NO_TICKET));
	ck_assert_uint_eq(SSL_CTX_get_max_early_data(ctx), 0);
	ck_assert_uint_eq(SSL_CTX_get_recv_max_early_data(ctx), 0);
	ck_assert_int_eq(SSL_CTX_get_session_cache_mode(ctx), SSL_SESS_CACHE_OFF);
}
END_TEST

/* TLS 1.2 suites: ECDHE key exchange and an AEAD (AES-GCM, ChaCha20-Poly1305)
 * only; TLS 1.3's are AEADs by definition. */
START_TEST(test_tls12_ciphers_ecdhe_aead)
{
	STACK_OF(SSL_CIPHER) *ciphers;
	int tls12 = 0;

	load_ok();
	ciphers = SSL_CTX_get_ciphers(tls_ctx(fx.tls));
	for (int i = 0; i < sk_SSL_CIPHER_num(ciphers); i++) {
		const SSL_CIPHER *c = sk_SSL_CIPHER_value(ciphers, i);
		int nid = SSL_CIPHER_get_cipher_nid(c);

		ck_assert_msg(SSL_CIPHER_is_aead(c), "%s is not an AEAD", SSL_CIPHER_get_name(c));
		ck_assert_msg(nid == NID_aes_128_gcm || nid == NID_aes_256_gcm ||
		              nid == NID_chacha20_poly1305, "%s: not AES-GCM or ChaCha20-Poly1305",
		              SSL_CIPHER_get_name(c));
		if (!strcmp(SSL_CIPHER_get_version(c), "TLSv1.3"))
			continue;
		tls12++;
		ck_assert_msg(SSL_CIPHER_get_kx_nid(c) == NID_kx_ecdhe, "%s: not ECDHE",
		              SSL_CIPHER_get_name(c));
	}
	ck_assert_int_eq(tls12, 6);
}
END_TEST

/* --- the pair -------------------------------------------------------------------- */

START_TEST(test_key_readable_by_others)
{
	char want[300];

	ck_assert_int_eq(chmod(fx.key, 0640), 0);
	snprintf(want, sizeof want, "TLS key file %s is accessible to others (mode 640); "
	         "run chmod 600 on it", fx.key);
	load_refused(want);
}
END_TEST

START_TEST(test_key_of_another_certificate)
{
	char cert2[128], key2[128], fp[CERT_FINGERPRINT_LEN], want[400];

	ck_assert_int_eq(cert_self_signed_write("localhost", in_dir(cert2, "c2.pem"),
	                                        in_dir(key2, "k2.pem"), fp, fx.err,
	                                        sizeof fx.err), 0);
	free(fx.cfg.tls_key);
	fx.cfg.tls_key = strdup(key2);
	snprintf(want, sizeof want, "TLS key file %s does not match the certificate in %s", key2,
	         fx.cert);
	load_refused(want);
}
END_TEST

START_TEST(test_missing_and_junk_files)
{
	char junk[128];
	FILE *f = fopen(in_dir(junk, "junk.pem"), "w");

	ck_assert_ptr_nonnull(f);
	fputs("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n", f);
	fclose(f);
	free(fx.cfg.tls_cert);
	fx.cfg.tls_cert = strdup(junk);
	load_refused("holds no usable PEM certificate");
	free(fx.cfg.tls_cert);
	fx.cfg.tls_cert = strdup("/nonexistent/cert.pem");
	load_refused("cannot open TLS certificate file /nonexistent/cert.pem: No such file");
	free(fx.cfg.tls_cert);
	fx.cfg.tls_cert = strdup(fx.cert);
	free(fx.cfg.tls_key);
	fx.cfg.tls_key = strdup(fx.dir);   /* a directory */
	load_refused("is not a regular file");
}
END_TEST

/* A reload takes the files as they are now; a broken pair keeps the old. */
START_TEST(test_reload)
{
	char fp[CERT_FINGERPRINT_LEN], desc[512];

	load_ok();
	tls_describe(fx.tls, desc, sizeof desc);
	ck_assert_ptr_nonnull(strstr(desc, fx.cert));
	ck_assert_int_eq(unlink(fx.cert), 0);
	ck_assert_int_eq(unlink(fx.key), 0);
	ck_assert_int_eq(cert_self_signed_write("localhost", fx.cert, fx.key, fp, fx.err,
	                                        sizeof fx.err), 0);
	ck_assert_msg(tls_reload(fx.tls, fx.err, sizeof fx.err) == 0, "%s", fx.err);
	tls_describe(fx.tls, desc, sizeof desc);
	ck_assert_msg(strstr(desc, fp) != NULL, "%s lacks the new fingerprint %s", desc, fp);
	ck_assert_int_eq(chmod(fx.key, 0644), 0);
	ck_assert_int_eq(tls_reload(fx.tls, fx.err, sizeof fx.err), -1);
	ck_assert_ptr_nonnull(strstr(fx.err, "is accessible to others"));
	tls_describe(fx.tls, desc, sizeof desc);
	ck_assert_msg(strstr(desc, fp) != NULL, "the old pair is gone after a failed reload");
}
END_TEST

/* --- session tickets --------------------------------------------------------------- */

/* A handshake of a client (TLS 1.3, resuming sess when not NULL) with a new
 * connection of the server, over memory BIOs; returns the client's session
 * after it has read the server's tickets, and whether it resumed. */
static SSL_SESSION *handshake(SSL_SESSION *sess, bool *reused)
{
	SSL_CTX *cctx = SSL_CTX_new(TLS_client_method());
	SSL *c = SSL_new(cctx), *s = SSL_new(tls_ctx(fx.tls));
	BIO *c2s = BIO_new(BIO_s_mem()), *s2c = BIO_new(BIO_s_mem());
	SSL_SESSION *out;
	unsigned char byte;

	BIO_up_ref(c2s);
	BIO_up_ref(s2c);
	SSL_set_bio(c, s2c, c2s);
	SSL_set_bio(s, c2s, s2c);
	SSL_set_connect_state(c);
	SSL_set_accept_state(s);
	if (sess)
		ck_assert_int_eq(SSL_set_session(c, sess), 1);
	for (int i = 0; i < 10 && !(SSL_is_init_finished(c) && SSL_is_init_finished(s)); i++) {
		SSL_do_handshake(c);
		SSL_do_handshake(s);
	}
	ck_assert_msg(SSL_is_init_finished(c) && SSL_is_init_finished(s), "no handshake");
	ck_assert_int_le(SSL_read(c, &byte, 1), 0);   /* takes the tickets in */
	*reused = SSL_session_reused(c);
	out = SSL_get1_session(c);
	ck_assert_ptr_nonnull(out);
	SSL_shutdown(c);   /* else SSL_free marks the session unresumable */
	SSL_free(c);
	SSL_free(s);
	SSL_CTX_free(cctx);
	ERR_clear_error();
	return out;
}

START_TEST(test_ticket_keys_rotate)
{
	SSL_SESSION *first, *again, *later;
	bool reused;

	load_ok();
	first = handshake(NULL, &reused);
	ck_assert(!reused);
	again = handshake(first, &reused);
	ck_assert_msg(reused, "a ticket of the current key does not resume");
	SSL_SESSION_free(again);
	tls_rotate_ticket_keys(fx.tls);
	again = handshake(first, &reused);
	ck_assert_msg(reused, "a ticket of the previous key does not resume");
	tls_rotate_ticket_keys(fx.tls);
	later = handshake(first, &reused);
	ck_assert_msg(!reused, "a ticket two rotations old still resumes");
	SSL_SESSION_free(later);
	/* the ticket renewed after the first rotation is of the key before this one */
	later = handshake(again, &reused);
	ck_assert_msg(reused, "the ticket renewed under the new key does not resume");
	SSL_SESSION_free(later);
	SSL_SESSION_free(again);
	SSL_SESSION_free(first);
}
END_TEST

/* Reloading the pair keeps the ticket keys: a renewal costs no client a
 * full handshake. */
START_TEST(test_tickets_survive_reload)
{
	SSL_SESSION *first, *again;
	bool reused;

	load_ok();
	first = handshake(NULL, &reused);
	ck_assert_msg(tls_reload(fx.tls, fx.err, sizeof fx.err) == 0, "%s", fx.err);
	again = handshake(first, &reused);
	ck_assert(reused);
	SSL_SESSION_free(again);
	SSL_SESSION_free(first);
}
END_TEST

/* --- the self-signed certificate ---------------------------------------------------- */

static X509 *read_cert(const char *path)
{
	FILE *f = fopen(path, "r");
	X509 *x;

	ck_assert_ptr_nonnull(f);
	x = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	ck_assert_ptr_nonnull(x);
	return x;
}

/* The SAN's one entry: its type and, for a DNS name, the name. */
static int san_type(X509 *x, char *dns, size_t len)
{
	GENERAL_NAMES *names = X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);
	const GENERAL_NAME *n;
	int type;

	ck_assert_ptr_nonnull(names);
	ck_assert_int_eq(sk_GENERAL_NAME_num(names), 1);
	n = sk_GENERAL_NAME_value(names, 0);
	type = n->type;
	if (type == GEN_DNS)
		snprintf(dns, len, "%s", (const char *)ASN1_STRING_get0_data(n->d.dNSName));
	GENERAL_NAMES_free(names);
	return type;
}

START_TEST(test_self_signed)
{
	X509 *x = read_cert(fx.cert);
	struct stat st;
	char dns[64], c2[128], k2[128], fp[CERT_FINGERPRINT_LEN], fp2[CERT_FINGERPRINT_LEN];
	int days, secs;

	ck_assert_int_eq(stat(fx.key, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(san_type(x, dns, sizeof dns), GEN_IPADD);
	ck_assert(X509_get_extended_key_usage(x) & XKU_SSL_SERVER);
	ck_assert_int_eq(X509_check_ca(x), 0);
	ck_assert_int_eq(ASN1_TIME_diff(&days, &secs, X509_get0_notBefore(x),
	                                X509_get0_notAfter(x)), 1);
	ck_assert_int_eq(days, CERT_SELF_SIGNED_DAYS);
	X509_free(x);

	ck_assert_int_eq(cert_self_signed_write("edge.example", in_dir(c2, "dns.pem"),
	                                        in_dir(k2, "dns.key"), fp, fx.err,
	                                        sizeof fx.err), 0);
	x = read_cert(c2);
	ck_assert_int_eq(san_type(x, dns, sizeof dns), GEN_DNS);
	ck_assert_str_eq(dns, "edge.example");
	cert_fingerprint(x, fp2);
	ck_assert_str_eq(fp, fp2);
	ck_assert_uint_eq(strlen(fp), CERT_FINGERPRINT_LEN - 1);
	X509_free(x);
}
END_TEST

/* Hosts that are neither a DNS name nor an IP address; nothing is written. */
static const char *const bad_hosts[] = {
	"", "-edge", "edge-", "a..b", ".edge", "edge.", "ed ge", "edge_box", "*.example",
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.example",   /* 64 */
	"1.2.3.4.5:", "[::1]",
};

START_TEST(test_self_signed_bad_host)
{
	char c2[128], k2[128], fp[CERT_FINGERPRINT_LEN];

	ck_assert_int_eq(cert_self_signed_write(bad_hosts[_i], in_dir(c2, "bad.pem"),
	                                        in_dir(k2, "bad.key"), fp, fx.err,
	                                        sizeof fx.err), -1);
	ck_assert_msg(strstr(fx.err, "is neither an IP address nor a DNS name") != NULL, "%s",
	              fx.err);
	ck_assert_int_eq(access(c2, F_OK), -1);
	ck_assert_int_eq(access(k2, F_OK), -1);
}
END_TEST

START_TEST(test_self_signed_never_overwrites)
{
	char k2[128], fp[CERT_FINGERPRINT_LEN];

	ck_assert_int_eq(cert_self_signed_write("::1", fx.cert, in_dir(k2, "new.key"), fp, fx.err,
	                                        sizeof fx.err), -1);
	ck_assert_ptr_nonnull(strstr(fx.err, "exists already; not overwritten"));
	ck_assert_int_eq(access(k2, F_OK), -1);
}
END_TEST

static Suite *tls_suite(void)
{
	Suite *s = suite_create("tls");
	TCase *tc = check_tcase("context", setup, teardown);

	tcase_add_test(tc, test_protocols_and_options);
	tcase_add_test(tc, test_tls12_ciphers_ecdhe_aead);
	suite_add_tcase(s, tc);
	tc = check_tcase("pair", setup, teardown);
	tcase_add_test(tc, test_key_readable_by_others);
	tcase_add_test(tc, test_key_of_another_certificate);
	tcase_add_test(tc, test_missing_and_junk_files);
	tcase_add_test(tc, test_reload);
	suite_add_tcase(s, tc);
	tc = check_tcase("tickets", setup, teardown);
	tcase_add_test(tc, test_ticket_keys_rotate);
	tcase_add_test(tc, test_tickets_survive_reload);
	suite_add_tcase(s, tc);
	tc = check_tcase("self-signed", setup, teardown);
	tcase_add_test(tc, test_self_signed);
	tcase_add_loop_test(tc, test_self_signed_bad_host, 0, N_ELEMS(bad_hosts));
	tcase_add_test(tc, test_self_signed_never_overwrites);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(srunner_create(tls_suite()));
}
