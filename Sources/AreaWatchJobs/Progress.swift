import AreaWatchCore
import Glibc
import Synchronization

/// Progress and log lines on stderr: a redrawn bar on a terminal, plain lines otherwise (at most
/// one every few seconds, and each bar's last line), nothing but warnings and errors with
/// `--quiet`. `AREAWATCH_PROGRESS` (auto, always, never) overrides the choice (`ProgressDisplay`).
/// Long steps that have no bar are phases: a line when each starts, its duration when it ends.
///
/// Updates may come from a parsing thread while the calling thread writes: the state is behind
/// a lock, taken once per update (every block or 65,536 records), never per record.
public final class ProgressReporter: @unchecked Sendable {
    public let quiet: Bool
    public let display: ProgressDisplay
    private let start = MonotonicClock.now()
    private let state = Mutex(State())

    private struct State {
        var track = ProgressTrack()
        var lastDraw = -Double.infinity
        /// When the current bar began: plain lines start a few seconds into a bar.
        var barStarted = 0.0
        var barVisible = false
        var phase: (name: String, started: Double)?
    }

    /// `display`: as `AREAWATCH_PROGRESS` and stderr decide, unless given.
    public init(quiet: Bool, display: ProgressDisplay? = nil) {
        self.quiet = quiet
        if let display {
            self.display = display
            return
        }
        let setting = getenv("AREAWATCH_PROGRESS").map { String(cString: $0) }
        let (chosen, problem) = ProgressDisplay.choose(setting: setting, terminal: isatty(2) == 1)
        self.display = chosen
        if let problem, !quiet { warn(problem) }
    }

    public static func now() -> Double { MonotonicClock.now() }

    /// Seconds since this reporter was made.
    public var elapsed: Double { MonotonicClock.now() - start }

    /// A log line (always shown unless quiet).
    public func log(_ message: String) {
        guard !quiet else { return }
        state.withLock { state in
            clearBar(&state)
            emit("areawatch: \(TerminalText.escaped(message))\n")
        }
    }

    /// A warning (shown even when quiet).
    public func warn(_ message: String) {
        state.withLock { state in
            clearBar(&state)
            emit("areawatch: warning: \(TerminalText.escaped(message))\n")
        }
    }

    /// Progress of a long step: `done` of `total` units, with a short label and a detail (the
    /// count so far). The bar ends, and its last line stays, when `done` reaches `total`.
    public func update(_ label: String, done: Double, total: Double, detail: String = "") {
        guard !quiet, display != .off else { return }
        state.withLock { state in
            let step = state.track.advance(label, done: done, total: total, detail: detail)
            guard !step.repeated else { return }
            let now = MonotonicClock.now()
            if step.started { state.barStarted = now }
            switch display {
            case .bar:
                guard step.final || now - state.lastDraw >= 0.1 else { return }
                let width = 30
                let filled = Int(step.fraction * Double(width))
                let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
                emit(
                    "\r\(TerminalText.escaped(label)) [\(bar)] \(step.percent)% \(detail)\u{1B}[K"
                        + (step.final ? "\n" : ""))
                state.barVisible = !step.final
            case .throttledLines:
                // A short step shows nothing (its summary line follows); a long one a line every
                // few seconds and, once it has shown one, its last.
                guard step.final ? step.shownBefore : now - max(state.lastDraw, state.barStarted) >= 5 else { return }
                emit("areawatch: \(TerminalText.escaped(label)): \(step.percent)% \(detail)\n")
            case .everyUpdate:
                emit("areawatch: \(TerminalText.escaped(label)): \(step.percent)% \(detail)\n")
            case .off:
                return
            }
            state.lastDraw = now
            state.track.didShow(step, detail: detail)
        }
    }

    /// A long step without a bar starts (ending the phase before it, with its duration):
    /// "NAME …" now, "NAME: 1.23 s" when `endPhase` or the next phase comes.
    public func beginPhase(_ name: String) {
        guard !quiet else { return }
        state.withLock { state in
            clearBar(&state)
            closePhase(&state)
            state.phase = (name, MonotonicClock.now())
            emit("areawatch: \(TerminalText.escaped(name)) …\n")
        }
    }

    /// The current phase ended well: its duration is shown. A failed step leaves it to its
    /// error message (`dropPhase`).
    public func endPhase() {
        guard !quiet else { return }
        state.withLock { closePhase(&$0) }
    }

    /// The current phase ended with an error: no duration line.
    public func dropPhase() {
        state.withLock { $0.phase = nil }
    }

    /// `body` as one phase named `name`.
    public func phase<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        beginPhase(name)
        do {
            let result = try body()
            endPhase()
            return result
        } catch {
            dropPhase()
            throw error
        }
    }

    private func closePhase(_ state: inout State) {
        guard let phase = state.phase else { return }
        state.phase = nil
        let seconds = NumberFormat.fixed(MonotonicClock.now() - phase.started, decimals: 2)
        emit("areawatch: \(TerminalText.escaped(phase.name)): \(seconds) s\n")
    }

    private func clearBar(_ state: inout State) {
        if state.barVisible {
            emit("\r\u{1B}[K")
            state.barVisible = false
        }
    }

    private func emit(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}
