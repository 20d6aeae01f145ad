import AreaWatchCore
import Glibc

/// What a CSV file's header decided, shared by every reader of the file's records: the parallel
/// parse (`ParallelCSVIngest`) starts one reader per block of records with the same layout.
struct CSVLayout: @unchecked Sendable {
    let path: String
    let delimiter: UInt8
    let header: [String]
    let options: ReaderOptions
    let slotColumns: [Int]
    let attributeColumns: [(column: Int, name: [UInt8])]
    let timePartColumn: Int
    let pointColumn: Int
}

/// Records of a CSV file (SPEC §2.2): header row required, delimiter `,` `;` or tab detected
/// from the header unless given, every unmatched column kept as an attribute.
final class CSVRecordSource: RecordSource {
    let scanner: CSVScanner
    let layout: CSVLayout
    private let header: [String]
    private let slotColumns: [Int]
    private let attributeColumns: [(column: Int, name: [UInt8])]
    private var attributes = AttributeWriter()
    private let categories = TextInterner()
    private let times: TimeReader
    private let timePartColumn: Int
    private let pointColumn: Int
    /// Set when the sink tells keys apart by hash (`KeyIdentity.hash`): each
    /// record's id is hashed here, behind these bytes (`--source`'s `SOURCE:`, or none), and no
    /// key text is built; an accepted incident's `key` is then empty.
    var keyHashPrefix: [UInt8]?
    /// The key hash of the record just handed to `forEachRecord`'s body when keys are hashed and
    /// it has an id; nil otherwise (an id-less record is keyed in file order, `IncidentKeyer`).
    private(set) var hashedKey: KeyHash?
    private var keyBytes: [UInt8] = []

    /// Reads the header at the buffer's start. `firstLine`: the line number of the buffer's first
    /// byte (blank lines before it were skipped).
    convenience init(buffer: ChunkBuffer, options: ReaderOptions, firstLine: Int = 1) throws(InputError) {
        let path = buffer.source.path
        let delimiter: UInt8
        if let given = options.delimiter {
            delimiter = given
        } else {
            delimiter = try CSVRecordSource.detectDelimiter(buffer)
        }
        let scanner = CSVScanner(
            buffer: buffer, delimiter: delimiter, maxRecordBytes: options.maxRecordBytes, firstLine: firstLine)
        guard try scanner.next() else {
            throw InputError(file: path, message: "empty file: no CSV header and no JSON value")
        }
        let raw = scanner.rawRecord
        guard !scanner.oversized, !CSVRecordSource.containsNUL(raw.span),
            String(validating: raw, as: UTF8.self) != nil, !scanner.quotingError
        else {
            throw InputError(
                file: path, position: "line \(scanner.recordLine)",
                message: "not a CSV or JSON file (the first line is not a readable CSV header)")
        }
        // One field is no incident file (coordinates and a time take two columns at least), and
        // its first line is not shown: it may be any file's content (a password file's first
        // entry), not a header anyone wrote for areawatch.
        guard scanner.fieldCount > 1 else {
            let delimiterName = delimiter == 9 ? "tab" : "'\(Character(UnicodeScalar(delimiter)))'"
            throw InputError(
                file: path, position: "line \(scanner.recordLine)",
                message: "not a CSV file of incidents: its first line is one field when split at "
                    + "\(delimiterName) (not shown); a CSV header names the coordinate and time columns "
                    + "(--delimiter gives the separator)")
        }
        let header = (0..<scanner.fieldCount).map { String(decoding: scanner.field($0), as: UTF8.self).trimming() }
        let assignment = FieldAssignment(names: header, overrides: options.columns)
        if let unmatched = assignment.unmatched.first {
            throw InputError(
                file: path, position: "line \(scanner.recordLine)",
                message: CSVRecordSource.unmatchedMessage(unmatched, header: header), isUsage: true)
        }
        guard assignment.hasCoordinates else {
            throw InputError(
                file: path, position: "line \(scanner.recordLine)",
                message:
                    "CSV header has no latitude/longitude columns (columns: \(CSVRecordSource.listing(header))); name them with --column lat=NAME --column lon=NAME"
            )
        }
        let layout = CSVLayout(
            path: path, delimiter: delimiter, header: header, options: options,
            slotColumns: IncidentField.allCases.map { assignment.column($0) },
            attributeColumns: assignment.attributeColumns.map { ($0, Array(header[$0].utf8)) },
            timePartColumn: assignment.timePartColumn, pointColumn: assignment.column(.point))
        self.init(layout: layout, scanner: scanner)
    }

    /// A reader of records only (no header) with a known layout: `buffer` starts at a record
    /// boundary on line `firstLine`. `times` may be one reused from an earlier block (its zone
    /// cache stays warm); it must not be in use by another thread.
    convenience init(layout: CSVLayout, buffer: ChunkBuffer, firstLine: Int, times: TimeReader? = nil) {
        self.init(
            layout: layout,
            scanner: CSVScanner(
                buffer: buffer, delimiter: layout.delimiter,
                maxRecordBytes: layout.options.maxRecordBytes, firstLine: firstLine),
            times: times)
    }

    private init(layout: CSVLayout, scanner: CSVScanner, times: TimeReader? = nil) {
        self.layout = layout
        self.scanner = scanner
        header = layout.header
        slotColumns = layout.slotColumns
        attributeColumns = layout.attributeColumns
        timePartColumn = layout.timePartColumn
        pointColumn = layout.pointColumn
        self.times = times ?? TimeReader(options: layout.options)
    }

