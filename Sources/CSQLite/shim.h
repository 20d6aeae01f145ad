#include <sqlite3.h>

// From <spatialite.h>; declared here so the importer does not pull in all of libspatialite's
// geometry headers. SpatiaLite is linked (not loaded as mod_spatialite): see docs/DECISIONS.md.
void *spatialite_alloc_connection(void);
void spatialite_init_ex(sqlite3 *db_handle, const void *ptr, int verbose);
void spatialite_cleanup_ex(const void *ptr);
const char *spatialite_version(void);

// sqlite3_config is variadic, which Swift cannot call. Memory statistics off: with them on, every
// SQLite allocation takes a global mutex (measured: about a tenth of a bulk load's inserts).
// Must run before the first connection opens; SQLITE_MISUSE afterwards, which changes nothing.
static inline int areawatch_sqlite3_disable_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
