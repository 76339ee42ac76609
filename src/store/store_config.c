/*
 * The store that the configuration names (store_config.h): the one place
 * above the backends that chooses between them.
 */
#include "store_config.h"
#include "store_pg.h"

struct store *store_open_config(const struct config *cfg, char *errbuf, size_t errlen)
{
	if (cfg->store_postgres)
		return store_open_postgres(cfg, errbuf, errlen);
	return store_open(cfg->store_path, cfg->synchronous_full, errbuf, errlen);
}
