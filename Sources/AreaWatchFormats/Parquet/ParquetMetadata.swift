/// The structs of parquet-format's `parquet.thrift` that the writer emits, with only the fields
/// it sets, each under its Thrift field id. Field ids and enum values are the format's; nothing
/// here is read back (the tests have their own reader).
enum ParquetThrift {
    /// `Encoding`.
    enum Encoding: Int32 {
        case plain = 0, rle = 3, rleDictionary = 8
    }

    /// `CompressionCodec`.
    enum Codec: Int32 {
        case uncompressed = 0, gzip = 2, zstd = 6
    }

    /// `PageType`.
    enum PageType: Int32 {
        case dataPage = 0, dictionaryPage = 2
    }

    /// `Statistics`: null_count (3), max_value (5), min_value (6); values PLAIN-encoded.
    struct Statistics: Equatable {
        var nullCount: Int64
        var min: [UInt8]?
        var max: [UInt8]?

        func encode(_ w: inout ThriftCompactWriter) {
            w.i64(3, nullCount)
            if let max { w.binary(5, max) }
            if let min { w.binary(6, min) }
        }
    }

    /// `PageHeader` with a `DataPageHeader` (v1) or a `DictionaryPageHeader`.
    struct PageHeader {
        var type: PageType
        var uncompressedSize: Int32
        var compressedSize: Int32
        /// Values in the page, nulls included (data page) or dictionary entries.
        var valueCount: Int32
        var encoding: Encoding

        func encoded() -> [UInt8] {
            var w = ThriftCompactWriter()
            w.i32(1, type.rawValue)
            w.i32(2, uncompressedSize)
            w.i32(3, compressedSize)
            switch type {
            case .dataPage:
                w.structure(5) { d in
                    d.i32(1, valueCount)
                    d.i32(2, encoding.rawValue)
                    d.i32(3, Encoding.rle.rawValue) // definition levels
                    d.i32(4, Encoding.rle.rawValue) // repetition levels (none are written)
                }
            case .dictionaryPage:
                w.structure(7) { d in
                    d.i32(1, valueCount)
                    d.i32(2, encoding.rawValue)
                }
            }
            w.stop()
            return w.bytes
        }
    }

    /// `ColumnChunk` with its `ColumnMetaData`.
    struct ColumnChunk {
        var type: Int32
        var encodings: [Encoding]
        var path: [String]
        var codec: Codec
        var valueCount: Int64
        var uncompressedSize: Int64
        var compressedSize: Int64
        var dataPageOffset: Int64
        var dictionaryPageOffset: Int64?
        var statistics: Statistics

        /// Where the chunk's first page starts.
        var firstPageOffset: Int64 { dictionaryPageOffset ?? dataPageOffset }

        func encode(_ w: inout ThriftCompactWriter) {
            w.i64(2, firstPageOffset)
            w.structure(3) { m in
                m.i32(1, type)
                m.i32List(2, encodings.map(\.rawValue))
                m.stringList(3, path)
                m.i32(4, codec.rawValue)
                m.i64(5, valueCount)
                m.i64(6, uncompressedSize)
                m.i64(7, compressedSize)
                m.i64(9, dataPageOffset)
                if let dictionaryPageOffset { m.i64(11, dictionaryPageOffset) }
                m.structure(12) { statistics.encode(&$0) }
            }
        }
    }

    /// `RowGroup`.
    struct RowGroup {
        var columns: [ColumnChunk]
        var rowCount: Int64
        var ordinal: Int16

        func encode(_ w: inout ThriftCompactWriter) {
            w.structList(1, columns) { c, w in c.encode(&w) }
            w.i64(2, columns.reduce(0) { $0 + $1.uncompressedSize })
            w.i64(3, rowCount)
            w.i64(5, columns.first?.firstPageOffset ?? 0)
            w.i64(6, columns.reduce(0) { $0 + $1.compressedSize })
            w.i16(7, ordinal)
        }
    }

    /// `SchemaElement`: the root (children only), a group (repetition, children) or a leaf.
    struct SchemaElement {
        var name: String
        var type: Int32?
        var repetition: Int32?
        var childCount: Int32?
        /// ConvertedType UTF8 (0) with LogicalType STRING (field 1 of the union).
        var isString = false

        func encode(_ w: inout ThriftCompactWriter) {
            if let type { w.i32(1, type) }
            if let repetition { w.i32(3, repetition) }
            w.string(4, name)
            if let childCount { w.i32(5, childCount) }
            if isString {
                w.i32(6, 0)
                w.structure(10) { l in l.structure(1) { _ in } }
            }
        }
    }

    /// `FileMetaData`: version 1 (as parquet-format asks of writers), the flattened schema, the
    /// row groups, key-value metadata, `created_by`, and TYPE_ORDER for every leaf column so that
    /// readers trust the statistics' min_value/max_value.
    struct FileMetaData {
        var schema: [SchemaElement]
        var rowCount: Int64
        var rowGroups: [RowGroup]
        var keyValues: [(key: String, value: String)]
        var createdBy: String
        var leafCount: Int

        func encoded() -> [UInt8] {
            var w = ThriftCompactWriter()
            w.i32(1, 1)
            w.structList(2, schema) { e, w in e.encode(&w) }
            w.i64(3, rowCount)
            w.structList(4, rowGroups) { g, w in g.encode(&w) }
            if !keyValues.isEmpty {
                w.structList(5, keyValues) { kv, w in
                    w.string(1, kv.key)
                    w.string(2, kv.value)
                }
            }
            w.string(6, createdBy)
            w.structList(7, Array(repeating: (), count: leafCount)) { _, w in w.structure(1) { _ in } }
            w.stop()
            return w.bytes
        }
    }
}
