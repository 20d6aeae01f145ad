import Foundation

/// A run of `python3 ARGS` to its end: the exit status and stdout and stderr together. The tests'
/// checker scripts (independent readers of what areawatch writes) exit 3 when a module they need
/// is missing; `env` exits 127 when python3 itself is.
public struct PythonCheck: Sendable {
    public let status: Int32
    public let output: String

    /// Why the check could not run (python3 or a module it needs is missing), or nil when it ran.
    public var missing: String? {
        switch status {
        case 3: output.trimmingCharacters(in: .whitespacesAndNewlines)
        case 127: "python3 is not available"
        default: nil
        }
    }

    /// Runs python3 with `arguments`; nil when no process could be started.
    public static func run(_ arguments: [String]) -> PythonCheck? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return nil }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return PythonCheck(status: process.terminationStatus, output: output)
    }
}
