import AreaWatchTestSupport
import Foundation

/// python3 with the PyPI `pmtiles` package, when installed (the tests that need it skip otherwise).
struct PythonTools {
    static func withPMTiles() -> PythonTools? {
        PythonCheck.run(["-c", "import pmtiles.writer"])?.status == 0 ? PythonTools() : nil
    }

    /// Runs `python3 ARGS`; throws with its output when it fails.
    func run(_ arguments: [String]) throws {
        guard let check = PythonCheck.run(arguments) else {
            throw NSError(
                domain: "python3", code: -1, userInfo: [NSLocalizedDescriptionKey: "python3 could not be started"])
        }
        guard check.status == 0 else {
            throw NSError(
                domain: "python3", code: Int(check.status),
                userInfo: [NSLocalizedDescriptionKey: check.output])
        }
    }
}
