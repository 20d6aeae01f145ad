import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Glibc
import Testing

// Helpers of the end-to-end tests: they run the built `areawatch` binary as a user would (the
// swift-argument-parser way), in scratch folders, and read what it wrote.

/// The package root, found from this file's place in `Tests/AreaWatchCLITests/`.
let packageRoot: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// A bundled dataset file, by its path under `datasets/`.
func dataset(_ relative: String) -> String { packageRoot + "/datasets/" + relative }

enum Datasets {
    static let police = ["2016-07", "2017-07", "2018-07"].map { dataset("police-uk/\($0)-calderdale-street.csv") }
    static let watchme = [
        dataset("watchme/watchme-export-2018-07-31.json"), dataset("watchme/watchme-export-2018-08-01-edits.json")
    ]
    static let all = police + watchme
    static let areas = dataset("areas/calderdale-areas.geojson")
    static let poi = dataset("poi.csv")
    /// The as-of of the bundled nightly job (areawatch.toml).
    static let asOf = "2018-07-31T23:59:59Z"
}

/// A fixture of `Tests/AreaWatchCLITests/Fixtures`, as copied into the test bundle.
func fixturePath(_ name: String) throws -> String {
    let base = try #require(Bundle.module.resourcePath, "the test bundle has no resources")
    let path = base + "/Fixtures/" + name
    try #require(FileManager.default.fileExists(atPath: path), "missing fixture \(name)")
    return path
}

// MARK: - The binary

enum Binary {
    /// The `areawatch` product built beside the test bundle (`AREAWATCH_BIN` overrides).
    static let path: String? = {
        var candidates: [String] = []
        if let override = ProcessInfo.processInfo.environment["AREAWATCH_BIN"], !override.isEmpty {
            candidates.append(override)
        }
        #if os(macOS)
            for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
                candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("areawatch").path)
            }
        #else
            // On Linux the test runner is an executable in the products folder.
            candidates.append(Bundle.main.bundleURL.appendingPathComponent("areawatch").path)
        #endif
        candidates.append(packageRoot + "/.build/debug/areawatch")
        return candidates.first { access($0, X_OK) == 0 }
    }()

    static func require(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(
            Binary.path,
            "the areawatch binary is not built: run `swift build --product areawatch` (or `make test`) first",
            sourceLocation: sourceLocation)
    }
}

// MARK: - Running it

/// Seconds on a monotonic clock.
func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func sleepSeconds(_ seconds: Double) {
    guard seconds > 0 else { return }
    usleep(useconds_t(min(seconds, 3600) * 1_000_000))
}

/// What one run of the binary did.
struct CommandResult: CustomStringConvertible, Sendable {
    var arguments: [String]
    /// The exit status; -1 when a signal ended the process.
    var status: Int32
    var signal: Int32?
    var stdout: String
    var stderr: String
    var seconds: Double

    var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
    var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
    var killed: Bool { signal != nil }

    var description: String {
        let how = signal.map { "killed by signal \($0)" } ?? "exit \(status)"
        return "areawatch \(arguments.joined(separator: " ")) → \(how) after \(String(format: "%.2f", seconds)) s\n"
            + "--- stdout:\n\(stdout.prefix(4000))\n--- stderr:\n\(stderr.prefix(4000))"
    }
}

/// Where the children's stdout/stderr go before they are read.
private let captureFolder: String = {
    var template = Array(
        (NSTemporaryDirectory() as NSString).appendingPathComponent("areawatch-cli-io-XXXXXX").utf8CString)
    let made = mkdtemp(&template).map { String(cString: $0) } ?? NSTemporaryDirectory()
    ScratchRegistry.register(made)
    return made
}()

private let spawnCounter = Counter()

final class Counter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

/// `posix_spawn_file_actions_addchdir_np` (glibc ≥ 2.29) is not exported by the Glibc module.
private typealias AddChdir =
    @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
