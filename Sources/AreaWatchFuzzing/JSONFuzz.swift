import AreaWatchCore
import AreaWatchIngest

/// What the model expects of a JSON input.
enum JSONExpectation {
    case inputError(String)
    /// Records in file order: locator, malformed or not, and the member name that is the
    /// record's id in id → post maps.
    case records([(locator: String, malformed: Bool, memberID: String?)])
}

/// The SPEC §2.1 shapes applied to a document parsed by `StrictJSON`.
enum JSONModel {
    static let latitudeNames: Set<String> = ["latitude", "lat", "y", "longitude", "lon", "lng", "long", "x"]

    /// nil when the model does not decide (the input is not strictly valid in a shape it knows).
    static func expectation(_ data: [UInt8], maxRecordBytes: Int, maxDepth: Int) -> JSONExpectation? {
        let start = data.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var parser = StrictJSON(data, from: start)
        parser.skipSpace()
        guard parser.i < data.count, data[parser.i] == 123 || data[parser.i] == 91 else { return nil }
        if let document = parser.document() {
            return whole(document, maxRecordBytes: maxRecordBytes, maxDepth: maxDepth)
        }
        return ndjson(data, from: start, maxRecordBytes: maxRecordBytes, maxDepth: maxDepth)
    }

    static func isMalformed(_ v: StrictJSON.Value, maxRecordBytes: Int, maxDepth: Int) -> Bool {
        v.kind != .object || v.depth > maxDepth || v.span > maxRecordBytes
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The shape of a top-level object, decided member by member as SPEC §2.1 says.
    enum ObjectShape { case watchMe, featureCollection, single, idMap }

    static func objectShape(_ document: StrictJSON.Value) -> ObjectShape {
        var coordinates = false
        for (name, _, value) in document.members {
            if name == Array("posts".utf8) { return .watchMe }
            if name == Array("type".utf8) {
                if value.kind == .string && value.span <= 256 && value.text == Array("FeatureCollection".utf8) {
                    return .featureCollection
                }
            }
            let normalized = text(name).utf8.filter { $0 != 32 && $0 != 95 && $0 != 45 && $0 != 9 }
                .map { ($0 >= 65 && $0 <= 90) ? $0 + 32 : $0 }
            if latitudeNames.contains(text(normalized)) { coordinates = true }
        }
        return coordinates ? .single : .idMap
    }

    private static func whole(_ document: StrictJSON.Value, maxRecordBytes: Int, maxDepth: Int) -> JSONExpectation {
        func record(_ v: StrictJSON.Value, _ locator: String, _ id: String?) -> (String, Bool, String?) {
            (locator, isMalformed(v, maxRecordBytes: maxRecordBytes, maxDepth: maxDepth), id)
        }
        // A member of an id -> post map; a name longer than the record limit (as written) makes
        // the record malformed, located by the first 64 characters of the name's longest prefix
        // of whole units (bytes or escapes) within the limit, and an ellipsis.
        func member(name: [UInt8], raw: [UInt8], _ v: StrictJSON.Value, path: String?) -> (String, Bool, String?) {
            let prefix = path.map { $0 + "." } ?? ""
            guard raw.count > maxRecordBytes else { return record(v, prefix + text(name), text(name)) }
            var kept: [UInt8] = []
            var k = 0
            while k < raw.count {
                let unit = raw[k] != 92 ? 1 : (k + 1 < raw.count && raw[k + 1] == 117 ? 6 : 2)
                guard kept.count + unit <= maxRecordBytes else { break }
                kept += raw[k..<(k + unit)]
                k += unit
            }
            var decoder = StrictJSON([34] + kept + [34])
            let shown = String(text(decoder.document()?.text ?? []).prefix(64)) + "…"
            return (prefix + shown, true, nil)
        }
        if document.kind == .array {
            return .records(document.elements.enumerated().map { record($1, "[\($0)]", nil) })
        }
        switch objectShape(document) {
        case .single:
            return .records([record(document, "?", nil)])
        case .idMap:
            return .records(document.members.map { member(name: $0.name, raw: $0.raw, $0.value, path: nil) })
        case .watchMe, .featureCollection:
            let watchMe = objectShape(document) == .watchMe
            let wanted = Array((watchMe ? "posts" : "features").utf8)
            var records: [(String, Bool, String?)] = []
            for (name, _, value) in document.members where name == wanted {
                switch value.kind {
                case .object where watchMe:
                    records += value.members.map { member(name: $0.name, raw: $0.raw, $0.value, path: "posts") }
                case .array:
                    records += value.elements.enumerated().map {
                        record($1, "\(watchMe ? "posts" : "features")[\($0)]", nil)
                    }
                case .null:
                    break
                default:
                    return .inputError("\"\(watchMe ? "posts" : "features")\" of the wrong kind")
                }
            }
            return .records(records)
        }
    }

    /// NDJSON: every non-blank line one strict JSON value, at least two of them, the first an
    /// object (otherwise the model does not decide).
    private static func ndjson(_ data: [UInt8], from start: Int, maxRecordBytes: Int, maxDepth: Int) -> JSONExpectation?
    {
        var records: [(String, Bool, String?)] = []
        var first: StrictJSON.Value?
        var lineNumber = 0
        var lineStart = start
        while lineStart <= data.count {
            lineNumber += 1
            let newline = data[lineStart...].firstIndex(of: 10) ?? data.count
            let line = Array(data[lineStart..<newline])
            defer { lineStart = newline + 1 }
            if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) {
                if newline == data.count { break }
                continue
            }
            var parser = StrictJSON(line)
            guard let value = parser.document() else { return nil }
            if first == nil {
                guard value.kind == .object else { return nil }
                first = value
            }
            records.append(
                (
                    String(lineNumber),
                    isMalformed(value, maxRecordBytes: maxRecordBytes, maxDepth: maxDepth)
                        || line.count > maxRecordBytes, nil
                ))
            if newline == data.count { break }
        }
        guard let first, records.count >= 2 else { return nil }
        switch objectShape(first) {
        case .watchMe, .featureCollection:
            return .inputError("a first line with posts or a FeatureCollection type, followed by more lines")
        case .single, .idMap:
            return .records(records)
        }
    }
}

