/* [store] url's check (store_url.h): PostgreSQL's rules, from the front. */
#include "pg_url.h"
#include "store_url.h"

int store_url_check(const char *url, bool insecure_transport, char *reason, size_t reason_len)
{
	struct pg_url_info info;

	return pg_url_check(url, insecure_transport, &info, reason, reason_len);
}
