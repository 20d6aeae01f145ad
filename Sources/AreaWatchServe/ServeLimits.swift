import Foundation
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// What one client may take of the server (docs/FORMATS.md, "HTTP API (serve)", Limits): the
/// three timeouts and the connection cap are options; the sizes are fixed, far above what the
/// API's requests need.
public struct ServeLimits: Sendable, Equatable {
    /// A request head must be complete this long after the connection opened, or after the first
    /// byte that follows an idle wait (a client that never finishes its head).
    public var headerTimeout: Duration
    /// A kept-alive connection with no byte of a next request for this long is closed.
    public var idleTimeout: Duration
    /// A part of a response the socket has not taken whole for this long (a reader that stopped
    /// reading) ends the connection; also the most a closing connection may linger.
    public var writeTimeout: Duration
    /// Connections open at once; beyond, a new one is answered 503 and closed at once. Nil: the
    /// open-files limit less a reserve (`OpenFiles`), once the server has raised that limit.
    public var maxConnections: Int?

    public static let defaultHeaderTimeout: Duration = .seconds(10)
    public static let defaultIdleTimeout: Duration = .seconds(75)
    public static let defaultWriteTimeout: Duration = .seconds(30)

    /// Bytes of a request head (request line and header fields), of one line of it, and fields.
    static let maxHeadBytes = 16 << 10
    static let maxLineBytes = 8 << 10
    static let maxHeaderFields = 100
    /// Bytes of a request body: the API reads none; one up to this is drained, a larger one refused.
    static let maxBodyBytes = 16 << 10
    /// Bytes of a response body handed to the socket at a time, the next once it has taken them.
    static let chunkBytes = 64 << 10

    public init(
        headerTimeout: Duration = defaultHeaderTimeout, idleTimeout: Duration = defaultIdleTimeout,
        writeTimeout: Duration = defaultWriteTimeout, maxConnections: Int? = nil
    ) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.writeTimeout = writeTimeout
        self.maxConnections = maxConnections
    }

    /// The timeouts in words, for the server's start message.
    var timeoutsDescription: String {
        "header \(Self.seconds(headerTimeout)), idle \(Self.seconds(idleTimeout)), write \(Self.seconds(writeTimeout))"
    }

    static func seconds(_ d: Duration) -> String {
        let ms = d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
        return ms % 1000 == 0 ? "\(ms / 1000) s" : "\(Double(ms) / 1000) s"
    }
}

/// The open-files limit (RLIMIT_NOFILE), which bounds the connections: each takes a descriptor.
public enum OpenFiles {
    /// The soft limit is raised to at most this (the kernel's usual `nr_open`).
    static let ceiling = 1 << 20

    /// Raises the soft limit to the hard one (a server's clients need descriptors; the soft
    /// default of 1,024 is a guard for programs that leak them) and returns the soft limit.
    @discardableResult
    public static func raiseSoftLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        let wanted = min(limit.rlim_max, rlim_t(ceiling))
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(min(limit.rlim_cur, rlim_t(ceiling)))
    }

    public static func hardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(min(limit.rlim_max, rlim_t(ceiling)))
    }

    /// Descriptors open in this process now, inherited ones included.
    public static func inUse() -> Int {
        // The listing's own descriptor is among its entries.
        max(0, ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count ?? 4) - 1)
    }

    /// Descriptors kept, of those free, for what is not a client: three per event loop (one loop
    /// per core), the listening socket and the signal handlers, a report folder being loaded (its
    /// descriptor, a file and a subfolder) and connections being refused at the cap.
    public static func reserve(free: Int, cores: Int = System.coreCount) -> Int {
        min(free / 2, 32 + 4 * cores)
    }

    /// The connections the descriptors allow: the limit, less those in use, less the reserve.
    public static func defaultMaxConnections(limit: Int, inUse: Int, cores: Int = System.coreCount) -> Int {
        let free = limit - inUse
        return max(1, free - reserve(free: free, cores: cores))
    }

    /// The most `--max-connections` may be under `limit`: a few descriptors stay for the server.
    public static func maxConnectionsAllowed(limit: Int) -> Int { max(1, limit - 16) }
}
