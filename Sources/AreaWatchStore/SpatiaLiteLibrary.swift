import AreaWatchCore
import CSQLite
import Glibc

/// libspatialite, loaded when the first store connection opens. Linked, its ~50 dependent
/// libraries (PROJ, GEOS, GnuTLS, ICU, libcurl, …) were mapped and relocated at every start,
/// most of a `--version`'s start-up, paid by every command, the ad-hoc report included, which
/// opens no store (docs/PERFORMANCE.md).
struct SpatiaLiteLibrary: @unchecked Sendable {
    let allocConnection: areawatch_spatialite_alloc_connection
    let initialise: areawatch_spatialite_init_ex
    let cleanup: areawatch_spatialite_cleanup_ex

    /// The runtime package's names first (Debian's libspatialite7 and its successor), then the
    /// development link the build installs.
    static let candidates = ["libspatialite.so.8", "libspatialite.so.7", "libspatialite.so"]

    /// Loaded once per process; the failure, if any, is kept and reported by every open.
    static let shared: Result<SpatiaLiteLibrary, SpatiaLiteLoadError> = load()

    private static func load() -> Result<SpatiaLiteLibrary, SpatiaLiteLoadError> {
        var reasons: [String] = []
        for name in candidates {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                reasons.append(dlerror().map { String(cString: $0) } ?? name)
                continue
            }
            // Kept open for the life of the process: connections hold its caches.
            guard let alloc = dlsym(handle, "spatialite_alloc_connection"),
                let initialise = dlsym(handle, "spatialite_init_ex"),
                let cleanup = dlsym(handle, "spatialite_cleanup_ex")
            else {
                reasons.append("\(name): SpatiaLite's connection functions are missing")
                continue
            }
            return .success(
                SpatiaLiteLibrary(
                    allocConnection: CFunctionPointer.function(
                        at: alloc, as: areawatch_spatialite_alloc_connection.self),
                    initialise: CFunctionPointer.function(at: initialise, as: areawatch_spatialite_init_ex.self),
                    cleanup: CFunctionPointer.function(at: cleanup, as: areawatch_spatialite_cleanup_ex.self)))
        }
        return .failure(SpatiaLiteLoadError(reasons: reasons))
    }
}

/// Why libspatialite could not be loaded: each name tried and the loader's reason.
struct SpatiaLiteLoadError: Error, Sendable {
    let reasons: [String]

    var message: String {
        "cannot load SpatiaLite (install libspatialite, as `make` does): " + reasons.joined(separator: "; ")
    }
}
