import AreaWatchCore
import Glibc

/// The three fuzz targets. Each checks invariants of one input and returns what failed (empty
/// when the input passed); a crash or a hang is a failure too, caught by libFuzzer.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The CSV reader (`--format csv`), against an independent record model.
    case csv
    /// The JSON reader in every SPEC §2.1 shape, detected by content, against a strict JSON model.
    case json
    /// Time and coordinate parsing, alone and through a CSV and a JSON record.
    case values

    public func check(_ data: [UInt8]) -> [String] {
        switch self {
        case .csv: return CSVFuzz.check(data)
        case .json: return JSONFuzz.check(data)
        case .values: return ValuesFuzz.check(data)
        }
    }
}

/// What the fuzz executables do: libFuzzer's callback, and the replay tool of the normal build.
public enum FuzzDriver {
    /// libFuzzer's `LLVMFuzzerTestOneInput`: a failed invariant aborts, so libFuzzer keeps the
    /// input as a crash artifact.
    public static func testOneInput(_ target: FuzzTarget, _ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        let bytes = (size > 0 && data != nil) ? Array(UnsafeBufferPointer(start: data, count: size)) : []
        let failures = target.check(bytes)
        if !failures.isEmpty {
            report(
                "invariant failed (\(target.rawValue), \(bytes.count) bytes):\n"
                    + failures.map { "  - " + $0 }.joined(separator: "\n") + "\n")
            abort()
        }
        return 0
    }

    /// The executables' entry point. With `-DFUZZING` (and `-sanitize=fuzzer`) it hands control to
    /// libFuzzer's driver: SwiftPM links an executable's entry point as `main`, so libFuzzer's own
    /// `main` is never used. Otherwise it replays the files and folders given as arguments.
    public static func main(
        _ target: FuzzTarget,
        testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> Never {
        #if FUZZING
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
        #else
            exit(replay(target, arguments: Array(CommandLine.arguments.dropFirst())))
        #endif
    }

    /// Replay: runs the target over every file given and every regular file under every folder
    /// given (arguments starting with `-` are ignored, so libFuzzer command lines work too).
    /// Prints one line per input; returns 1 when any input failed.
    public static func replay(_ target: FuzzTarget, arguments: [String]) -> Int32 {
        var files: [String] = []
        for argument in arguments where !argument.hasPrefix("-") {
            collect(argument, into: &files)
        }
        if files.isEmpty {
            report(
                "usage: Fuzz\(target.rawValue.uppercased()) FILE|DIR... — replays inputs through the \(target.rawValue) invariants\n"
            )
            return 1
        }
        var failed = 0
        for path in files {
            guard let bytes = readFile(path) else {
                report("UNREADABLE \(path)\n")
                failed += 1
                continue
            }
            let failures = target.check(bytes)
            if failures.isEmpty {
                print("ok    \(path) (\(bytes.count) bytes)")
            } else {
                failed += 1
                print("FAIL  \(path) (\(bytes.count) bytes)")
                for f in failures { print("      - \(f)") }
            }
        }
        print("\(files.count) inputs, \(failed) failed")
        return failed == 0 ? 0 : 1
    }

    private static func collect(_ path: String, into files: inout [String]) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            files.append(path) // reported as unreadable
            return
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            guard let entries = DirectoryListing.entries(of: path) else { return }
            let names = entries.map(\.name).filter { !$0.hasPrefix(".") }
            for name in names.sorted() { collect(path + "/" + name, into: &files) }
        } else if (info.st_mode & S_IFMT) == S_IFREG {
            files.append(path)
        }
    }

    static func readFile(_ path: String) -> [UInt8]? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
            if n > 0 { out.append(contentsOf: chunk[0..<n]) }
            if n < chunk.count { break }
        }
        return ferror(f) == 0 ? out : nil
    }

    static func report(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}

/// Collects failed checks of one input.
struct Findings {
    private(set) var messages: [String] = []

    mutating func fail(_ message: String) {
        if messages.count < 20 { messages.append(message) }
    }

    mutating func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fail(message()) }
    }
}

/// A cheap, deterministic number from an input, to vary read sizes and limits per input.
func inputHash(_ data: [UInt8]) -> UInt64 {
    var h: UInt64 = 0xCBF2_9CE4_8422_2325
    for b in data.prefix(256) { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
    return h ^ UInt64(data.count)
}

#if FUZZING
    @_silgen_name("LLVMFuzzerRunDriver")
    private func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt
#endif
