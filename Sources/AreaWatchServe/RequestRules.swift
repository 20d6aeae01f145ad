import HTTPTypes
import NIOHTTP1

/// An answer the server gives itself, before (or instead of) its handler, and then closes the
/// connection: the JSON error of docs/FORMATS.md with this status and message.
struct Refusal: Sendable, Equatable {
    var status: Int
    var message: String
    /// The request as the access log shows it (`-` when no head could be read).
    var method = "-"
    var target = "-"
}

/// What a request may not be (docs/FORMATS.md, "HTTP API (serve)", Limits): it is answered by
/// `ConnectionGuard` and the connection closed, and never reaches `ServeHandler`.
enum RequestRules {
    static let tooManyConnections = "the server is at its connection limit; try again in a moment"

    /// A head the parser read but the server refuses: two Host headers (RFC 9112 §3.2), a body
    /// announced larger than the API reads.
    static func refusal(for head: HTTPRequest) -> Refusal? {
        var refusal: Refusal?
        // The codec names the first Host header `authority`; any further one stays a field.
        let extraHosts = head.headerFields[values: hostField].count
        if extraHosts > 0 {
            refusal = Refusal(status: 400, message: "a request has one Host header; this one has \(extraHosts + 1)")
        } else if let text = head.headerFields[.contentLength], let length = Int(text),
            length > ServeLimits.maxBodyBytes
        {
            refusal = Refusal(
                status: 413,
                message: "request bodies are not read: at most "
                    + "\(ServeLimits.maxBodyBytes) bytes, this one announces \(length)")
        }
        refusal?.method = head.method.rawValue
        refusal?.target = head.path ?? "-"
        return refusal
    }

    /// The answer to a request the parser cannot read.
    static func refusal(for error: HTTPParserError) -> Refusal {
        switch error {
        case .headerOverflow:
            return Refusal(
                status: 431,
                message: "the request head is too large: at most "
                    + "\(ServeLimits.maxHeadBytes) bytes, \(ServeLimits.maxLineBytes) in one line, "
                    + "\(ServeLimits.maxHeaderFields) header fields")
        case .invalidMethod:
            return Refusal(status: 400, message: "not an HTTP/1.1 request: unknown method")
        case .invalidURL:
            return Refusal(status: 400, message: "not an HTTP/1.1 request: the request target is not a valid path")
        case .invalidVersion:
            return Refusal(status: 400, message: "not an HTTP/1.1 request: unknown HTTP version")
        case .invalidHeaderToken, .lfExpected, .invalidCharactersUsed:
            return Refusal(status: 400, message: "not an HTTP/1.1 request: a header line is malformed")
        case .invalidContentLength, .unexpectedContentLength, .invalidChunkSize:
            return Refusal(status: 400, message: "not an HTTP/1.1 request: the body's length is malformed")
        default:
            return Refusal(status: 400, message: "not an HTTP/1.1 request")
        }
    }

    static let hostField = HTTPField.Name("Host")!
}
