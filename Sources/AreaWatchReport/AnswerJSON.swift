import AreaWatchCore

/// The JSON that `lookup --json` prints and `serve`'s `/lookup` answers (docs/FORMATS.md); the
/// jobs add `query --json`'s and `stats --json`'s.
public enum AnswerJSON {
    /// The widget's answer from the tiles alone (SPEC §8 `lookup`).
    public static func lookup(_ a: TileAnswer) -> JSONValue {
        .object([
            ("lat", .number(a.lat)), ("lon", .number(a.lon)), ("radius_m", .number(a.radius)),
            ("as_of", .string(a.asOf)),
            (a.cellColumn, .string(a.cell)), ("tile", .string(a.tile)), ("current", .optional(a.current)),
            ("previous", .optional(a.previous)), ("delta", .optional(a.delta)),
            ("class", a.shownClass.map { .string($0.rawValue) } ?? .null),
            ("label", .string(a.label)), ("text", .optional(a.text)), ("found", .bool(a.found)),
            ("p_change", a.pChange.map { .number($0) } ?? .null), ("change", .string(a.change.rawValue)),
            ("coverage", .string(a.coverage.rawValue))
        ])
    }
}