private let addChdir: AddChdir? = {
    #if os(Linux)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") else {
            return nil
        }
        return unsafeBitCast(symbol, to: AddChdir.self)
    #else
        return nil
    #endif
}()

/// A running `areawatch` process (posix_spawn, output to files, no pipes to drain).
final class Spawned: @unchecked Sendable {
    let pid: pid_t
    let arguments: [String]
    let started: Double
    private let outPath: String
    let errPath: String
    private var result: CommandResult?

    /// `environment`: variables set for the child on top of this process's own.
    init(_ arguments: [String], cwd: String? = nil, environment: [String: String] = [:]) throws {
        let executable = try Binary.require()
        self.arguments = arguments
        let n = spawnCounter.next()
        outPath = "\(captureFolder)/\(n).out"
        errPath = "\(captureFolder)/\(n).err"

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if let cwd {
            let add = try #require(addChdir, "this C library cannot set a child's working folder")
            _ = cwd.withCString { add(&actions, $0) }
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var child: pid_t = 0
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { $1 }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in envp { free(p) } }
        let status = argv.withUnsafeBufferPointer { buffer in
            envp.withUnsafeBufferPointer { env in
                posix_spawn(
                    &child, executable, &actions, nil, UnsafeMutablePointer(mutating: buffer.baseAddress!),
                    UnsafeMutablePointer(mutating: env.baseAddress!))
            }
        }
        guard status == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO)
        }
        pid = child
        started = monotonicNow()
    }

    /// The result once the process has ended, else nil (does not block).
    func poll() -> CommandResult? {
        if let result { return result }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        guard r == pid else { return nil }
        finish(status)
        return result
    }

    /// Waits for the end; a process still running `timeout` seconds after the call is killed (and
    /// the test fails). Counted from the call, not from the start: a server asked to stop after a
    /// long test has `timeout` seconds to do so however long it served.
    func wait(timeout: Double = 120, sourceLocation: SourceLocation = #_sourceLocation) -> CommandResult {
        let called = monotonicNow()
        while true {
            if let r = poll() { return r }
            if monotonicNow() - called > timeout {
                Issue.record(
                    "areawatch \(arguments.joined(separator: " ")) still runs after \(timeout) s: killed",
                    sourceLocation: sourceLocation)
                kill(SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
                finish(status)
                return result!
            }
            usleep(2000)
        }
    }

    func kill(_ signal: Int32 = SIGKILL) {
        guard result == nil else { return }
        _ = Glibc.kill(pid, signal)
    }

    private func finish(_ status: Int32) {
        let seconds = monotonicNow() - started
        let signalled = (status & 0x7f) != 0
        let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        unlink(outPath)
        unlink(errPath)
        result = CommandResult(
            arguments: arguments, status: signalled ? -1 : (status >> 8) & 0xff,
            signal: signalled ? status & 0x7f : nil, stdout: out, stderr: err, seconds: seconds)
    }
}

/// Runs `areawatch ARGUMENTS` to its end.
///
/// A hung binary is caught here, by `timeout`, not by the suites' time limits: a suite's limit
/// (60 minutes) runs from when Swift Testing starts its tests, and on a 2-core machine most of
/// them then wait for a thread of the cooperative pool while others run, so a limit shorter than
/// the whole run fails tests that have not yet run a line.
@discardableResult
func areawatch(
    _ arguments: [String], cwd: String? = nil, timeout: Double = 120, environment: [String: String] = [:],
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> CommandResult {
    try Spawned(arguments, cwd: cwd, environment: environment).wait(timeout: timeout, sourceLocation: sourceLocation)
}

@discardableResult
func areawatch(_ arguments: String..., cwd: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> CommandResult
{
    try areawatch(arguments, cwd: cwd, sourceLocation: sourceLocation)
}

/// Runs the command and requires exit status 0.
@discardableResult
func areawatchOK(_ arguments: [String], cwd: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> CommandResult
{
    let r = try areawatch(arguments, cwd: cwd, sourceLocation: sourceLocation)
    try #require(r.status == 0, "\(r)", sourceLocation: sourceLocation)
    return r
}

// MARK: - Scratch folders and files

func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
}

func readBytes(_ path: String) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw CocoaError(.fileReadNoSuchFile, userInfo: ["path": path])
    }
    return [UInt8](data)
}

