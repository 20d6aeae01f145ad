import HTTPTypes
import Hummingbird
import NIOCore

/// Hummingbird responses from the handler's answers. A body of up to one chunk is written at
/// once. A larger one (a report file, shared by every response that sends it) is written chunk
/// by chunk, each a slice of it, the next only once the socket has taken the previous one
/// (`ConnectionGuard.bodyWritten`; Hummingbird's writer alone returns as soon as the event loop
/// has the chunk, so a producer outruns it): a slow reader holds at most one chunk and no copy,
/// and one that stops reading is closed by the write timeout. HEAD: the GET's headers and
/// `Content-Length`, no body.
enum ResponseBodies {
    /// `logged` gets the body bytes the socket took: at once for a body written whole, else once
    /// the last part is taken or writing failed (a client gone, the write timeout).
    static func response(
        _ answer: ServeResponse, channel: any Channel,
        logged: (@Sendable (_ bytesSent: Int) -> Void)?
    ) -> Response {
        var headers = HTTPFields()
        for (name, value) in answer.headers {
            if let field = HTTPField.Name(name) { headers.append(HTTPField(name: field, value: value)) }
        }
        let status = HTTPResponse.Status(code: answer.status)
        let body = answer.body
        if answer.headOnly {
            logged?(0)
            let nothing = ResponseBody(contentLength: body.readableBytes) { writer in try await writer.finish(nil) }
            return Response(status: status, headers: headers, body: nothing)
        }
        if body.readableBytes <= ServeLimits.chunkBytes {
            logged?(body.readableBytes)
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
        }
        let chunks = ResponseBody(contentLength: body.readableBytes) { writer in
            var sent = 0
            do {
                while sent < body.readableBytes {
                    let length = min(ServeLimits.chunkBytes, body.readableBytes - sent)
                    try await writer.write(body.getSlice(at: body.readerIndex + sent, length: length)!)
                    try await ConnectionGuard.bodyWritten(on: channel).get()
                    sent += length
                }
                try await writer.finish(nil)
            } catch {
                logged?(sent)
                throw error
            }
            logged?(sent)
        }
        return Response(status: status, headers: headers, body: chunks)
    }
}
