import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Testing

@testable import AreaWatchServe

/// `ConnectionGuard` behind NIO's HTTP/1.1 parser and the HTTP-types codec, as Hummingbird's
/// HTTP/1.1 channel builds the pipeline, in NIO's embedded channel (its clock is advanced by
/// hand): what it answers itself, what it passes on, and when it closes the connection.
@Suite struct ConnectionGuardTests {
    static let limits = ServeLimits(headerTimeout: .seconds(10), idleTimeout: .seconds(75), writeTimeout: .seconds(30))

    /// A connection as the server makes one; what the guard passes on stays in its inbound buffer.
    final class Connection {
        let channel = EmbeddedChannel()
        let handler: ConnectionGuard

        init(_ policy: ConnectionPolicy) throws {
            handler = ConnectionGuard(policy: policy)
            var decoder = NIOHTTPDecoderLimitConfiguration()
            decoder.maxHeaderFieldSize = ServeLimits.maxLineBytes
            decoder.maxHeaderListSize = ServeLimits.maxHeadBytes
            decoder.maxHeaderFieldCount = ServeLimits.maxHeaderFields
            let pipeline = channel.pipeline.syncOperations
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: decoder)
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(handler)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 4000)).wait()
        }

        func send(_ text: String) throws { try channel.writeInbound(ByteBuffer(string: text)) }

        /// The request parts passed on to Hummingbird.
        func passedOn() throws -> [HTTPRequestPart] {
            var parts: [HTTPRequestPart] = []
            while let part = try channel.readInbound(as: HTTPRequestPart.self) { parts.append(part) }
            return parts
        }

        /// What the server wrote to the socket.
        func written() throws -> String {
            var text = ""
            while let data = try channel.readOutbound(as: IOData.self) {
                if case .byteBuffer(let buffer) = data { text += String(buffer: buffer) }
            }
            return text
        }

        /// Hummingbird's answer to the request in flight.
        func answer(_ status: HTTPResponse.Status = .ok, body: String = "ok") throws {
            let head = HTTPResponse(status: status, headerFields: [.contentLength: "\(body.utf8.count)"])
            try channel.writeOutbound(HTTPResponsePart.head(head))
            try channel.writeOutbound(HTTPResponsePart.body(ByteBuffer(string: body)))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
        }

        func advance(seconds: Double) {
            channel.embeddedEventLoop.advanceTime(by: .nanoseconds(Int64(seconds * 1e9)))
        }

        var isOpen: Bool { channel.isActive }
    }

    static func policy(max: Int = 100, log: AccessLog? = AccessLog(), cors: String? = nil) -> ConnectionPolicy {
        ConnectionPolicy(limits: limits, maxConnections: max, corsOrigin: cors, accessLog: log)
    }

    /// Status, lower-cased headers and body of the first response in `text`.
    static func response(_ text: String) throws -> (status: Int, headers: [String: String], body: [String: Any]) {
        let parts = text.components(separatedBy: "\r\n\r\n")
        let lines = parts[0].components(separatedBy: "\r\n")
        let status = try #require(Int(lines[0].split(separator: " ")[1]))
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            let pair = line.split(separator: ":", maxSplits: 1)
            headers[pair[0].lowercased()] = pair[1].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        let body = String(parts.dropFirst().joined(separator: "\r\n\r\n").utf8.prefix(length))!
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        return (status, headers, object)
    }

    @Test func aRequestThatCannotBeParsedIs400WithTheJSONErrorALogLineAndAClose() throws {
        let log = AccessLog()
        let c = try Connection(Self.policy(log: log))
        try c.send("GET /v1/safety HTTP/1.1\r\nHost: x\r\nno colon in this line\r\n\r\n")
        let answer = try Self.response(try c.written())
        #expect(answer.status == 400)
        #expect(answer.body["status"] as? Int == 400)
        #expect((answer.body["error"] as? String)?.contains("header line") == true)
        #expect(answer.headers["content-type"] == "application/json" && answer.headers["connection"] == "close")
        #expect(answer.headers["cache-control"] == "no-store")
        #expect(try c.passedOn().isEmpty)
        #expect(!c.isOpen, "closed once the answer is written, not left for the client to close")
        #expect(log.pendingText().hasPrefix("127.0.0.1 \"- -\" 400 \(answer.headers["content-length"]!) "))
    }

    @Test func aHeadOverTheLimitIs431() throws {
        let c = try Connection(Self.policy())
        let long = String(repeating: "a", count: ServeLimits.maxLineBytes + 1)
        try c.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + long + "\r\n\r\n")
        #expect(try Self.response(try c.written()).status == 431)
        #expect(!c.isOpen)
        // Many small fields add up to the same refusal.
        let many = try Connection(Self.policy())
        let fields = (0..<(ServeLimits.maxHeaderFields + 1)).map { "X-\($0): 1\r\n" }.joined()
        try many.send("GET / HTTP/1.1\r\nHost: x\r\n" + fields + "\r\n")
        #expect(try Self.response(try many.written()).status == 431)
    }

    @Test func twoHostHeadersAre400AndOneIsPassedOn() throws {
        let log = AccessLog()
        let c = try Connection(Self.policy(log: log, cors: "https://example.org"))
        try c.send("GET /summary.json HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n")
        let answer = try Self.response(try c.written())
        #expect(answer.status == 400 && (answer.body["error"] as? String)?.contains("Host") == true)
        #expect(answer.headers["access-control-allow-origin"] == "https://example.org", "a widget can read the error")
        #expect(try c.passedOn().isEmpty && !c.isOpen)
        #expect(log.pendingText().contains("\"GET /summary.json\" 400"))

        let one = try Connection(Self.policy())
        try one.send("GET /summary.json HTTP/1.1\r\nHost: a.example\r\n\r\n")
        let parts = try one.passedOn()
        guard case .head(let head)? = parts.first else {
            Issue.record("no head passed on")
            return
        }
        #expect(head.authority == "a.example" && head.path == "/summary.json")
        #expect(try one.written().isEmpty && one.isOpen)
    }

    @Test func aBodyAnnouncedOverTheLimitIs413() throws {
        let c = try Connection(Self.policy())
        try c.send("POST /v1/safety HTTP/1.1\r\nHost: x\r\nContent-Length: 1073741824\r\n\r\nabc")
        #expect(try Self.response(try c.written()).status == 413)
        #expect(try c.passedOn().isEmpty && !c.isOpen)
        // A small body is passed on (the handler ignores it).
        let small = try Connection(Self.policy())
        try small.send("POST /v1/safety HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
        #expect(try small.passedOn().count == 3)
    }

    @Test func aChunkedBodyOverTheLimitEndsTheConnectionAfterItsAnswer() throws {
        let c = try Connection(Self.policy())
        try c.send("GET /summary.json HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunk = "1000\r\n" + String(repeating: "z", count: 0x1000) + "\r\n"
        for _ in 0..<8 { try c.send(chunk) }
        let parts = try c.passedOn()
        let bodyBytes = parts.reduce(0) { n, part in
            if case .body(let b) = part { return n + b.readableBytes } else { return n }
        }
        #expect(bodyBytes <= ServeLimits.maxBodyBytes, "\(bodyBytes) body bytes passed on")
        #expect(c.isOpen, "its request is still answered")
        try c.answer()
        c.channel.embeddedEventLoop.run()
        #expect(try Self.statusLine(try c.written()) == "HTTP/1.1 200 OK")
        #expect(!c.isOpen)
    }

    @Test func garbageAfterAValidRequestIsAnsweredAfterIt() throws {
        let c = try Connection(Self.policy())
        try c.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nBAD REQUEST LINE\r\n\r\n")
        #expect(try c.passedOn().count == 2, "the valid request's head and end")
        #expect(try c.written().isEmpty, "no answer before the first one")
        try c.answer()
        let text = try c.written()
        #expect(text.hasPrefix("HTTP/1.1 200 OK"))
        #expect(text.contains("\r\n\r\nokHTTP/1.1 400 Bad Request\r\n"))
        #expect(!c.isOpen)
    }

    @Test func aHeadMustBeCompleteWithinTheHeaderTimeout() throws {
        let c = try Connection(Self.policy())
        try c.send("GET / HTTP/1.1\r\nHo")
        c.advance(seconds: 9.9)
        #expect(c.isOpen)
        try c.send("st: x\r\n")
        c.advance(seconds: 0.2)
        #expect(!c.isOpen && c.handler.expired == .header)
    }

    @Test func aKeptAliveConnectionIsClosedWhenIdleAndAHeadAfterItHasTheHeaderTimeout() throws {
        let c = try Connection(Self.policy())
        try c.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        c.advance(seconds: 1000)
        #expect(c.isOpen, "no read deadline while a request is answered")
        try c.answer()
        c.advance(seconds: 74)
        #expect(c.isOpen)
        c.advance(seconds: 2)
        #expect(!c.isOpen && c.handler.expired == .idle)

        let d = try Connection(Self.policy())
        try d.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        try d.answer()
        d.advance(seconds: 30)
        try d.send("GET /b HT")
        d.advance(seconds: 9)
        #expect(d.isOpen)
        d.advance(seconds: 2)
        #expect(!d.isOpen && d.handler.expired == .header)
    }

    @Test func aClientThatStopsReadingIsClosedAfterTheWriteTimeout() throws {
        let c = try Connection(Self.policy())
        try c.send("GET /report.html HTTP/1.1\r\nHost: x\r\n\r\n")
        // Written but not flushed: the embedded socket has not taken the bytes.
        let head = HTTPResponse(status: .ok, headerFields: [.contentLength: "200000"])
        c.channel.write(HTTPResponsePart.head(head), promise: nil)
        c.channel.write(HTTPResponsePart.body(ByteBuffer(repeating: 1, count: 100_000)), promise: nil)
        c.advance(seconds: 20)
        // The socket takes that part: progress; the next one waits from now.
        c.channel.flush()
        c.channel.write(HTTPResponsePart.body(ByteBuffer(repeating: 2, count: 100_000)), promise: nil)
        c.advance(seconds: 29)
        #expect(c.isOpen)
        c.advance(seconds: 2)
        #expect(!c.isOpen && c.handler.expired == .write)
    }

    @Test func beyondTheCapANewConnectionIs503AndClosedAndASlotIsFreedByAClose() throws {
        let policy = Self.policy(max: 2)
        let a = try Connection(policy), b = try Connection(policy)
        let refused = try Connection(policy)
        let answer = try Self.response(try refused.written())
        #expect(answer.status == 503 && answer.headers["retry-after"] == "1")
        #expect(!refused.isOpen && policy.openConnections == 2)
        #expect(try a.written().isEmpty)
        #expect(try b.written().isEmpty)
        try a.channel.close().wait()
        #expect(policy.openConnections == 1)
        let next = try Connection(policy)
        #expect(try next.written().isEmpty && next.isOpen && policy.openConnections == 2)
    }

    static func statusLine(_ text: String) throws -> String {
        try #require(text.components(separatedBy: "\r\n").first)
    }
}