func readText(_ path: String) throws -> String {
    String(decoding: try readBytes(path), as: UTF8.self)
}

/// Every regular file under `root`, by path relative to it, with its bytes.
func readTree(_ root: String) throws -> [String: [UInt8]] {
    var files: [String: [UInt8]] = [:]
    guard let walker = FileManager.default.enumerator(atPath: root) else { return files }
    while let relative = walker.nextObject() as? String {
        var isDirectory: ObjCBool = false
        let full = root + "/" + relative
        if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
            files[relative] = try readBytes(full)
        }
    }
    return files
}

/// Entry names of a folder (not recursive), sorted; empty when it does not exist.
func listFolder(_ path: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
}

func copyItem(_ from: String, _ to: String) throws {
    if exists(to) { try FileManager.default.removeItem(atPath: to) }
    try FileManager.default.copyItem(atPath: from, toPath: to)
}

func removeItem(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

/// An executable on PATH, or nil.
func findTool(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for dir in path.split(separator: ":") {
        let candidate = "\(dir)/\(name)"
        if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
}

/// Runs a helper tool (python3, ogrinfo) to its end.
func runTool(_ tool: String, _ arguments: [String], timeout: Double = 60) throws -> CommandResult {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    let n = spawnCounter.next()
    let outPath = "\(captureFolder)/tool-\(n).out", errPath = "\(captureFolder)/tool-\(n).err"
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let argv: [UnsafeMutablePointer<CChar>?] = ([tool] + arguments).map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    var pid: pid_t = 0
    let started = monotonicNow()
    let spawned = argv.withUnsafeBufferPointer { buffer in
        posix_spawn(&pid, tool, &actions, nil, UnsafeMutablePointer(mutating: buffer.baseAddress!), environ)
    }
    guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
    var status: Int32 = 0
    while waitpid(pid, &status, WNOHANG) != pid {
        if monotonicNow() - started > timeout { _ = kill(pid, SIGKILL) }
        usleep(2000)
    }
    defer {
        unlink(outPath)
        unlink(errPath)
    }
    return CommandResult(
        arguments: [tool] + arguments, status: (status & 0x7f) != 0 ? -1 : (status >> 8) & 0xff,
        signal: (status & 0x7f) != 0 ? status & 0x7f : nil,
        stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
        stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
        seconds: monotonicNow() - started)
}

// MARK: - Seeded randomness

/// Seeded kill moments for the SIGKILL trials: fractions of a run's duration, one drawn in
/// each of `trials` equal strata of [0, 1) and then shuffled, so that the kills cover the whole
/// run (random, but never bunched at one end).
func killFractions(trials: Int, seed: UInt64) -> [Double] {
    var rng = SplitMix64(seed: seed)
    var fractions = (0..<trials).map { (Double($0) + rng.unit()) / Double(trials) }
    for i in stride(from: fractions.count - 1, to: 0, by: -1) {
        fractions.swapAt(i, Int(rng.next() % UInt64(i + 1)))
    }
    return fractions
}

/// FNV-1a, 64 bits: a digest that does not depend on the engine.
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        for b in bytes {
            value ^= UInt64(b)
            value = value &* 0x0000_0100_0000_01B3
        }
    }

    mutating func add(_ v: UInt64) {
        withUnsafeBytes(of: v.littleEndian) { add($0) }
    }
}

/// `%.Nf` as C's printf writes it.
func fixed(_ value: Double, _ decimals: Int) -> String {
    String(format: "%.\(decimals)f", value)
}

/// A double with every digit needed to read it back exactly (for --lat/--lon).
func exact(_ value: Double) -> String { "\(value)" }