/// The JSON fuzz target: any bytes, shape detected from content as for a `.json` file.
enum JSONFuzz {
    static func check(_ data: [UInt8]) -> [String] {
        var findings = Findings()
        let (plain, small, smallOptions) = IngestHarness.standardRuns(
            data, name: "fuzz.json", format: nil, into: &findings)
        if !(data.count >= 2 && data[0] == 0x1F && data[1] == 0x8B) && data.count < (1 << 20) {
            let defaults = ReaderOptions()
            compare(
                plain,
                JSONModel.expectation(data, maxRecordBytes: defaults.maxRecordBytes, maxDepth: defaults.maxJSONDepth),
                label: "defaults", into: &findings)
            compare(
                small,
                JSONModel.expectation(
                    data, maxRecordBytes: smallOptions.maxRecordBytes, maxDepth: smallOptions.maxJSONDepth),
                label: "small limits", into: &findings)
        }
        return findings.messages
    }

    static func compare(_ run: IngestRun, _ expectation: JSONExpectation?, label: String, into findings: inout Findings)
    {
        guard let expectation else { return }
        switch expectation {
        case .inputError(let why):
            findings.check(
                run.inputError != nil,
                "\(label): expected an input error (\(why)), got \(run.report.map(IngestHarness.summary) ?? "nothing")")
        case .records(let records):
            guard let report = run.report else {
                findings.fail(
                    "\(label): valid JSON with \(records.count) records was an input error: \(run.inputError ?? run.otherError ?? "?")"
                )
                return
            }
            findings.check(
                report.records == records.count,
                "\(label): \(report.format): \(report.records) records, the model has \(records.count)")
            // The rejects file writes locators spreadsheet-safe (docs/FORMATS.md): a member name
            // such as a push id `-L…` gets a leading `'`.
            let expected = records.filter(\.malformed).map { CSVText.spreadsheetSafe($0.locator) }
            let got = run.rejects(reason: "malformed_record").map(\.record)
            if report.format.hasPrefix("json/single-object") {
                findings.check(
                    got.count == expected.count,
                    "\(label): single object: \(got.count) malformed, the model says \(expected.count)")
            } else {
                findings.check(
                    got == expected,
                    "\(label): \(report.format): malformed_record at \(got.prefix(8)), the model says \(expected.prefix(8))"
                )
            }
            // In id → post maps the member name is the id: every accepted key is one of them, in order.
            let names = records.compactMap(\.memberID)
            if !names.isEmpty {
                var k = names.startIndex
                for incident in run.incidents {
                    while k < names.endIndex && names[k] != incident.key { k += 1 }
                    if k == names.endIndex {
                        findings.fail(
                            "\(label): accepted key \(incident.key.debugDescription) is not a member name of the map (in order)"
                        )
                        break
                    }
                    k += 1
                }
            }
        }
    }
}
