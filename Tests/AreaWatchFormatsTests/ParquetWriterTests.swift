import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchFormats

/// The Parquet writer read back by the tests' own reader (ParquetTestReader.swift): random
/// tables of every supported type round-trip with their statistics; two small files are
/// golden (byte-compared, and read by pyarrow when it is installed).
@Suite("Parquet writer")
struct ParquetWriterTests {
    static func write(
        _ schema: ParquetSchema, groups: [[ParquetColumnData]], compression: ParquetWriter.Compression,
        keyValues: [(key: String, value: String)] = []
    ) throws -> [UInt8] {
        var bytes: [UInt8] = []
        let writer = try ParquetWriter(schema: schema, compression: compression, createdBy: "areawatch test") {
            bytes += $0
        }
        for group in groups { try writer.writeRowGroup(group) }
        try writer.finish(keyValues: keyValues)
        #expect(writer.bytesWritten == Int64(bytes.count))
        return bytes
    }

    /// A random value of `leaf`'s type, or nil (a null) for an optional leaf now and then.
    /// Values repeat often enough for some chunks to be dictionary-encoded and not others.
    static func value(_ leaf: ParquetSchema.Leaf, _ random: inout SplitMix64, distinct: UInt64) -> ReadValue? {
        if leaf.isOptional && random.next() % 4 == 0 { return nil }
        let pick = random.next() % distinct
        switch leaf.type {
        case .boolean: return .bool(pick % 2 == 0)
        case .int32: return .int(Int64(Int32(truncatingIfNeeded: pick &* 0x9E37_79B9) >> Int32(pick % 31)))
        case .int64: return .int(Int64(bitPattern: pick &* 0x9E37_79B9_7F4A_7C15) >> Int64(pick % 63))
        case .double:
            let specials: [Double] = [0, -0.0, .nan, .infinity, -.infinity, 1e-300, -2.5]
            let v = pick < 7 && random.next() % 3 == 0 ? specials[Int(pick)] : Double(Int64(pick) - 50) / 7
            return .double(v.bitPattern)
        case .byteArray:
            let text = leaf.isString ? "välue \(pick)" + String(repeating: "é", count: Int(pick % 5)) : ""
            let raw = (0..<Int(pick % 40)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ Int(pick)) }
            return .bytes(leaf.isString ? Array(text.utf8) : raw)
        }
    }

    static func append(_ v: ReadValue?, to column: inout ParquetColumnData) {
        switch v {
        case nil: column.appendNull()
        case .bool(let b): column.append(b)
        case .int(let i):
            if column.type == .int32 { column.append(Int32(i)) } else { column.append(i) }
        case .double(let d): column.append(Double(bitPattern: d))
        case .bytes(let b): column.append(bytes: b)
        }
    }

    static let leafKinds: [ParquetSchema.Leaf] = [
        ParquetSchema.Leaf("flag", .boolean), ParquetSchema.Leaf("maybe_flag", .boolean, isOptional: true),
        ParquetSchema.Leaf("small", .int32), ParquetSchema.Leaf("maybe_small", .int32, isOptional: true),
        .int64("count"), .int64("maybe_count", optional: true),
        .double("ratio"), .double("maybe_ratio", optional: true),
        .string("name"), .string("maybe_name", optional: true),
        ParquetSchema.Leaf("blob", .byteArray), ParquetSchema.Leaf("blob_no_dict", .byteArray, allowsDictionary: false)
    ]

    @Test("random tables read back value for value, with their schema, row groups and statistics")
    func roundTrip() throws {
        var random = SplitMix64(seed: 0x9A4_0001)
        for trial in 0..<60 {
            var fields: [ParquetSchema.Field] = (0..<(1 + Int(random.next() % 8))).map { k in
                var leaf = Self.leafKinds[Int(random.next() % UInt64(Self.leafKinds.count))]
                leaf.name += "_\(k)"
                return .leaf(leaf)
            }
            if random.next() % 2 == 0 { fields.append(.group("box", [.double("lo"), .double("hi")])) }
            let schema = ParquetSchema(fields)
            let leaves = schema.leaves
            let distinct = [2, 5, 1000, 1 << 40][Int(random.next() % 4)]
            var expected = Array(repeating: [ReadValue?](), count: leaves.count)
            var groups: [[ParquetColumnData]] = []
            for _ in 0..<Int(random.next() % 4) {
                let rows = Int(random.next() % 200)
                var group = leaves.map { ParquetColumnData($0.leaf) }
                for _ in 0..<rows {
                    for (k, leaf) in leaves.enumerated() {
                        let v = Self.value(leaf.leaf, &random, distinct: UInt64(distinct))
                        Self.append(v, to: &group[k])
                        expected[k].append(v)
                    }
                }
                groups.append(group)
            }
            let compression: ParquetWriter.Compression = [.gzip(level: 6), .zstd(level: 1), .uncompressed][trial % 3]
            let bytes = try Self.write(
                schema, groups: groups, compression: compression,
                keyValues: [("k", "v \(trial)")])
            let read = try ReadParquet(bytes)
            #expect(read.columns.count == leaves.count)
            for k in leaves.indices where k < read.columns.count {
                #expect(read.columns[k] == expected[k], "trial \(trial) column \(leaves[k].path)")
            }
            #expect(read.rowCount == expected.first?.count ?? 0)
            #expect(read.rowGroupSizes == groups.map { $0.first?.rowCount ?? 0 }.filter { $0 > 0 })
            #expect(read.keyValues.map(\.0) == ["k"] && read.keyValues.map(\.1) == ["v \(trial)"])
            try Self.checkStatistics(read, leaves: leaves, expected: expected)
            try Self.checkSchema(read, schema: schema)
        }
    }

    /// Each chunk's null_count and min/max against a brute-force scan of its values.
    static func checkStatistics(
        _ read: ReadParquet, leaves: [(path: [String], leaf: ParquetSchema.Leaf)],
        expected: [[ReadValue?]]
    ) throws {
        var start = 0
        for (g, group) in (read.footer[4]?.list ?? []).enumerated() {
            let rows = read.rowGroupSizes[g]
            for (k, chunk) in (group[1]?.list ?? []).enumerated() {
                let values = expected[k][start..<(start + rows)]
                let stats = try #require(chunk[3]?[12])
                #expect(stats[3]?.int == values.filter { $0 == nil }.count)
                let (lo, hi) = bruteMinMax(values.compactMap { $0 }, leaf: leaves[k].leaf)
                #expect(stats[6]?.binary == lo && stats[5]?.binary == hi, "\(leaves[k].path) \(values)")
            }
            start += rows
        }
    }

    static func bruteMinMax(_ values: [ReadValue], leaf: ParquetSchema.Leaf) -> ([UInt8]?, [UInt8]?) {
        func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
        guard leaf.hasMinMax else { return (nil, nil) }
        switch leaf.type {
        case .boolean: return (nil, nil)
        case .int32, .int64:
            let ints = values.compactMap { if case .int(let i) = $0 { i } else { nil } }
            guard let lo = ints.min(), let hi = ints.max() else { return (nil, nil) }
            return leaf.type == .int32 ? (le(Int32(lo)), le(Int32(hi))) : (le(lo), le(hi))
        case .double:
            let ds = values.compactMap { if case .double(let d) = $0 { Double(bitPattern: d) } else { nil } }
                .filter { !$0.isNaN }
            guard let lo = ds.min(), let hi = ds.max() else { return (nil, nil) }
            return (le((lo == 0 ? -0.0 : lo).bitPattern), le((hi == 0 ? 0.0 : hi).bitPattern))
        case .byteArray:
            let bs = values.compactMap { if case .bytes(let b) = $0 { b } else { nil } }
            guard !bs.isEmpty else { return (nil, nil) }
            let sorted = bs.sorted { $0.lexicographicallyPrecedes($1) }
            return (sorted.first, sorted.last)
        }
    }

    /// The flattened schema: root, fields, groups before their children, types and repetitions.
    static func checkSchema(_ read: ReadParquet, schema: ParquetSchema) throws {
        #expect(read.schema.first?[4]?.string == "schema" && read.schema.first?[5]?.int == schema.fields.count)
        var names: [String] = []
        for field in schema.fields {
            switch field {
            case .leaf(let leaf): names.append(leaf.name)
            case .group(let name, let children): names += [name] + children.map(\.name)
            }
        }
        #expect(read.schema.dropFirst().map { $0[4]?.string ?? "" } == names)
        for (element, (_, leaf)) in zip(read.schema.dropFirst().filter { $0[1] != nil }, schema.leaves) {
            #expect(element[1]?.int == Int(leaf.type.rawValue) && element[3]?.int == (leaf.isOptional ? 1 : 0))
            #expect((element[6]?.int == 0) == leaf.isString && (element[10]?[1] != nil) == leaf.isString)
        }
        #expect(read.footer[7]?.list?.count == schema.leaves.count)
    }

    @Test("a repetitive string column is dictionary-encoded, a unique one and a geometry are not")
    func dictionaryChoice() throws {
        let schema = ParquetSchema([
            .leaf(.string("class")), .leaf(.string("geohash")),
            .leaf(ParquetSchema.Leaf("geometry", .byteArray, allowsDictionary: false))
        ])
        var columns = schema.leaves.map { ParquetColumnData($0.leaf) }
        for k in 0..<1000 {
            columns[0].append(["safe", "medium", "dangerous"][k % 3])
            columns[1].append("gcw2j\(k)")
            columns[2].append(bytes: [1, 2, 3])
        }
        let read = try ReadParquet(try Self.write(schema, groups: [columns], compression: .gzip(level: 6)))
        let chunks = try #require(read.footer[4]?.list?.first?[1]?.list)
        #expect(chunks.map { $0[3]?[11] != nil } == [true, false, false])
        #expect(chunks.map { $0[3]?[2]?.list?.last?.int } == [8, 3, 3])
        #expect(
            read.columns[0].prefix(3) == [
                .bytes(Array("safe".utf8)), .bytes(Array("medium".utf8)),
                .bytes(Array("dangerous".utf8))
            ])
    }

    @Test("a table without rows is a valid file with no row group")
    func emptyTable() throws {
        let bytes = try Self.write(ParquetSchema([.leaf(.int64("n"))]), groups: [], compression: .gzip(level: 6))
        let read = try ReadParquet(bytes)
        #expect(read.rowCount == 0 && read.rowGroupSizes.isEmpty && read.columns == [[]])
    }
}
