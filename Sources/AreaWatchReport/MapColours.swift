import AreaWatchCore

/// The colours a map of the grid paints with, the report's own (`HTMLStyle`, `HTMLEHSA`), so the
/// report and `serve`'s map show a class, a change or an emerging-hot-spot label alike.
public enum MapColours {
    /// Each class with its colour, safe to dangerous.
    public static var classes: [(name: String, colour: String)] {
        SafetyClass.allCases.map { ($0.rawValue, HTMLStyle.colour($0)) }
    }

    /// Each change (SPEC §12) with its colour: a rise in the dangerous class's red, a fall in the
    /// cold spots' blue, none grey.
    public static let changes: [(name: String, colour: String)] = [
        ("rise", HTMLStyle.colour(.dangerous)), ("fall", HTMLEHSA.colour(.consecutiveCold)), ("none", "#bbbbbb")
    ]

    /// Each emerging-hot-spot label (SPEC §13) with its colour, in SPEC order.
    public static var hotSpotLabels: [(name: String, colour: String)] {
        HotSpotLabel.allCases.map { ($0.rawValue, HTMLEHSA.colour($0)) }
    }
}
