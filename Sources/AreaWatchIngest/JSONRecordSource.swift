import AreaWatchCore
import Glibc

/// The JSON input shapes of SPEC §2.1.
public enum JSONShape: String, Sendable {
    /// WatchMe Firebase export: only `posts` is read.
    case watchMeExport = "watchme-export"
    /// A bare id → post object.
    case idMap = "id-map"
    case array
    case ndjson
    case featureCollection = "geojson"
    /// One top-level object with a latitude or longitude member.
    case singleIncident = "single-object"
}

/// Records of a JSON file in any of the SPEC §2.1 shapes.
final class JSONRecordSource: RecordSource {
    private let stream: JSONStream
    private let shape: JSONShape
    private let options: ReaderOptions
    private let tape: JSONTape
    private let mapper: JSONRecordMapper
    private let captured = ByteBuffer(capacity: 1 << 16)
    private var capturedWhole = true
    /// The bytes of the record last delivered: `captured`, or the record in the read buffer.
    private var current = UnsafeBufferPointer<UInt8>(start: nil, count: 0)

    /// `reference`: the stream and the tape without their fast paths (for the property tests).
    init(
        buffer: ChunkBuffer, shape: JSONShape, options: ReaderOptions, line: Int = 1, lineStart: Int64 = 0,
        reference: Bool = false
    ) {
        stream = JSONStream(buffer: buffer, line: line, lineStart: lineStart, reference: reference)
        tape = JSONTape(reference: reference)
        self.shape = shape
        self.options = options
        mapper = JSONRecordMapper(options: options)
    }

    /// Decides the shape of a document that starts with `{` by reading its top-level member names
    /// (values skipped), stopping as soon as `posts` or `type: FeatureCollection` decides it.
    static func detectObjectShape(_ stream: JSONStream) throws(InputError) -> JSONShape {
        try stream.expect(ASCII.openBrace, "'{'")
        var hasCoordinateMember = false
        if !(try stream.closesImmediately(125)) {
            repeat {
                let (name, whole) = try stream.readString()
                try stream.expect(ASCII.colon, "':'")
                guard whole else {
                    try stream.skipValue() // a name over 1 MiB is none of the names that matter
                    continue
                }
                if name == "posts" { return .watchMeExport }
                if name == "type" {
                    if try stream.readShortString() == "FeatureCollection" { return .featureCollection }
                } else {
                    try stream.skipValue()
                }
                let normalized = normalizedName(name)
                if IncidentField.lat.aliases.contains(normalized) || IncidentField.lon.aliases.contains(normalized) {
                    hasCoordinateMember = true
                }
            } while try stream.nextInContainer(closing: 125)
        }
        if try !stream.atEnd() { return .ndjson }
        return hasCoordinateMember ? .singleIncident : .idMap
    }

    func forEachRecord(_ body: (consuming SourceRecord) throws -> Void) throws {
        try readRecords(body)
        if let problem = mapper.unmatchedMapping() {
            throw InputError(file: stream.path, message: problem, isUsage: true)
        }
    }

    private func readRecords(_ body: (consuming SourceRecord) throws -> Void) throws {
        switch shape {
        case .ndjson:
            try readLines(body)
        case .array:
            try stream.expect(ASCII.openBracket, "'['")
            try readElements(path: nil, body)
            try expectEnd()
        case .idMap:
            try stream.expect(ASCII.openBrace, "'{'")
            try readMembers(path: nil, body)
            try expectEnd()
        case .singleIncident:
            let line = stream.currentLine
            try readRecord(location: .line(line), memberID: nil, body)
            try expectEnd()
        case .watchMeExport, .featureCollection:
            let wanted = shape == .watchMeExport ? "posts" : "features"
            try stream.expect(ASCII.openBrace, "'{'")
            if try stream.closesImmediately(125) { break }
            repeat {
                let (name, whole) = try stream.readString()
                try stream.expect(ASCII.colon, "':'")
                guard whole, name == wanted else {
                    try stream.skipValue()
                    continue
                }
                switch try stream.peek() {
                case 123 where shape == .watchMeExport:
                    try stream.expect(ASCII.openBrace, "'{'")
                    try readMembers(path: wanted, body)
                case ASCII.openBracket:
                    try stream.expect(ASCII.openBracket, "'['")
                    try readElements(path: wanted, body)
                case 110:
                    try stream.skipValue() // null: no records
                default:
                    throw stream.error(
                        "\"\(wanted)\" must be \(shape == .watchMeExport ? "an object or an array" : "an array")")
                }
            } while try stream.nextInContainer(closing: 125)
            try expectEnd()
        }
    }

    func currentExcerpt() -> String {
        Excerpt.make(current.span)
    }

    // NDJSON lines are read beside the stream: the buffer's start is the current line's.
    var contentOffset: Int64 {
        shape == .ndjson ? stream.buffer.baseOffset + Int64(stream.buffer.start) : stream.offset
    }

    func currentValue(for reason: RejectReason) -> String? {
        mapper.currentValue(tape, for: reason)
    }

    private func expectEnd() throws(InputError) {
        guard try stream.atEnd() else { throw stream.error("unexpected content after the JSON document") }
    }

    private func readMembers(path: String?, _ body: (consuming SourceRecord) throws -> Void) throws {
        if try stream.closesImmediately(125) { return }
        repeat {
            let (id, whole) = try stream.readString(maxBytes: options.maxRecordBytes)
            try stream.expect(ASCII.colon, "':'")
            guard whole else {
                // The id alone is over the record limit: the record is malformed, its value skipped.
                try stream.skipValue()
                let shown = String(id.prefix(64)) + "…"
                captured.removeAll()
                captured.append(Array("(member name longer than \(options.maxRecordBytes) bytes) \(shown)".utf8))
                current = captured.bytes
                try body(.rejected(.malformedRecord, location: .member(path: path, name: shown), idHint: nil))
                continue
            }
            try readRecord(location: .member(path: path, name: id), memberID: id, body)
        } while try stream.nextInContainer(closing: 125)
    }

