import AreaWatchCore

/// A file whose every record was rejected is an input error (SPEC §2.5): nothing of it is
/// stored, and the message says why in terms a user can act on — the most common reason, one
/// value that earned it, and the options that would read it.
enum AllRejected {
    /// Patterns that portals publish, tried on the example to suggest a `--time-format`
    /// (month-first before day-first: US portals are the common case; a day over 12 decides).
    static let commonPatterns = [
        "%m/%d/%Y %I:%M:%S %p", "%m/%d/%Y %I:%M %p", "%m/%d/%Y %H:%M:%S", "%m/%d/%Y %H:%M", "%m/%d/%Y",
        "%d/%m/%Y %H:%M:%S", "%d/%m/%Y %H:%M", "%d/%m/%Y", "%d.%m.%Y %H:%M:%S", "%d.%m.%Y %H:%M", "%d.%m.%Y",
        "%Y-%m-%d %I:%M:%S %p", "%Y/%m/%d %H:%M", "%d-%b-%Y %H:%M:%S", "%d-%b-%Y", "%b %d %Y %I:%M:%S %p",
        "%b %d, %Y", "%B %d, %Y", "%d %B %Y", "%Y%m%d%H%M%S", "%Y%m%d"
    ]

    static func error(
        file: String, report: FileIngestReport, examples: [RejectReason: String],
        options: ReaderOptions
    ) -> InputError {
        // The most common reason; on a tie the first in SPEC §3's table order.
        let (reason, count) = report.rejectsByReason.max { a, b in
            a.value < b.value || (a.value == b.value && a.key > b.key)
        }!
        let others = report.rejectsByReason.filter { $0.key != reason }.sorted { $0.key < $1.key }
            .map { "\($0.key.rawValue) \($0.value)" }
        var message = "every record was rejected (\(report.records) records): \(reason.rawValue) \(count)"
        if !others.isEmpty { message += " (also " + others.joined(separator: ", ") + ")" }
        let example = examples[reason].map(shown)
        switch reason {
        case .invalidTime:
            message += ", e.g. time \(example ?? "?")"
            if let raw = examples[reason], let value = DecimalParsing.parse(raw), TimeParser.isYearLike(value) {
                message += ": \(TimeParser.yearReason)"
            } else if let format = options.timeFormat {
                message += ", which matches neither --time-format '\(format.pattern)' nor an ISO 8601 form"
            } else if let raw = examples[reason], let pattern = suggestion(for: raw) {
                message += "; it reads with --time-format '\(pattern)'"
            }
            message +=
                "; for a portal's local times give --time-format PATTERN and --timezone ZONE, "
                + "for a date and a time in two columns --column time=DATE+TIME"
        case .missingTime:
            message +=
                "; name the time column with --column time=NAME, or --column time=DATE+TIME for a date and a time in two columns"
        case .missingCoordinates, .invalidCoordinates, .nullIsland:
            if let example { message += ", e.g. coordinates \(example)" }
            message +=
                "; name the coordinate columns with --column lat=NAME --column lon=NAME, "
                + "or --column point=NAME for one column holding '(lat, lon)' or 'POINT (lon lat)'"
        case .malformedRecord:
            if let example { message += ", e.g. record \(example)" }
            message += "; check --format, --delimiter and --max-record-bytes"
        }
        return InputError(file: file, message: message)
    }

    /// The first common pattern that reads the value, if any.
    static func suggestion(for value: String) -> String? {
        let bytes = value.utf8.span
        return commonPatterns.first { (try? TimeFormat.compile($0))?.parse(bytes) != nil }
    }

    /// A value quoted for a one-line message, cut to 80 characters.
    static func shown(_ value: String) -> String {
        "\"" + (value.count > 80 ? String(value.prefix(80)) + "…" : value) + "\""
    }
}
