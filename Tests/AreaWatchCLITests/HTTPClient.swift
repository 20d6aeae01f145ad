import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking HTTP/1.1 GET over a loopback socket, one connection per request (enough for the
/// serve tests; no dependency on a client library).
enum HTTP {
    struct Failure: Error { let message: String }
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    static func get(_ url: String, headers extra: [String: String] = [:]) throws -> Answer {
        guard url.hasPrefix("http://"), let slash = url.dropFirst(7).firstIndex(of: "/") else {
            throw Failure(message: "bad URL \(url)")
        }
        let authority = url[url.index(url.startIndex, offsetBy: 7)..<slash]
        let target = String(url[slash...])
        guard let colon = authority.lastIndex(of: ":"), let port = UInt16(authority[authority.index(after: colon)...])
        else {
            throw Failure(message: "no port in \(url)")
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(message: "socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr(String(authority[..<colon]))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(message: "connect: \(String(cString: strerror(errno)))") }
        var request = "GET \(target) HTTP/1.1\r\nHost: \(authority)\r\nConnection: close\r\n"
        for (k, v) in extra { request += "\(k): \(v)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw Failure(message: "write") }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            response += buffer[0..<n]
        }
        guard let split = response.firstRange(of: Array("\r\n\r\n".utf8)) else {
            throw Failure(message: "no response head")
        }
        let head = String(decoding: response[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(message: "bad status line \(head[0])")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            if let c = line.firstIndex(of: ":") {
                headers[line[..<c].lowercased()] = line[line.index(after: c)...].trimmingCharacters(in: .whitespaces)
            }
        }
        var body = Array(response[split.upperBound...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = dechunk(body) }
        return Answer(status: status, headers: headers, body: String(decoding: body, as: UTF8.self))
    }

    static func dechunk(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [], i = 0
        while let lineEnd = data[i...].firstRange(of: Array("\r\n".utf8)),
            let size = Int(String(decoding: data[i..<lineEnd.lowerBound], as: UTF8.self), radix: 16), size > 0
        {
            out += data[lineEnd.upperBound..<min(data.count, lineEnd.upperBound + size)]
            i = lineEnd.upperBound + size + 2
            guard i < data.count else { break }
        }
        return out
    }
}
