/// The column or member name nearest to one a `--column` mapping asked for: the smallest edit
/// distance between the names as SPEC §2.3 compares them (case, spaces, `_` and `-` ignored),
/// the leftmost on a tie. A misspelt `IncidentID_typo` is then answered with `IncidentID`.
enum ClosestName {
    /// Names are compared on their first bytes only: a message needs a hint, not an exact
    /// distance between two 10 kB header cells.
    static let comparedBytes = 64

    static func closest(to wanted: String, among names: [String]) -> String? {
        let target = Array(normalizedName(wanted).utf8.prefix(comparedBytes))
        var best: (name: String, distance: Int)?
        for name in names where !name.isEmpty {
            let d = distance(target, Array(normalizedName(name).utf8.prefix(comparedBytes)))
            if best == nil || d < best!.distance { best = (name, d) }
        }
        return best?.name
    }

    /// Levenshtein distance (insert, delete, replace a byte), two rows.
    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let replace = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(replace, previous[j] + 1, current[j - 1] + 1)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// `name`, quoted and cut for a one-line message.
    static func quoted(_ name: String) -> String {
        "'" + cut(name, to: 80) + "'"
    }

    /// `text` cut to `limit` characters and `…`, for a one-line message.
    static func cut(_ text: String, to limit: Int = 120) -> String {
        text.count > limit ? String(text.prefix(limit)) + "…" : text
    }
}
