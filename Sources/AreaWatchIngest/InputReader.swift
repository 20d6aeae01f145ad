import AreaWatchCore

/// `--format`: overrides content detection.
public enum InputFormat: String, Sendable, CaseIterable {
    case json, csv
}

/// How readers parse and what they tolerate.
public struct ReaderOptions: Sendable {
    public var format: InputFormat?
    /// `--delimiter`; nil detects `,` `;` or tab from the CSV header.
    public var delimiter: UInt8?
    public var columns = ColumnOverrides()
    /// A record longer than this is `malformed_record` (SPEC §3: 1 MiB).
    public var maxRecordBytes = 1 << 20
    /// Nesting deeper than this inside one JSON record makes it `malformed_record`.
    public var maxJSONDepth = 64
    /// Bytes read ahead at a time (the window grows only for a record longer than this). Tests
    /// and fuzzing make it tiny, so that records fall across many refills of the window.
    public var readWindowBytes = 1 << 20
    /// `--time-format`: tried before the SPEC §2.4 forms (SPEC §2.5).
    public var timeFormat: TimeFormat?
    /// `--timezone`: the zone of calendar times that name none; nil is UTC (SPEC §2.5).
    public var timeZone: LocalTimeZone?

    public init(
        format: InputFormat? = nil, delimiter: UInt8? = nil, columns: ColumnOverrides = ColumnOverrides(),
        maxRecordBytes: Int = 1 << 20, maxJSONDepth: Int = 64,
        timeFormat: TimeFormat? = nil, timeZone: LocalTimeZone? = nil
    ) {
        self.timeFormat = timeFormat
        self.timeZone = timeZone
        self.format = format
        self.delimiter = delimiter
        self.columns = columns
        self.maxRecordBytes = maxRecordBytes
        self.maxJSONDepth = maxJSONDepth
    }
}

/// What detection found in a file.
public struct DetectedInput: Sendable, Equatable, CustomStringConvertible {
    public var format: InputFormat
    public var jsonShape: JSONShape?
    public var compressed: Bool

    public var description: String {
        (jsonShape.map { "json/\($0.rawValue)" } ?? format.rawValue) + (compressed ? "+gzip" : "")
    }
}

/// Opens a file and picks its reader from the content (SPEC §2): the first significant byte
/// `{` or `[` means JSON, anything else CSV; `--format` overrides.
enum InputReader {
    static func open(path: String, options: ReaderOptions) throws(InputError) -> (
        RecordSource, DetectedInput, ByteSource
    ) {
        try open(options: options) { () throws(InputError) in try ByteSource(path: path) }
    }

    /// `makeSource` gives a fresh reader of the same bytes each time it is called: the shape of
    /// a JSON object document is decided by a separate first read.
    static func open(
        options: ReaderOptions,
        makeSource: () throws(InputError) -> ByteSource
    ) throws(InputError) -> (RecordSource, DetectedInput, ByteSource) {
        let source = try makeSource()
        let path = source.path
        let buffer = ChunkBuffer(source: source, chunkSize: options.readWindowBytes)
        try skipBOM(buffer)
        guard let start = try firstSignificantByte(buffer, keepingAtMost: options.maxRecordBytes) else {
            throw InputError(file: path, message: "empty file: no CSV header and no JSON value")
        }
        let first = start.byte
        let looksJSON = first == ASCII.openBrace || first == ASCII.openBracket
        if options.format == .csv || (options.format == nil && !looksJSON) {
            guard !start.lineCut else {
                throw InputError(
                    file: path, position: "line \(start.line)",
                    message: "not a CSV or JSON file (the first line is not a readable CSV header)")
            }
            let csv = try CSVRecordSource(buffer: buffer, options: options, firstLine: start.line)
            return (csv, DetectedInput(format: .csv, jsonShape: nil, compressed: source.isCompressed), source)
        }
        guard looksJSON else {
            throw InputError(
                file: path, position: "line \(start.line)", message: "not JSON: a JSON input starts with '{' or '['")
        }
        let shape: JSONShape
        if first == ASCII.openBracket {
            shape = .array
        } else {
            // A separate read of the top-level member names decides the shape (SPEC §2.1).
            let probeBuffer = ChunkBuffer(source: try makeSource(), chunkSize: options.readWindowBytes)
            try skipBOM(probeBuffer)
            do {
                shape = try JSONRecordSource.detectObjectShape(JSONStream(buffer: probeBuffer))
            } catch {
                // NDJSON whose first line does not parse: that line is malformed_record, like any
                // other line (SPEC §2.2), not the whole file an input error.
                guard try looksLikeNDJSON(options: options, makeSource: makeSource) else { throw error }
                shape = .ndjson
            }
        }
        let json = JSONRecordSource(
            buffer: buffer, shape: shape, options: options, line: start.line, lineStart: start.lineStart)
        return (json, DetectedInput(format: .json, jsonShape: shape, compressed: source.isCompressed), source)
    }