    /// A `--column` mapping to a column the header lacks: the name, the closest column, the columns.
    static func unmatchedMessage(
        _ unmatched: (mapping: String, missing: String, alreadyUsed: Bool),
        header: [String]
    ) -> String {
        let mapping = "--column " + ClosestName.cut(unmatched.mapping)
        let missing = ClosestName.quoted(unmatched.missing)
        if unmatched.alreadyUsed {
            return "\(mapping): the CSV column \(missing) already fills another field (columns: \(listing(header)))"
        }
        let closest = ClosestName.closest(to: unmatched.missing, among: header)
        let hint = closest.map { "; the closest is \(ClosestName.quoted($0))" } ?? ""
        return "\(mapping): the CSV header has no column \(missing)\(hint) (columns: \(listing(header)))"
    }

    /// The first column names, each cut short, for a one-line message of bounded length.
    static func listing(_ header: [String]) -> String {
        let names = header.prefix(12).map { $0.count > 40 ? String($0.prefix(40)) + "…" : $0 }
        return names.joined(separator: ", ") + (header.count > 12 ? ", … (\(header.count) columns)" : "")
    }

    /// The most frequent of `,` `;` and tab outside quotes in the first line (`,` on a tie).
    private static func detectDelimiter(_ buffer: ChunkBuffer) throws(InputError) -> UInt8 {
        var counts: [UInt8: Int] = [44: 0, 59: 0, 9: 0]
        var i = buffer.start
        var inQuotes = false
        while true {
            if i == buffer.end {
                let before = buffer.start
                guard i - before < (1 << 20), try buffer.refill().more else { break }
                i = buffer.start + (i - before)
                continue
            }
            let b = buffer[i]
            if b == 34 { inQuotes.toggle() }
            if !inQuotes {
                if b == 10 { break }
                if counts[b] != nil { counts[b]! += 1 }
            }
            i += 1
        }
        let best = [UInt8(44), 59, 9].max { counts[$0]! < counts[$1]! }!
        return counts[best]! > 0 ? best : 44
    }

    func forEachRecord(_ body: (consuming SourceRecord) throws -> Void) throws {
        let expected = header.count
        while try scanner.next() {
            let raw = scanner.rawRecord
            guard !scanner.oversized, !scanner.quotingError, scanner.fieldCount == expected,
                !CSVRecordSource.containsNUL(raw.span)
            else {
                try body(.rejected(.malformedRecord, location: .line(scanner.recordLine), idHint: nil))
                continue
            }
            var lat = value(0), lon = value(1)
            if pointColumn >= 0 {
                switch PointText.split(text(pointColumn)) {
                case .success(let point): (lat, lon) = point
                case .failure(let reason):
                    try body(
                        .rejected(
                            reason, location: .line(scanner.recordLine), idHint: RecordBuilder.nonEmptyText(value(3))))
                    continue
                }
            }
            let id = value(3)
            let outcome = RecordBuilder.build(
                lat: lat, lon: lon, time: timeValue(), id: keyHashPrefix == nil ? id : .absent, category: value(4),
                handled: value(5), description: value(6), user: value(7), attributes: attributeText(),
                categories: categories, times: times)
            switch consume outcome {
            case .success(let incident):
                hashedKey = keyHashPrefix != nil && !id.isEmpty ? hash(id: id.bytes.span) : nil
                try body(.accepted(consume incident))
            case .failure(let reason):
                try body(
                    .rejected(reason, location: .line(scanner.recordLine), idHint: RecordBuilder.nonEmptyText(value(3)))
                )
            }
        }
    }

    /// The hash of `keyHashPrefix` + the id's text: its bytes, or for bytes that are not UTF-8 the
    /// bytes of the String the text path would build (`RawValue.text` repairs them).
    private func hash(id: Span<UInt8>) -> KeyHash {
        let prefix = keyHashPrefix!
        var ascii = true
        for k in id.indices where id[k] >= 0x80 {
            ascii = false
            break
        }
        if prefix.isEmpty && ascii { return KeyHash(bytes: id.bytes) }
        keyBytes.removeAll(keepingCapacity: true)
        keyBytes.append(contentsOf: prefix)
        if ascii {
            keyBytes.append(span: id)
        } else {
            keyBytes.append(contentsOf: id.decodedString.utf8)
        }
        return keyBytes.withUnsafeBytes { KeyHash(bytes: $0.bytes) }
    }

    /// The record's unmatched columns as canonical attribute text (nil when there are none).
    private func attributeText() -> String? {
        guard !attributeColumns.isEmpty else { return nil }
        attributes.reset()
        for (column, name) in attributeColumns {
            attributes.add(name: name.span, value: text(column))
        }
        return attributes.finish()
    }

    static func containsNUL(_ bytes: Span<UInt8>) -> Bool { bytes.containsByte(0) }

    func currentExcerpt() -> String { Excerpt.make(scanner.rawRecord.span) }

    var contentOffset: Int64 { scanner.buffer.baseOffset + Int64(scanner.endOfRecord) }

    func currentValue(for reason: RejectReason) -> String? {
        guard scanner.fieldCount == header.count else { return nil }
        switch reason {
        case .missingTime, .invalidTime: return timeValue().text
        case .missingCoordinates, .invalidCoordinates, .nullIsland:
            if pointColumn >= 0 { return text(pointColumn).text }
            return "\(value(0).text ?? ""), \(value(1).text ?? "")"
        case .malformedRecord: return nil
        }
    }

    /// The time column, or `DATE TIME` joined from two (SPEC §2.5).
    @inline(__always)
    private func timeValue() -> RawValue {
        timePartColumn < 0 ? value(2) : times.join(value(2), text(timePartColumn))
    }

    @inline(__always)
    private func value(_ slot: Int) -> RawValue {
        let column = slotColumns[slot]
        return column >= 0 ? text(column) : .absent
    }

    @inline(__always)
    private func text(_ column: Int) -> RawValue {
        RawValue(kind: .text, bytes: scanner.field(column))
    }
}
