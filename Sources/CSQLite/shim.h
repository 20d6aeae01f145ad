#include <sqlite3.h>

// From <spatialite.h>; declared here so the importer does not pull in all of libspatialite's
// geometry headers. SpatiaLite is linked (not loaded as mod_spatialite): see docs/DECISIONS.md.
void *spatialite_alloc_connection(void);
void spatialite_init_ex(sqlite3 *db_handle, const void *ptr, int verbose);
void spatialite_cleanup_ex(const void *ptr);
const char *spatialite_version(void);
