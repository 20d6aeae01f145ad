import AreaWatchCore

/// Where a record sits in its file, as the rejects file names it (SPEC §3): the 1-based line
/// for CSV and NDJSON, `posts.<id>` or `<id>` in id → post maps, `[i]` in arrays, `features[i]`
/// in GeoJSON.
public enum RecordLocation: Sendable, Equatable, CustomStringConvertible {
    case line(Int)
    case member(path: String?, name: String)
    case element(path: String?, index: Int)

    public var description: String {
        switch self {
        case .line(let n): return String(n)
        case .member(let path, let name): return path.map { "\($0).\(name)" } ?? name
        case .element(let path, let index): return (path ?? "") + "[\(index)]"
        }
    }
}

/// One record as a reader delivers it: an incident ready for its key, or a reject with where it
/// sits and the id it carries when that could be read (for the rejects file).
///
/// An enum handed over as `consuming`, so an accepted incident moves to the keyer and the sink
/// without a copy (a struct holding a `Result` cost a copy and a destroy of every incident).
enum SourceRecord {
    case accepted(Incident)
    case rejected(RejectReason, location: RecordLocation, idHint: String?)

    init(outcome: Result<Incident, RejectReason>, location: RecordLocation, idHint: String?) {
        switch consume outcome {
        case .success(let incident): self = .accepted(consume incident)
        case .failure(let reason): self = .rejected(reason, location: location, idHint: idHint)
        }
    }
}

/// A reader of one input file's records (CSV, or one of the JSON shapes).
protocol RecordSource: AnyObject {
    /// Calls `body` for every record in file order. Throws `InputError` when the file turns out
    /// not to be readable as a whole (the caller discards everything of the file).
    func forEachRecord(_ body: (consuming SourceRecord) throws -> Void) throws

    /// The raw text of the record last delivered, cut for the rejects file (valid only inside
    /// the `forEachRecord` callback).
    func currentExcerpt() -> String

    /// The value that earned the record last delivered its reject `reason` (the time text for
    /// time reasons, the coordinates for coordinate reasons), for a message; nil when there is
    /// no one value (valid only inside the `forEachRecord` callback).
    func currentValue(for reason: RejectReason) -> String?

    /// Content bytes (decompressed, from the start of the source) up to the end of the record
    /// last delivered, or a little before it; for progress (valid only inside the
    /// `forEachRecord` callback).
    var contentOffset: Int64 { get }
}

/// Reject excerpts: at most 200 characters of the raw record, invalid UTF-8 repaired.
enum Excerpt {
    static let maxCharacters = 200

    static func make(_ bytes: Span<UInt8>) -> String {
        var text = bytes.extracting(first: maxCharacters * 4).decodedString
        // "\r\n" is one Character in Swift: compare it too, or CRLF files keep their line ends.
        while let last = text.last, last == "\n" || last == "\r" || last == "\r\n" { text.removeLast() }
        if text.count > maxCharacters { text = String(text.prefix(maxCharacters)) }
        return text
    }
}
