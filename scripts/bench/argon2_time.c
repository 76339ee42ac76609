/*
 * Times one argon2id hash with edgeauth's settings, as a sign-in pays it
 * (argon2id_verify hashes once). Usage: argon2_time MEMORY_KIB ITERATIONS
 * PARALLELISM [COUNT]; prints the median of COUNT hashes (default 7) in
 * microseconds. Built and run by scripts/bench/run, pinned like the server.
 */
#include <argon2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SALT_BYTES 16
#define HASH_BYTES 32
#define COUNT_MAX 101

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	const char *password = "correct horse battery staple";
	uint8_t salt[SALT_BYTES] = "bench-salt-0123";
	char encoded[256];
	long long t[COUNT_MAX];
	int count = argc > 4 ? atoi(argv[4]) : 7;

	if (argc < 4 || count < 1 || count > COUNT_MAX) {
		fprintf(stderr, "usage: argon2_time MEMORY_KIB ITERATIONS PARALLELISM [COUNT]\n");
		return 2;
	}
	for (int i = 0; i < count; i++) {
		long long start = now_us();
		int rc = argon2id_hash_encoded((uint32_t)atoi(argv[2]), (uint32_t)atoi(argv[1]),
		                               (uint32_t)atoi(argv[3]), password, strlen(password),
		                               salt, SALT_BYTES, HASH_BYTES, encoded, sizeof encoded);
		t[i] = now_us() - start;
		if (rc != ARGON2_OK) {
			fprintf(stderr, "argon2: %s\n", argon2_error_message(rc));
			return 1;
		}
	}
	qsort(t, (size_t)count, sizeof t[0], cmp_ll);
	printf("%lld\n", t[count / 2]);
	return 0;
}
