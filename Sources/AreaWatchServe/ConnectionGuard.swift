import AreaWatchCore
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import Synchronization

/// What every connection shares: the limits, the CORS origin of the answers, the access log and
/// the count of open connections.
final class ConnectionPolicy: Sendable {
    let deadlineLimits: ConnectionDeadlines.Limits
    let maxConnections: Int
    let corsOrigin: String?
    let accessLog: AccessLog?
    private let open = Atomic<Int>(0)

    init(limits: ServeLimits, maxConnections: Int, corsOrigin: String?, accessLog: AccessLog?) {
        deadlineLimits = .init(limits)
        self.maxConnections = maxConnections
        self.corsOrigin = corsOrigin
        self.accessLog = accessLog
    }

    /// Counts a new connection in; false (and not counted) when the cap is reached.
    func admit() -> Bool {
        if open.wrappingAdd(1, ordering: .relaxed).newValue <= maxConnections { return true }
        open.wrappingSubtract(1, ordering: .relaxed)
        return false
    }

    func release() { open.wrappingSubtract(1, ordering: .relaxed) }

    var openConnections: Int { open.load(ordering: .relaxed) }
}

/// One per connection, between the HTTP/1.1 parser (and its conversion to HTTP types) and
/// Hummingbird. It closes the connection when a deadline of `ConnectionDeadlines` passes, and it
/// answers itself, then closes, what must not reach the handler (`RequestRules`): a request the
/// parser cannot read, two Host headers, a body over the limit, a connection beyond the cap. Its
/// answers are the JSON errors of every other error and get an access-log line; nothing is read
/// after them, so no connection waits on a client that never closes.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let policy: ConnectionPolicy
    private var deadlines: ConnectionDeadlines?
    private var admitted = false
    private var timer: Scheduled<Void>?
    private var timerAt = UInt64.max
    /// Set once the connection is to end: nothing more is read or passed on.
    private var refused = false
    /// A refusal waiting for the responses to the requests before it.
    private var pendingRefusal: Refusal?
    /// A body over the limit came in chunks: close once the requests in flight are answered.
    private var closeWhenAnswered = false
    private var bodyBytes = 0
    /// The last response body part handed down, done once the socket has taken all of it.
    private var lastBodyWrite: EventLoopFuture<Void>?
    private var peer = "-"
    /// Why the connection was closed by a deadline (for the tests).
    private(set) var expired: ConnectionDeadlines.Reason?

    init(policy: ConnectionPolicy) { self.policy = policy }

    func handlerAdded(context: ChannelHandlerContext) {
        // Added to a live connection: start once the pipeline is complete (an answer and close
        // now would close the channel under the code still adding handlers after this one).
        if context.channel.isActive { context.eventLoop.assumeIsolated().execute { self.start(context) } }
    }

    func handlerRemoved(context: ChannelHandlerContext) { stop() }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard deadlines == nil else { return }
        peer = context.channel.remoteAddress?.ipAddress ?? "-"
        deadlines = ConnectionDeadlines(limits: policy.deadlineLimits, now: now(context))
        guard policy.admit() else {
            refuse(Refusal(status: 503, message: RequestRules.tooManyConnections), context)
            return
        }
        admitted = true
        reschedule(context)
    }

    private func stop() {
        timer?.cancel()
        timer = nil
        if admitted { policy.release() }
        admitted = false
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if let refusal = RequestRules.refusal(for: head) {
                refuse(refusal, context)
                return
            }
            bodyBytes = 0
            deadlines?.headArrived()
            reschedule(context)
        case .body(let part):
            bodyBytes += part.readableBytes
            if bodyBytes > ServeLimits.maxBodyBytes {
                stopReading(context)
                return
            }
        case .end:
            break
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        deadlines?.bytesArrived(now: now(context))
        reschedule(context)
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parse = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        if !refused { refuse(RequestRules.refusal(for: parse), context) }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head:
            context.write(data, promise: promise)
            return
        case .body:
            let written = promise ?? context.eventLoop.makePromise()
            lastBodyWrite = written.futureResult
            deadlines?.writeStarted(now: now(context))
            reschedule(context)
            written.futureResult.assumeIsolated().whenComplete { _ in
                self.deadlines?.writeFinished(now: self.now(context))
            }
            context.write(data, promise: written)
            return
        case .end:
            break
        }
        deadlines?.responseEnded(now: now(context))
        let answered = deadlines?.requestsInFlight == 0
        if answered && closeWhenAnswered && pendingRefusal == nil {
            let written = promise ?? context.eventLoop.makePromise()
            context.write(data, promise: written)
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            deadlines?.closing(now: now(context))
        } else {
            context.write(data, promise: promise)
        }
        if answered, let refusal = pendingRefusal {
            pendingRefusal = nil
            send(refusal, context)
        }
        reschedule(context)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        // Hummingbird half-closes after `Connection: close` and waits for the client's close.
        if mode == .output {
            deadlines?.closing(now: now(context))
            reschedule(context)
        }
        context.close(mode: mode, promise: promise)
    }

    /// Done when the body bytes written so far on `channel` are all in its socket; failed if the
    /// connection closes first. Runs on the event loop after the writes already handed to it
    /// (its tasks run in order), so it sees the last of them.
    static func bodyWritten(on channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.flatSubmit {
            let handler = try? channel.pipeline.syncOperations.handler(type: ConnectionGuard.self)
            return handler?.lastBodyWrite ?? channel.eventLoop.makeSucceededVoidFuture()
        }
    }

    // MARK: - Refusals

    private func refuse(_ refusal: Refusal, _ context: ChannelHandlerContext) {
        refused = true
        if (deadlines?.requestsInFlight ?? 0) > 0 {
            pendingRefusal = refusal
        } else {
            send(refusal, context)
        }
    }

    /// A chunked body over the limit: its request is answered as usual, then the connection ends.
    private func stopReading(_ context: ChannelHandlerContext) {
        refused = true
        if (deadlines?.requestsInFlight ?? 0) > 0 {
            closeWhenAnswered = true
        } else {
            context.close(promise: nil)
        }
    }

    private func send(_ refusal: Refusal, _ context: ChannelHandlerContext) {
        let body = ServeHandler.errorBody(status: refusal.status, message: refusal.message)
        var fields: HTTPFields = [
            .contentType: "application/json", .cacheControl: ServeHandler.errorCache,
            .contentLength: String(body.readableBytes), .connection: "close"
        ]
        if refusal.status == 503 { fields[.retryAfter] = "1" }
        if let origin = policy.corsOrigin {
            fields[.accessControlAllowOrigin] = origin
            if origin != "*" { fields[.vary] = "Origin" }
        }
        let head = HTTPResponse(status: .init(code: refusal.status), headerFields: fields)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        deadlines?.closing(now: now(context))
        reschedule(context)
        policy.accessLog?.append(
            AccessLog.line(
                peer: peer, method: refusal.method, target: refusal.target,
                status: refusal.status, bytes: body.readableBytes, microseconds: 0))
    }

    // MARK: - The deadline timer

    private func now(_ context: ChannelHandlerContext) -> UInt64 { context.eventLoop.now.uptimeNanoseconds }

    /// One timer per connection, at the earliest deadline; a timer already due earlier is kept
    /// (when it fires it looks again), so a request on a kept-alive connection schedules nothing.
    private func reschedule(_ context: ChannelHandlerContext) {
        guard let next = deadlines?.next else { return }
        if timer != nil && timerAt <= next.at { return }
        timer?.cancel()
        timerAt = next.at
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: .uptimeNanoseconds(next.at)) {
            self.timer = nil
            self.timerAt = .max
            self.timerFired(context)
        }
    }

    private func timerFired(_ context: ChannelHandlerContext) {
        guard let next = deadlines?.next else { return }
        if next.at <= now(context) {
            expired = next.reason
            context.close(promise: nil)
        } else {
            reschedule(context)
        }
    }
}
