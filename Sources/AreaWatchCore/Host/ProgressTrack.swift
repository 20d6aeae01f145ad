/// How progress bars are shown: `AREAWATCH_PROGRESS` (auto, always, never) and whether stderr
/// is a terminal decide it; `--quiet` hides them whatever this says.
public enum ProgressDisplay: Sendable, Equatable {
    /// A bar redrawn in place (a terminal), its last state kept as a line.
    case bar
    /// Plain lines at most one every few seconds, and each bar's last line (not a terminal).
    case throttledLines
    /// A plain line at every update (`AREAWATCH_PROGRESS=always`: logs, tests).
    case everyUpdate
    /// No progress lines (`AREAWATCH_PROGRESS=never`); log lines stay.
    case off

    /// The display for the setting `value` (nil: unset), and a problem when the value is none
    /// of the known ones (then shown as for `auto`).
    public static func choose(setting value: String?, terminal: Bool) -> (display: ProgressDisplay, problem: String?) {
        let automatic: ProgressDisplay = terminal ? .bar : .throttledLines
        switch value.map({ $0.lowercased() }) {
        case nil, "", "auto": return (automatic, nil)
        case "always": return (.everyUpdate, nil)
        case "never": return (.off, nil)
        case .some:
            return (automatic, "AREAWATCH_PROGRESS=\(value!) is not auto, always or never: progress shown as for auto")
        }
    }
}

/// The state of one progress bar, apart from where it is drawn: its fraction never goes back
/// while the label stays the same, it reaches 100 % only when `done` reaches `total`, and the
/// same text is not shown twice.
public struct ProgressTrack: Sendable {
    /// What one update shows.
    public struct Step: Equatable, Sendable {
        public var fraction: Double
        /// Whole percent, rounded down: 100 only for the last step of a bar.
        public var percent: Int
        /// `done` has reached `total`: the bar's last line.
        public var final: Bool
        /// The same percent and detail as the step shown last: nothing new to draw.
        public var repeated: Bool
        /// The first step of a bar.
        public var started: Bool
        /// Some earlier step of this bar was shown.
        public var shownBefore: Bool
    }

    public private(set) var label: String?
    private var fraction = 0.0
    private var shown: (percent: Int, detail: String)?
    /// The bar has had its last step: another update of the same label that is not that same
    /// last step again starts a new bar (two files of the same name, one after the other).
    private var completed = false

    public init() {}

    /// The step for `done` of `total` units; a new label starts a new bar. A total of 0 is
    /// complete at once (an empty file).
    public mutating func advance(_ label: String, done: Double, total: Double, detail: String) -> Step {
        let final = done >= total
        let started = label != self.label || (completed && !(final && shown?.detail == detail))
        if started {
            self.label = label
            fraction = 0
            shown = nil
            completed = false
        }
        let raw = final ? 1 : max(0, done / total)
        // Estimates (compressed input) may waver; a bar that moved back would look like a fault.
        fraction = max(fraction, final ? 1 : min(raw, 0.999_999))
        let percent = Int(fraction * 100)
        let repeated = shown.map { $0.percent == percent && $0.detail == detail } ?? false
        if final { completed = true }
        return Step(
            fraction: fraction, percent: percent, final: final, repeated: repeated, started: started,
            shownBefore: shown != nil)
    }

    /// The step was drawn.
    public mutating func didShow(_ step: Step, detail: String) {
        shown = (step.percent, detail)
    }
}
