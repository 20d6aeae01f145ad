/// A Parquet file written row group by row group (docs/FORMATS.md, "grid.parquet"): the magic
/// `PAR1`, each row group's column chunks in schema order, then the footer (FileMetaData in the
/// Thrift compact protocol), its length as 4 little-endian bytes, and `PAR1` again.
///
/// A column chunk is one data page (v1): the definition levels of an OPTIONAL column (RLE /
/// bit-packed hybrid, width 1, after their 4-byte length), then the values, PLAIN or, when that
/// is smaller, RLE_DICTIONARY with a PLAIN dictionary page before the data page. Each page body
/// is compressed on its own. The bytes are a function of the schema, the values and the
/// key-value metadata alone: no time, host or random choice goes into them.
public final class ParquetWriter {
    public enum Compression: Sendable {
        case uncompressed
        /// RFC 1952 gzip (Parquet's GZIP codec) at a zlib level 1…9.
        case gzip(level: Int32)
        /// Zstandard frames (Parquet's ZSTD codec) at a zstd level.
        case zstd(level: Int32)
    }

    /// A page body's codec, one per writer.
    private enum Compressor {
        case gzip(GzipCompressor)
        case zstd(ZstdCompressor)

        func compress(_ body: [UInt8]) -> [UInt8] {
            switch self {
            case .gzip(let c): c.compress(body)
            case .zstd(let c): c.compress(body)
            }
        }

        var codec: ParquetThrift.Codec {
            switch self {
            case .gzip: .gzip
            case .zstd: .zstd
            }
        }
    }

    public static let magic: [UInt8] = Array("PAR1".utf8)

    public let schema: ParquetSchema
    private let leaves: [(path: [String], leaf: ParquetSchema.Leaf)]
    private let compressor: Compressor?
    private let createdBy: String
    private let output: ([UInt8]) throws -> Void
    private var rowGroups: [ParquetThrift.RowGroup] = []
    private var rowCount: Int64 = 0
    /// Bytes handed to `output` so far: the offset of the next byte.
    public private(set) var bytesWritten: Int64 = 0

    /// Starts the file; `output` receives its bytes in order.
    public init(
        schema: ParquetSchema, compression: Compression, createdBy: String,
        output: @escaping ([UInt8]) throws -> Void
    ) throws {
        self.schema = schema
        leaves = schema.leaves
        switch compression {
        case .uncompressed: compressor = nil
        case .gzip(let level): compressor = .gzip(GzipCompressor(level: level))
        case .zstd(let level): compressor = .zstd(ZstdCompressor(level: level))
        }
        self.createdBy = createdBy
        self.output = output
        try emit(Self.magic)
    }

    /// One row group: a column per leaf of the schema, in its order, all of one row count.
    /// A group of no rows is not written.
    public func writeRowGroup(_ columns: [ParquetColumnData]) throws {
        precondition(columns.count == leaves.count, "a row group has a column per leaf")
        let rows = columns.first?.rowCount ?? 0
        precondition(columns.allSatisfy { $0.rowCount == rows }, "the columns of a row group differ in length")
        guard rows > 0 else { return }
        var chunks: [ParquetThrift.ColumnChunk] = []
        for (column, (path, leaf)) in zip(columns, leaves) {
            precondition(column.type == leaf.type && column.isOptional == leaf.isOptional, "column \(path) mismatched")
            let (bytes, chunk) = encodeChunk(column, leaf: leaf, path: path, at: bytesWritten)
            try emit(bytes)
            chunks.append(chunk)
        }
        let ordinal = Int16(truncatingIfNeeded: rowGroups.count)
        rowGroups.append(ParquetThrift.RowGroup(columns: chunks, rowCount: Int64(rows), ordinal: ordinal))
        rowCount += Int64(rows)
    }

    /// Ends the file with its footer; `keyValues` become its key-value metadata in this order.
    public func finish(keyValues: [(key: String, value: String)]) throws {
        let footer = ParquetThrift.FileMetaData(
            schema: schema.elements, rowCount: rowCount, rowGroups: rowGroups,
            keyValues: keyValues, createdBy: createdBy,
            leafCount: leaves.count
        ).encoded()
        var tail = footer
        ParquetValueEncoding.appendLittleEndian(UInt32(footer.count), to: &tail)
        try emit(tail + Self.magic)
    }

