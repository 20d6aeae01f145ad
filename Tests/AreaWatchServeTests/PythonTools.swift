import Foundation

/// python3 with the PyPI `pmtiles` package, when installed (the tests that need it skip otherwise).
struct PythonTools {
    let executable: String

    static func withPMTiles() -> PythonTools? {
        let python = PythonTools(executable: "/usr/bin/env")
        return (try? python.run(["-c", "import pmtiles.writer"])) != nil ? python : nil
    }

    /// Runs `python3 ARGS`; throws with its stderr when it fails.
    func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["python3"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(
                domain: "python3", code: Int(process.terminationStatus),
                userInfo: [NSLocalizedDescriptionKey: String(decoding: message, as: UTF8.self)])
        }
    }
}