    private func readElements(path: String?, _ body: (consuming SourceRecord) throws -> Void) throws {
        if try stream.closesImmediately(93) { return }
        var index = 0
        repeat {
            try readRecord(location: .element(path: path, index: index), memberID: nil, body)
            index += 1
        } while try stream.nextInContainer(closing: 93)
    }

    /// Captures the next value and hands its record to `body`.
    private func readRecord(
        location: RecordLocation, memberID: String?, _ body: (consuming SourceRecord) throws -> Void
    ) throws {
        if let bytes = try stream.parseObjectInPlace(
            tape, maxBytes: options.maxRecordBytes, maxDepth: options.maxJSONDepth)
        {
            current = bytes
            try body(mapped(location: location, memberID: memberID))
            return
        }
        capturedWhole = try stream.captureValue(into: captured, maxBytes: options.maxRecordBytes)
        current = captured.bytes
        guard capturedWhole else {
            captured.append(Array("(record larger than \(options.maxRecordBytes) bytes)".utf8))
            current = captured.bytes
            try body(.rejected(.malformedRecord, location: location, idHint: memberID))
            return
        }
        try body(record(location: location, memberID: memberID))
    }

    private func record(location: RecordLocation, memberID: String?) -> SourceRecord {
        let failure = tape.parse(captured.bytes, maxDepth: options.maxJSONDepth)
        guard failure == nil, tape.node(0).kind == .object else {
            return .rejected(.malformedRecord, location: location, idHint: memberID)
        }
        return mapped(location: location, memberID: memberID)
    }

    /// The record of the object on the tape.
    private func mapped(location: RecordLocation, memberID: String?) -> SourceRecord {
        if shape == .featureCollection {
            let properties = JSONRecordMapper.member(tape, of: 0, named: "properties")
                .flatMap { tape.node($0).kind == .object ? $0 : nil }
            let featureID = JSONRecordMapper.member(tape, of: 0, named: "id").map {
                JSONRecordMapper.rawValue(tape, $0)
            }
            return mapper.map(
                tape, object: properties, memberID: nil, location: location,
                coordinates: JSONRecordMapper.pointCoordinates(tape, feature: 0), featureID: featureID)
        }
        return mapper.map(tape, object: 0, memberID: memberID, location: location)
    }

    /// NDJSON: one record per line; a line that does not parse is `malformed_record`, a cut-off
    /// last line is an input error (SPEC §2.2).
    private func readLines(_ body: (consuming SourceRecord) throws -> Void) throws {
        let buffer = stream.buffer
        var line = stream.currentLine - 1
        var scan = buffer.start
        while true {
            line += 1
            // Empty lines (LF or CR LF) are passed at one compare a byte: through the general path
            // below, a gzip of blank lines (~1000:1) would cost a line's whole handling per byte.
            while true {
                let p = buffer.storage, end = buffer.end
                while scan < end {
                    if p[scan] == ASCII.lf {
                        scan += 1
                    } else if p[scan] == ASCII.cr && scan + 1 < end && p[scan + 1] == ASCII.lf {
                        scan += 2
                    } else {
                        break
                    }
                    line += 1
                }
                buffer.release(upTo: scan)
                guard scan == end else { break }
                let (more, shift) = try buffer.refill()
                scan -= shift
                guard more else { break }
            }
            var lineStart = buffer.start
            var newline = -1
            var tooLong = false
            var head: [UInt8] = []
            while newline < 0 {
                if scan < buffer.end, let p = memchr(buffer.storage + scan, 10, buffer.end - scan) {
                    newline = buffer.storage.distance(to: p.assumingMemoryBound(to: UInt8.self))
                    break
                }
                scan = buffer.end
                if scan - lineStart > options.maxRecordBytes {
                    if !tooLong { head = Array(buffer.slice(lineStart, min(scan, lineStart + 256))) }
                    tooLong = true
                    buffer.release(upTo: scan)
                    lineStart = scan
                }
                let (more, shift) = try buffer.refill()
                scan -= shift
                lineStart -= shift
                if !more { break }
            }
            let end = newline >= 0 ? newline : buffer.end
            // A line that arrived whole in the buffer was never measured above.
            if !tooLong && end - lineStart > options.maxRecordBytes {
                head = Array(buffer.slice(lineStart, min(end, lineStart + 256)))
                tooLong = true
            }
            if tooLong {
                captured.removeAll()
                captured.append(head)
                current = captured.bytes
                try body(.rejected(.malformedRecord, location: .line(line), idHint: nil))
            } else {
                // Parsed where it lies: the buffer does not move before the next line.
                current = buffer.slice(lineStart, end)
                if !current.allSatisfy({ $0 == ASCII.space || $0 == ASCII.tab || $0 == ASCII.cr }) {
                    let failure = tape.parse(current, maxDepth: options.maxJSONDepth)
                    if failure == .truncated && newline < 0 {
                        throw InputError(
                            file: stream.path, position: "line \(line)",
                            message: "the file ends inside a JSON record (truncated last line)")
                    }
                    if failure == nil && tape.node(0).kind == .object {
                        try body(mapper.map(tape, object: 0, memberID: nil, location: .line(line)))
                    } else {
                        try body(.rejected(.malformedRecord, location: .line(line), idHint: nil))
                    }
                }
            }
            guard newline >= 0 else { return }
            buffer.release(upTo: newline + 1)
            scan = newline + 1
        }
    }
}
