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

    public init(format: InputFormat? = nil, delimiter: UInt8? = nil, columns: ColumnOverrides = ColumnOverrides(),
                maxRecordBytes: Int = 1 << 20, maxJSONDepth: Int = 64) {
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
    static func open(path: String, options: ReaderOptions) throws(InputError) -> (RecordSource, DetectedInput, ByteSource) {
        try open(options: options) { () throws(InputError) in try ByteSource(path: path) }
    }

    /// `makeSource` gives a fresh reader of the same bytes each time it is called: the shape of
    /// a JSON object document is decided by a separate first read.
    static func open(options: ReaderOptions,
                     makeSource: () throws(InputError) -> ByteSource) throws(InputError) -> (RecordSource, DetectedInput, ByteSource) {
        let source = try makeSource()
        let path = source.path
        let buffer = ChunkBuffer(source: source, chunkSize: options.readWindowBytes)
        try skipBOM(buffer)
        guard let first = try firstSignificantByte(buffer) else {
            throw InputError(file: path, message: "empty file: no CSV header and no JSON value")
        }
        let looksJSON = first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        if options.format == .csv || (options.format == nil && !looksJSON) {
            let csv = try CSVRecordSource(buffer: buffer, options: options)
            return (csv, DetectedInput(format: .csv, jsonShape: nil, compressed: source.isCompressed), source)
        }
        guard looksJSON else {
            throw InputError(file: path, position: "line 1", message: "not JSON: a JSON input starts with '{' or '['")
        }
        let shape: JSONShape
        if first == UInt8(ascii: "[") {
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
                guard try nextLineStartsObject(path: path) else { throw error }
                shape = .ndjson
            }
        }
        let json = JSONRecordSource(buffer: buffer, shape: shape, options: options)
        return (json, DetectedInput(format: .json, jsonShape: shape, compressed: source.isCompressed), source)
    }

    /// The first byte that is not whitespace, read without consuming anything.
    private static func firstSignificantByte(_ buffer: ChunkBuffer) throws(InputError) -> UInt8? {
        var i = buffer.start
        while true {
            while i < buffer.end {
                let b = buffer[i]
                if b != 32 && b != 9 && b != 10 && b != 13 { return b }
                i += 1
            }
            let (more, shift) = try buffer.refill()
            i -= shift
            guard more else { return nil }
        }
    }

    /// Whether the first non-blank line after the first line starts with `{`: a file of objects,
    /// one a line. (A pretty-printed document's second line starts with a member name.)
    private static func nextLineStartsObject(path: String) throws(InputError) -> Bool {
        let buffer = ChunkBuffer(source: try ByteSource(path: path))
        try skipBOM(buffer)
        var sawNewline = false
        var i = buffer.start
        while true {
            while i < buffer.end {
                let b = buffer[i]
                if !sawNewline {
                    if b == 10 { sawNewline = true }
                } else if b != 32 && b != 9 && b != 10 && b != 13 {
                    return b == UInt8(ascii: "{")
                }
                i += 1
            }
            buffer.release(upTo: i)
            let (more, shift) = try buffer.refill()
            i -= shift
            guard more else { return false }
        }
    }

    static func skipBOM(_ buffer: ChunkBuffer) throws(InputError) {
        while buffer.end - buffer.start < 3 {
            guard try buffer.refill().more else { break }
        }
        if buffer.end - buffer.start >= 3, buffer[buffer.start] == 0xEF, buffer[buffer.start + 1] == 0xBB,
           buffer[buffer.start + 2] == 0xBF {
            buffer.release(upTo: buffer.start + 3)
        }
    }
}
