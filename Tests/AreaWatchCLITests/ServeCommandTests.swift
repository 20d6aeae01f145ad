import AreaWatchTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `areawatch serve` end to end (SPEC §14): the binary on a free loopback port over a report of
/// the bundled job; answers equal to `lookup --json`; a report published to the same folder by
/// `areawatch report` served without a restart while requests never fail; SIGTERM exits 0.
@Suite("serve", .timeLimit(.minutes(60)))
struct ServeCommandTests {
    @Test("lookups, reload under load, graceful SIGTERM")
    func serveReloadAndShutdown() throws {
        let run = try BundledRun.get()
        let scratch = try TempDir("areawatch-serve")
        let out = scratch.sub("report")
        let report = ["report", "--db", run.store, "--out", out, "--precision", "7", "--radius", "1000"]
        try areawatchOK(report + ["--as-of", Datasets.asOf])
        let server = try Spawned(["serve", out, "--port", "0", "--reload-ms", "50"])
        defer { server.kill(SIGKILL) }
        let base = try waitForListening(server)

        // The same bytes as `lookup --json`, at a reported cell and far from any incident.
        for (lat, lon) in [("53.7248", "-1.8612"), ("53.9", "-1.5")] {
            let answer = try HTTP.get(base + "/v1/safety?lat=\(lat)&lon=\(lon)")
            #expect(answer.status == 200)
            let lookup = try areawatchOK(["lookup", "--tiles", out + "/tiles", "--lat", lat, "--lon", lon, "--json"])
            #expect(answer.body == lookup.stdout)
        }
        #expect(try HTTP.get(base + "/v1/safety?lat=91&lon=0").status == 400)

        // Load while the next report is published to the same folder.
        let failures = ServeCounter(), answers = ServeCounter(), stop = ServeFlag()
        let readers = (0..<3).map { k in
            Thread.detachNewThreadAndReturn {
                var seenNew = false
                while !stop.value {
                    guard let r = try? HTTP.get(base + "/v1/safety?lat=53.72\(k)&lon=-1.86"), r.status == 200 else {
                        failures.add()
                        continue
                    }
                    let isNew = r.body.contains("\"as_of\": \"2018-06-30T23:59:59Z\"")
                    if !isNew && !r.body.contains("\"as_of\": \"2018-07-31T23:59:59Z\"") { failures.add() }
                    // Once a reader saw the new report, it never sees the old one again.
                    if seenNew && !isNew { failures.add() }
                    seenNew = seenNew || isNew
                    answers.add()
                }
            }
        }
        try areawatchOK(report + ["--as-of", "2018-06-30T23:59:59Z"])
        let deadline = monotonicNow() + 10
        var reloaded = false
        while monotonicNow() < deadline && !reloaded {
            reloaded =
                (try? HTTP.get(base + "/tilejson.json"))?.body.contains("\"as_of\": \"2018-06-30T23:59:59Z\"") == true
            usleep(20_000)
        }
        usleep(200_000)
        stop.value = true
        for wait in readers { wait() }
        #expect(reloaded, "the new report is served without a restart")
        #expect(failures.value == 0, "\(failures.value) failed or mixed answers of \(answers.value)")
        #expect(answers.value > 50)
        let newAnswer = try HTTP.get(base + "/v1/safety?lat=53.7248&lon=-1.8612")
        let lookup = try areawatchOK([
            "lookup", "--tiles", out + "/tiles", "--lat", "53.7248", "--lon", "-1.8612", "--json"
        ])
        #expect(newAnswer.body == lookup.stdout)

        server.kill(SIGTERM)
        let ended = server.wait(timeout: 20)
        #expect(ended.status == 0, "\(ended)")
        #expect(ended.stderr.contains("loaded a new report folder"))
        #expect(ended.stderr.contains("\"GET /v1/safety?lat=91&lon=0\" 400"))
    }

    /// The base URL once the server printed `listening on http://HOST:PORT`.
    func waitForListening(_ server: Spawned) throws -> String {
        let deadline = monotonicNow() + 30
        while monotonicNow() < deadline {
            if let ended = server.poll() {
                Issue.record("serve ended: \(ended)")
                break
            }
            if let text = try? String(contentsOfFile: server.errPath, encoding: .utf8),
                let range = text.range(of: "listening on http://")
            {
                let rest = text[range.upperBound...]
                if let end = rest.firstIndex(of: "\n") { return "http://" + rest[..<end] }
            }
            usleep(20_000)
        }
        throw HTTP.Failure(message: "serve did not start listening")
    }
}

final class ServeCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() {
        lock.lock()
        n += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return n
    }
}

final class ServeFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    var value: Bool {
        get {
            lock.lock()
            defer { lock.unlock() }
            return flag
        }
        set {
            lock.lock()
            flag = newValue
            lock.unlock()
        }
    }
}

extension Thread {
    /// A thread running `body`, and a way to wait for its end.
    static func detachNewThreadAndReturn(_ body: @escaping @Sendable () -> Void) -> () -> Void {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        return { done.wait() }
    }
}
