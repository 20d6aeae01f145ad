import ArgumentParser
import AreaWatchJobs
import AreaWatchServe
import Foundation

extension AreaWatch {
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve a report folder over HTTP: lookups, tiles, TileJSON, the map and the report.",
            discussion: """
                Endpoints (docs/FORMATS.md, "HTTP API (serve)"): /v1/safety?lat=&lon=, /tiles/{z}/{x}/{y}.json and .mvt, \
                /tilejson.json, / (the map) and /report.html. A report published in DIR's place is served without a \
                restart. SIGTERM or SIGINT: requests in flight finish, then exit 0.
                """)

        @Argument(help: "The report folder (written by `areawatch report --out DIR`).")
        var dir: String

        @Option(help: "TCP port to listen on (0: any free port, printed on stderr).")
        var port = 8080

        @Option(help: "Address to listen on.")
        var host = "127.0.0.1"

        @Option(help: "Send Access-Control-Allow-Origin with this origin (or *). Default: none.")
        var corsOrigin: String?

        @Option(help: "Folder holding maplibre-gl.js and maplibre-gl.css for the map (default: $AREAWATCH_WEB_DIR, else .build-web/maplibre).")
        var webDir: String?

        @Option(help: "Milliseconds between checks for a newly published report folder.")
        var reloadMs = 250

        @Flag(help: "No access log line per request on stderr.")
        var noAccessLog = false

        func validate() throws {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be within 0…65535") }
            guard (10...60_000).contains(reloadMs) else { throw ValidationError("--reload-ms must be within 10…60000") }
            if let corsOrigin, corsOrigin.isEmpty || corsOrigin.contains(where: { $0.isNewline || $0 == " " }) {
                throw ValidationError("--cors-origin must be * or one origin such as https://example.org")
            }
        }

        func run() throws {
            let config = ServeConfiguration(folder: dir, host: host, port: port, corsOrigin: corsOrigin, webDirectory: webDir,
                                            reloadInterval: .milliseconds(reloadMs), accessLog: !noAccessLog)
            // The commands are synchronous; the server runs on Swift's concurrency pool meanwhile.
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var failure: (any Error)?
            Task {
                do { try await Server.run(config) } catch { failure = error }
                done.signal()
            }
            done.wait()
            if let failure { throw JobError(.inputOrStore, String(describing: failure)) }
        }
    }
}
