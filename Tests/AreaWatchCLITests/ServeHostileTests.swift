import AreaWatchTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `areawatch serve` against hostile clients, end to end through the binary (docs/RELIABILITY.md;
/// `make hostile-serve` runs the same attacks at full size): HEAD, malformed and oversized
/// requests, a storm of them and idle sockets beyond the cap under `ulimit -n 64`, slow readers
/// of a large file, and a port in use.
@Suite("serve against hostile clients", .timeLimit(.minutes(60)))
struct ServeHostileTests {
    static let probe = "/v1/safety?lat=53.7248&lon=-1.8612"

    func get(_ path: String, method: String = "GET", extra: String = "") -> String {
        "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(extra)\r\n"
    }

    func probeAnswered(_ server: ServeProcess) -> Bool {
        (try? ServeSocket(port: server.port).send(get(Self.probe)).response().status) == 200
    }

    @Test("HEAD has GET's headers and Content-Length, and no body")
    func headHasTheLengthOfGet() throws {
        let server = try ServeProcess([try BundledRun.get().out])
        for path in ["/report.html", "/summary.json", Self.probe, "/nothing"] {
            // HEAD then GET on one connection: the GET's answer reads right only if HEAD sent no body.
            let client = try ServeSocket(port: server.port).send(get(path, method: "HEAD") + get(path))
            let head = try client.response(headOnly: true), full = try client.response()
            #expect(head.status == full.status, "\(path)")
            #expect(head.headers.filter { $0.key != "date" } == full.headers.filter { $0.key != "date" }, "\(path)")
            #expect(head.headers["content-length"] == String(full.body.count) && !full.body.isEmpty, "\(path)")
        }
        #expect(server.stop().status == 0)
    }

    @Test("malformed, two-Host and oversized requests: the JSON error, a log line, the connection closed")
    func refusedRequests() throws {
        let server = try ServeProcess([try BundledRun.get().out])
        let cases: [(String, Int)] = [
            ("GET / HTTP/1.1\r\nHost: x\r\nno colon\r\n\r\n", 400),
            ("\u{16}\u{03}\u{01} binary garbage\r\n\r\n", 400),
            (get("/summary.json", extra: "Host: other\r\n"), 400),
            (get("/summary.json", extra: "X-Big: " + String(repeating: "a", count: 20_000) + "\r\n"), 431),
            (get("/summary.json", method: "POST", extra: "Content-Length: 1073741824\r\n"), 413)
        ]
        for (request, status) in cases {
            let client = try ServeSocket(port: server.port).send(request)
            let answer = try client.response()
            #expect(answer.status == status, "\(request.prefix(40))")
            let object = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
            #expect(object?["status"] as? Int == status && (object?["error"] as? String)?.isEmpty == false)
            #expect(answer.headers["content-type"] == "application/json" && answer.headers["connection"] == "close")
            #expect(client.closedByServer(within: 2), "the server closes; it does not wait for the client")
        }
        // HTTP/1.0 without Host is still a request.
        #expect(try ServeSocket(port: server.port).send("GET /summary.json HTTP/1.0\r\n\r\n").response().status == 200)
        let ended = server.stop()
        #expect(ended.stderr.components(separatedBy: "\"- -\" 400 ").count - 1 == 2, "\(ended.stderr.suffix(2000))")
        #expect(ended.stderr.contains("\"GET /summary.json\" 400 "))
        #expect(!ended.stderr.contains("\"GET /summary.json\" 431 "), "a head over the limit has no readable target")
        #expect(ended.stderr.contains("\"- -\" 431 "))
        #expect(ended.stderr.contains("\"POST /summary.json\" 413 "))
    }

    @Test("a storm of malformed requests whose clients never close, under ulimit -n 64")
    func malformedStormUnderALowDescriptorLimit() throws {
        let server = try ServeProcess([try BundledRun.get().out], openFiles: 64)
        let baseline = server.openDescriptors
        var held: [ServeSocket] = []
        for k in 0..<150 { held.append(try ServeSocket(port: server.port).send("BAD \(k)\r\n\r\n")) }
        // Each is answered and closed: 400, or 503 when a loaded machine lets more of the storm
        // be open at once than the cap the descriptor limit sets (SPEC §14: 503 at the cap).
        var answered = 0
        for client in held {
            let answer = try? client.response()
            if [400, 503].contains(answer?.status) && client.closedByServer(within: 2) { answered += 1 }
        }
        #expect(answered == held.count, "each got its 400 (or 503 at the cap) and was closed by the server")
        #expect(server.openDescriptors <= baseline + 1, "no descriptor is left to a client that never closes")
        #expect(probeAnswered(server), "the server still answers a new client")
        held.removeAll()
        let ended = server.stop()
        let logged = ["400", "503"].map { ended.stderr.components(separatedBy: "\"- -\" \($0) ").count - 1 }
        #expect(logged[0] + logged[1] == 150 && logged[0] > 0, "\(logged)")
    }

    @Test("idle sockets beyond the connection cap: 503 at once, the rest closed at the header timeout, no spinning")
    func idleSocketsBeyondTheCap() throws {
        // The header timeout must outlast the whole flood's accept, even on a loaded machine: an
        // admitted socket closed at its deadline before the last one is accepted frees a place,
        // and a later socket is then admitted rather than refused.
        let server = try ServeProcess([try BundledRun.get().out, "--header-timeout", "4"], openFiles: 64)
        let cap = try #require(server.capAtStart, "\(server.stderr)")
        #expect(server.stderr.contains("(open-files limit 64, "))
        #expect((16...48).contains(cap), "at most \(cap) connections under ulimit -n 64")
        // A client connected before the flood keeps being answered on its kept-alive connection.
        let keptAlive = try ServeSocket(port: server.port)
        #expect(try keptAlive.send(get(Self.probe)).response().status == 200)
        let cpuBefore = server.cpuSeconds, started = monotonicNow()
        let idle = try (0..<80).map { _ in try ServeSocket(port: server.port, timeout: 0.2) }
        var refused = 0
        for socket in idle where (try? socket.response())?.status == 503 { refused += 1 }
        #expect(refused == 80 - (cap - 1), "the kept-alive client holds one of \(cap) places, idle clients the rest")
        for _ in 0..<5 {
            #expect(try keptAlive.send(get(Self.probe)).response().status == 200)
            usleep(100_000)
        }
        let closed = idle.filter { $0.closedByServer(within: 5) }.count
        let cpu = (server.cpuSeconds - cpuBefore) / (monotonicNow() - started)
        #expect(closed == 80, "admitted idle sockets closed at the header timeout, refused ones at once")
        #expect(cpu < 0.25, "the server used \(cpu * 100) % of a core while full")
        #expect(probeAnswered(server), "a new client is answered while the attacker still holds its sockets")
        #expect(server.stop().status == 0)
    }

    @Test("slow readers of a large file: no copy per reader, closed at the write timeout")
    func slowReadersOfALargeFile() throws {
        let scratch = try TempDir("serve-slow")
        let folder = scratch.sub("report")
        try copyItem(try BundledRun.get().out, folder)
        let size = 48 << 20
        let line = Array("{\"type\": \"Feature\", \"properties\": {\"label\": \"No pattern detected\"}},\n".utf8)
        var ehsa = Array("{\"type\": \"FeatureCollection\", \"features\": [\n".utf8)
        while ehsa.count < size { ehsa += line }
        ehsa += Array("{}]}\n".utf8)
        try Data(ehsa).write(to: URL(fileURLWithPath: folder + "/ehsa.geojson"))
        let server = try ServeProcess([folder, "--write-timeout", "1"])
        usleep(300_000)
        let before = server.residentMiB, fdsBefore = server.openDescriptors
        let readers = try (0..<16).map { _ in
            try ServeSocket(port: server.port, receiveBuffer: 4096).send(get("/ehsa.geojson"))
        }
        usleep(500_000)
        let growth = server.residentMiB - before
        #expect(growth < 24, "RSS grew \(growth) MiB for 16 readers of a \(size >> 20) MiB file")
        #expect(probeAnswered(server))
        // They read nothing (reading to see the close would be reading): the server's descriptors tell.
        let deadline = monotonicNow() + 5
        while server.openDescriptors > fdsBefore && monotonicNow() < deadline { usleep(50_000) }
        #expect(server.openDescriptors <= fdsBefore, "readers that stopped reading are closed at the write timeout")
        _ = readers
        let ended = server.stop()
        let partial = ended.stderr.split(separator: "\n").filter { $0.contains("\"GET /ehsa.geojson\" 200 ") }
        #expect(partial.count == 16, "each reader has its access-log line, with the bytes it was sent")
        #expect(partial.allSatisfy { Int($0.split(separator: " ")[4]).map { $0 < size } == true })
    }

    @Test("a port in use is one plain sentence and exit status 2")
    func portInUse() throws {
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(holder, $0, length) == 0 && listen(holder, 1) == 0 && getsockname(holder, $0, &length) == 0
            }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let result = try areawatch(["serve", try BundledRun.get().out, "--port", String(port)])
        #expect(result.status == 2, "\(result)")
        let sentence =
            "areawatch: cannot listen on 127.0.0.1:\(port): the port is in use by another program "
            + "(choose another with --port)"
        #expect(result.stderrLines.last == sentence, "\(result)")
        #expect(!result.stderr.contains("errno") && !result.stderr.contains("bind("))
    }

    @Test("limits outside their ranges are usage errors")
    func badLimits() throws {
        let out = try BundledRun.get().out
        for options in [
            ["--max-connections", "0"], ["--max-connections", "99999999"], ["--header-timeout", "0"],
            ["--idle-timeout", "1e9"], ["--write-timeout", "0x10"]
        ] {
            let result = try areawatch(["serve", out] + options)
            #expect(result.status == 1, "\(options): \(result)")
            #expect(result.stderr.contains(options[0]), "\(options): \(result)")
        }
    }
}
