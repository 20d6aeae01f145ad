/// When a connection is to be closed, from what it is doing. A pure state machine over instants
/// in nanoseconds (the event loop's clock), so its rules are tested without sockets or time:
/// - waiting for a request head: at most `header` from the connection's start, or from the first
///   byte after an idle wait (a client that never finishes its head);
/// - idle between requests (the last response ended, no byte of the next one yet): `idle`;
/// - while a request is being answered, no read deadline; but while response bytes wait for the
///   socket (the client takes nothing), at most `write` from the last body part it took whole;
/// - closing (an answer written before a close, or a half-closed connection): at most `write`.
struct ConnectionDeadlines: Sendable {
    enum Reason: String, Sendable { case header, idle, write, closing }

    struct Limits: Sendable, Equatable {
        var header: UInt64, idle: UInt64, write: UInt64

        init(header: UInt64, idle: UInt64, write: UInt64) {
            self.header = header
            self.idle = idle
            self.write = write
        }

        init(_ limits: ServeLimits) {
            self.init(
                header: Self.nanoseconds(limits.headerTimeout), idle: Self.nanoseconds(limits.idleTimeout),
                write: Self.nanoseconds(limits.writeTimeout))
        }

        static func nanoseconds(_ d: Duration) -> UInt64 {
            let (seconds, attoseconds) = d.components
            return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds / 1_000_000_000))
        }
    }

    private let limits: Limits
    /// The wait for a request head, when one runs: `.header` or `.idle`, and since when.
    private var waitReason: Reason? = .header
    private var waitingSince: UInt64
    /// Requests whose head was passed on and whose response has not ended.
    private(set) var requestsInFlight = 0
    /// Response body parts handed to the socket and not yet all taken by it.
    private(set) var writesPending = 0
    private var stalledSince: UInt64?
    private var closingSince: UInt64?

    init(limits: Limits, now: UInt64) {
        self.limits = limits
        waitingSince = now
    }

    /// Bytes were read: after an idle wait they begin a request head, which has `header` to end.
    mutating func bytesArrived(now: UInt64) {
        if waitReason == .idle {
            waitReason = .header
            waitingSince = now
        }
    }

    mutating func headArrived() {
        requestsInFlight += 1
        waitReason = nil
    }

    mutating func responseEnded(now: UInt64) {
        requestsInFlight = max(0, requestsInFlight - 1)
        if requestsInFlight == 0 && waitReason == nil {
            waitReason = .idle
            waitingSince = now
        }
    }

    /// A body part was handed to the socket: the write timeout runs until the socket took it.
    mutating func writeStarted(now: UInt64) {
        if writesPending == 0 { stalledSince = now }
        writesPending += 1
    }

    /// The socket took a whole body part (or the write failed): the client made progress.
    mutating func writeFinished(now: UInt64) {
        writesPending = max(0, writesPending - 1)
        stalledSince = writesPending > 0 ? now : nil
    }

    mutating func closing(now: UInt64) {
        if closingSince == nil { closingSince = now }
    }

    /// The earliest deadline and why; nil when none runs.
    var next: (at: UInt64, reason: Reason)? {
        var best: (at: UInt64, reason: Reason)?
        func consider(_ at: UInt64, _ reason: Reason) {
            if best == nil || at < best!.at { best = (at, reason) }
        }
        if let reason = waitReason {
            consider(waitingSince &+ (reason == .header ? limits.header : limits.idle), reason)
        }
        if let since = stalledSince { consider(since &+ limits.write, .write) }
        if let since = closingSince { consider(since &+ limits.write, .closing) }
        return best
    }
}