    /// The `--column` check of a CSV file's header alone, without reading its records: throws
    /// the error `CSVRecordSource` would for the header; a JSON file is not looked into (its
    /// mappings are checked once its records are read).
    static func checkHeader(path: String, options: ReaderOptions) throws(InputError) {
        let buffer = ChunkBuffer(source: try ByteSource(path: path), chunkSize: options.readWindowBytes)
        try skipBOM(buffer)
        guard let start = try firstSignificantByte(buffer, keepingAtMost: options.maxRecordBytes), !start.lineCut else {
            return
        }
        let looksJSON = start.byte == ASCII.openBrace || start.byte == ASCII.openBracket
        guard options.format == .csv || (options.format == nil && !looksJSON) else { return }
        _ = try CSVRecordSource(buffer: buffer, options: options, firstLine: start.line)
    }

    /// The first byte that is not whitespace. Lines of whitespace before it are released as they
    /// are passed, so memory stays bounded however many there are: `line` is the 1-based line
    /// where the kept bytes start and `lineStart` its content offset. Blanks before the byte on
    /// its own line are kept (they belong to a CSV header's first name) unless there are more than
    /// `keepingAtMost`; then they are released too and `lineCut` is true.
    private static func firstSignificantByte(_ buffer: ChunkBuffer, keepingAtMost limit: Int) throws(InputError)
        -> (byte: UInt8, line: Int, lineStart: Int64, lineCut: Bool)?
    {
        var i = buffer.start
        var line = 1
        var lineStart = buffer.baseOffset + Int64(i)
        var lineCut = false
        while true {
            while i < buffer.end {
                switch buffer[i] {
                case ASCII.lf:
                    i += 1
                    line += 1
                    buffer.release(upTo: i)
                    lineStart = buffer.baseOffset + Int64(i)
                    lineCut = false
                case ASCII.space, ASCII.tab, ASCII.cr:
                    i += 1
                    if i - buffer.start > limit {
                        buffer.release(upTo: i)
                        lineCut = true
                    }
                default:
                    return (buffer[i], line, lineStart, lineCut)
                }
            }
            let (more, shift) = try buffer.refill()
            i -= shift
            guard more else { return nil }
        }
    }

    /// Whether a `{` file whose first value does not parse is NDJSON with a broken first line
    /// rather than a multi-line document that is cut short or broken (an input error): the first
    /// line must not end where a document goes on (after `{` `[` `,` or `:`), and the next
    /// non-blank line must be a complete JSON object by itself. (A pretty-printed document cut
    /// anywhere fails one of the two; NDJSON lines are complete objects.)
    private static func looksLikeNDJSON(
        options: ReaderOptions,
        makeSource: () throws(InputError) -> ByteSource
    ) throws(InputError) -> Bool {
        let buffer = ChunkBuffer(source: try makeSource(), chunkSize: options.readWindowBytes)
        try skipBOM(buffer)
        let limit = max(options.maxRecordBytes, 1)
        var first: [UInt8]?
        while let next = try nextLine(buffer, keepingAtMost: limit) {
            let (line, whole) = next
            let significant = line.filter { $0 != ASCII.space && $0 != ASCII.tab && $0 != ASCII.cr }
            if significant.isEmpty { continue }
            if first == nil {
                first = significant
                if let last = significant.last,
                    [ASCII.openBrace, ASCII.openBracket, ASCII.comma, ASCII.colon].contains(last)
                {
                    return false
                }
                continue
            }
            guard whole, significant.first == ASCII.openBrace else { return false }
            let failure = line.withUnsafeBufferPointer { JSONTape().parse($0, maxDepth: .max) }
            return failure == nil
        }
        return false
    }

    /// The next line without its LF (at most `keepingAtMost` bytes of it; `whole` is false when
    /// it was longer); nil at the end of the input.
    private static func nextLine(_ buffer: ChunkBuffer, keepingAtMost limit: Int) throws(InputError) -> (
        [UInt8], whole: Bool
    )? {
        var line: [UInt8] = []
        var whole = true
        var sawAny = false
        while true {
            var i = buffer.start
            while i < buffer.end {
                let b = buffer[i]
                i += 1
                if b == ASCII.lf {
                    buffer.release(upTo: i)
                    return (line, whole)
                }
                sawAny = true
                if line.count < limit { line.append(b) } else { whole = false }
            }
            buffer.release(upTo: i)
            guard try buffer.refill().more else { return sawAny ? (line, whole) : nil }
        }
    }

    static func skipBOM(_ buffer: ChunkBuffer) throws(InputError) {
        while buffer.end - buffer.start < 3 {
            guard try buffer.refill().more else { break }
        }
        if buffer.end - buffer.start >= 3, buffer[buffer.start] == 0xEF, buffer[buffer.start + 1] == 0xBB,
            buffer[buffer.start + 2] == 0xBF
        {
            buffer.release(upTo: buffer.start + 3)
        }
    }
}
