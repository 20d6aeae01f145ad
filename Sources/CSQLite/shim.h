#include <sqlite3.h>

// SpatiaLite's entry points, from <spatialite.h>, as pointer types: the library is loaded when
// the first store connection opens, not linked (see docs/DECISIONS.md, "SpatiaLite is loaded").
typedef void *(*areawatch_spatialite_alloc_connection)(void);
typedef void (*areawatch_spatialite_init_ex)(sqlite3 *db_handle, const void *ptr, int verbose);
typedef void (*areawatch_spatialite_cleanup_ex)(const void *ptr);

// sqlite3_config is variadic, which Swift cannot call. Memory statistics off: with them on, every
// SQLite allocation takes a global mutex (measured: about a tenth of a bulk load's inserts).
// Must run before the first connection opens; SQLITE_MISUSE afterwards, which changes nothing.
static inline int areawatch_sqlite3_disable_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