    private func emit(_ bytes: [UInt8]) throws {
        try output(bytes)
        bytesWritten += Int64(bytes.count)
    }

    // MARK: Column chunks

    private func encodeChunk(
        _ column: ParquetColumnData, leaf: ParquetSchema.Leaf, path: [String],
        at start: Int64
    ) -> ([UInt8], ParquetThrift.ColumnChunk) {
        var body: [UInt8] = []
        if column.isOptional {
            // The levels' length goes before them: written as 0, set once they are encoded.
            ParquetValueEncoding.appendLittleEndian(UInt32(0), to: &body)
            RLEHybrid.encode(levels: column.definitionLevels, to: &body)
            withUnsafeBytes(of: UInt32(body.count - 4).littleEndian) { body.replaceSubrange(0..<4, with: $0) }
        }
        var out: [UInt8] = []
        var uncompressed = 0
        var dictionaryOffset: Int64?
        var encoding = ParquetThrift.Encoding.plain
        let dictionary = leaf.allowsDictionary ? ParquetValueEncoding.dictionary(column) : nil
        if let dictionary, Self.dictionaryPays(dictionary, column: column) {
            dictionaryOffset = start
            uncompressed += appendPage(
                .dictionaryPage, body: dictionary.plain, valueCount: dictionary.count,
                encoding: .plain, to: &out)
            let width = RLEHybrid.bitWidth(forValuesBelow: dictionary.count)
            body.append(UInt8(width))
            RLEHybrid.encode(dictionary.indices, bitWidth: width, to: &body)
            encoding = .rleDictionary
        } else {
            ParquetValueEncoding.appendPlain(column, to: &body)
        }
        let dataOffset = start + Int64(out.count)
        uncompressed += appendPage(.dataPage, body: body, valueCount: column.rowCount, encoding: encoding, to: &out)
        let chunk = ParquetThrift.ColumnChunk(
            type: leaf.type.rawValue, encodings: encoding == .plain ? [.plain, .rle] : [.plain, .rle, .rleDictionary],
            path: path, codec: compressor?.codec ?? .uncompressed, valueCount: Int64(column.rowCount),
            uncompressedSize: Int64(uncompressed), compressedSize: Int64(out.count), dataPageOffset: dataOffset,
            dictionaryPageOffset: dictionaryOffset,
            statistics: ParquetValueEncoding.statistics(
                column, minMax: leaf.hasMinMax, distinct: dictionary?.firstValues))
        return (out, chunk)
    }

    /// The dictionary and its indices take fewer bytes than the PLAIN values (before compression).
    private static func dictionaryPays(_ d: ParquetValueEncoding.Dictionary, column: ParquetColumnData) -> Bool {
        let plain: Int
        switch column.type {
        case .boolean: return false
        case .int32: plain = 4 * column.valueCount
        case .int64, .double: plain = 8 * column.valueCount
        case .byteArray: plain = column.bytes.count + 4 * column.valueCount
        }
        let indices = (column.valueCount * RLEHybrid.bitWidth(forValuesBelow: d.count) + 7) / 8
        return d.plain.count + 1 + indices < plain
    }

    /// Appends a page (header, then the body compressed); returns its size uncompressed.
    private func appendPage(
        _ type: ParquetThrift.PageType, body: [UInt8], valueCount: Int,
        encoding: ParquetThrift.Encoding, to out: inout [UInt8]
    ) -> Int {
        let stored = compressor?.compress(body) ?? body
        precondition(stored.count < Int(Int32.max) && body.count < Int(Int32.max), "a page of 2 GiB")
        let header = ParquetThrift.PageHeader(
            type: type, uncompressedSize: Int32(body.count),
            compressedSize: Int32(stored.count), valueCount: Int32(valueCount),
            encoding: encoding
        ).encoded()
        out += header
        out += stored
        return header.count + body.count
    }
}
