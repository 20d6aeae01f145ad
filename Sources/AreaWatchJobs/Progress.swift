import Glibc
import AreaWatchCore

/// Progress and log lines on stderr: a redrawn bar on a terminal, plain lines otherwise (at most
/// one every few seconds), nothing but warnings and errors with `--quiet`.
public final class ProgressReporter: @unchecked Sendable {
    public let quiet: Bool
    private let terminal: Bool
    private var lastDraw = 0.0
    private var barVisible = false
    private let start = MonotonicClock.now()

    public init(quiet: Bool) {
        self.quiet = quiet
        terminal = isatty(2) == 1
    }

    public static func now() -> Double { MonotonicClock.now() }

    /// Seconds since this reporter was made.
    public var elapsed: Double { MonotonicClock.now() - start }

    /// A log line (always shown unless quiet).
    public func log(_ message: String) {
        guard !quiet else { return }
        clearBar()
        emit("areawatch: \(TerminalText.escaped(message))\n")
    }

    /// A warning (shown even when quiet).
    public func warn(_ message: String) {
        clearBar()
        emit("areawatch: warning: \(TerminalText.escaped(message))\n")
    }

    /// Progress of a long step: `done` of `total` units, with a short label.
    public func update(_ label: String, done: Double, total: Double, detail: String = "") {
        guard !quiet else { return }
        let now = MonotonicClock.now()
        let fraction = total > 0 ? min(1, max(0, done / total)) : 0
        if terminal {
            guard now - lastDraw >= 0.1 || fraction >= 1 else { return }
            lastDraw = now
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            emit("\r\(TerminalText.escaped(label)) [\(bar)] \(Int(fraction * 100))% \(detail)\u{1B}[K")
            barVisible = true
        } else {
            guard now - lastDraw >= 5 else { return }
            lastDraw = now
            emit("areawatch: \(TerminalText.escaped(label)): \(Int(fraction * 100))% \(detail)\n")
        }
    }

    private func clearBar() {
        if barVisible {
            emit("\r\u{1B}[K")
            barVisible = false
        }
    }

    private func emit(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}
