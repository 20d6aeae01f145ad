import AreaWatchTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `areawatch serve` started for the hostile-client tests: through `sh -c 'ulimit -n N; exec …'`
/// when an open-files limit is given, its stderr in a file, its resources read from /proc.
final class ServeProcess: @unchecked Sendable {
    let pid: pid_t
    let port: Int
    let errPath: String
    private var ended: (status: Int32, stderr: String)?

    init(_ arguments: [String], openFiles: Int? = nil) throws {
        let scratch = try TempDir("serve-process", keepUntilExit: true)
        errPath = scratch.sub("stderr")
        let binary = try Binary.require()
        var argv = [binary, "serve"] + arguments + ["--port", "0", "--host", "127.0.0.1"]
        if let openFiles { argv = ["/bin/sh", "-c", "ulimit -n \(openFiles) && exec \"$@\"", "sh"] + argv }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for p in cArguments { free(p) } }
        var child: pid_t = 0
        let status = cArguments.withUnsafeBufferPointer {
            posix_spawn(&child, argv[0], &actions, nil, UnsafeMutablePointer(mutating: $0.baseAddress!), environ)
        }
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
        pid = child
        let deadline = monotonicNow() + 30
        var found: Int?
        while found == nil && monotonicNow() < deadline {
            let text = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on http://127.0.0.1:"),
                let end = text[range.upperBound...].firstIndex(of: "\n")
            {
                found = Int(text[range.upperBound..<end])
            } else if waitpid(pid, nil, WNOHANG) == pid {
                throw HTTP.Failure(message: "serve ended before listening: \(text)")
            } else {
                usleep(20_000)
            }
        }
        port = try #require(found, "serve did not start listening")
    }

    deinit {
        if ended == nil {
            kill(pid, SIGKILL)
            waitpid(pid, nil, 0)
        }
    }

    /// Descriptors the server holds open now.
    var openDescriptors: Int { ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).count }

    /// Resident memory in MiB.
    var residentMiB: Double {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Double(line.split(separator: " ").dropFirst().first ?? "0").map { $0 / 1024 } ?? 0
    }

    /// CPU seconds used so far (user and system).
    var cpuSeconds: Double {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    var stderr: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }

    /// N of `at most N connections at once` in the start message.
    var capAtStart: Int? {
        guard let range = stderr.range(of: "at most ") else { return nil }
        return Int(stderr[range.upperBound...].prefix { $0.isNumber })
    }

    /// SIGTERM, then its exit status and stderr (the access log is flushed at shutdown).
    func stop() -> (status: Int32, stderr: String) {
        if let ended { return ended }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let deadline = monotonicNow() + 20
        while waitpid(pid, &status, WNOHANG) != pid {
            if monotonicNow() > deadline { kill(pid, SIGKILL) }
            usleep(10_000)
        }
        ended = ((status & 0x7f) != 0 ? -1 : (status >> 8) & 0xff, stderr)
        return ended!
    }
}

/// A client connection on loopback: requests written raw, answers read by Content-Length.
final class ServeSocket {
    let fd: Int32
    private var buffered: [UInt8] = []

    init(port: Int, receiveBuffer: Int32? = nil, timeout: Double = 5) throws {
        // Close-on-exec: a server spawned meanwhile by another test must not inherit it.
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTP.Failure(message: "socket: \(String(cString: strerror(errno)))") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var wait = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw HTTP.Failure(message: "connect: \(String(cString: strerror(errno)))")
        }
    }

    deinit { Glibc.close(fd) }

    @discardableResult
    func send(_ text: String) throws -> ServeSocket {
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + done, $0.count - done, Int32(MSG_NOSIGNAL))
            }
            guard n > 0 else { throw HTTP.Failure(message: "send: \(String(cString: strerror(errno)))") }
            done += n
        }
        return self
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let n = read(fd, &chunk, chunk.count)
        guard n > 0 else {
            throw HTTP.Failure(message: n == 0 ? "closed by the server" : "read: \(String(cString: strerror(errno)))")
        }
        buffered += chunk[0..<n]
    }

    /// The next answer: status, headers (lower-cased names) and body (none for HEAD, 204, 304).
    func response(headOnly: Bool = false) throws -> (status: Int, headers: [String: String], body: [UInt8]) {
        var end = buffered.firstRange(of: Array("\r\n\r\n".utf8))
        while end == nil {
            try fill()
            end = buffered.firstRange(of: Array("\r\n\r\n".utf8))
        }
        let head = String(decoding: buffered[..<end!.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        buffered.removeFirst(end!.upperBound)
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            if let colon = line.firstIndex(of: ":") {
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                headers[line[..<colon].lowercased()] = value
            }
        }
        let length = headOnly || status == 204 || status == 304 ? 0 : Int(headers["content-length"] ?? "0") ?? 0
        while buffered.count < length { try fill() }
        let body = Array(buffered[..<length])
        buffered.removeFirst(length)
        return (status, headers, body)
    }

    /// True when the server closes the connection (end of stream or reset) within `seconds`;
    /// what it sent before is read and dropped.
    func closedByServer(within seconds: Double) -> Bool {
        let deadline = monotonicNow() + seconds
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while monotonicNow() < deadline {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(max(1, (deadline - monotonicNow()) * 1000))) > 0 else { continue }
            let n = recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) { return true }
        }
        return false
    }
}
