import AreaWatchCore
import AreaWatchTestSupport
import Testing

@testable import AreaWatchFormats

/// The Thrift compact protocol and the RLE / bit-packed hybrid against bytes worked out by hand
/// from their specifications (Apache Thrift's compact protocol description, parquet-format's
/// Encodings.md).
@Suite("Parquet encodings")
struct ParquetEncodingTests {
    @Test("varints: seven bits a byte, low group first")
    func varints() {
        func bytes(_ v: UInt64) -> [UInt8] {
            var out: [UInt8] = []
            ThriftCompactWriter.appendVarint(v, to: &out)
            return out
        }
        #expect(bytes(0) == [0x00])
        #expect(bytes(1) == [0x01])
        #expect(bytes(127) == [0x7F])
        #expect(bytes(128) == [0x80, 0x01])
        #expect(bytes(300) == [0xAC, 0x02])
        #expect(bytes(16_384) == [0x80, 0x80, 0x01])
        #expect(bytes(UInt64.max) == Array(repeating: 0xFF, count: 9) + [0x01])
    }

    @Test("zigzag: 0, -1, 1, -2 … to 0, 1, 2, 3 …, the extremes included")
    func zigzag() {
        #expect([0, -1, 1, -2, 2].map(ThriftCompactWriter.zigzag) == [0, 1, 2, 3, 4])
        #expect(ThriftCompactWriter.zigzag(2_147_483_647) == 4_294_967_294)
        #expect(ThriftCompactWriter.zigzag(-2_147_483_648) == 4_294_967_295)
        #expect(ThriftCompactWriter.zigzag(Int64.max) == UInt64.max - 1)
        #expect(ThriftCompactWriter.zigzag(Int64.min) == UInt64.max)
    }

    @Test("field headers: short form for deltas 1…15, long form otherwise, reset inside each struct")
    func fieldHeaders() {
        var w = ThriftCompactWriter()
        w.i32(1, 5) // delta 1, i32 (5); zigzag 5 = 10
        w.i64(3, -1) // delta 2, i64 (6); zigzag -1 = 1
        w.i32(20, 0) // delta 17: type byte, then zigzag(20) = 40
        w.i32(2, 1) // backwards: long form, zigzag(2) = 4
        w.bool(3, true) // bool in the type nibble: 1 true
        w.bool(4, false) // 2 false
        w.string(5, "ab") // binary (8): length varint, bytes
        w.structure(6) { $0.i32(1, 1) } // struct (12); the inner count restarts at 0
        w.i32(7, 7) // delta 1 from the struct's id 6, not from the inner 1
        w.stop()
        #expect(
            w.bytes == [
                0x15, 0x0A, 0x26, 0x01, 0x05, 0x28, 0x00, 0x05, 0x04, 0x02, 0x11, 0x12,
                0x18, 0x02, 0x61, 0x62, 0x1C, 0x15, 0x02, 0x00, 0x15, 0x0E, 0x00
            ])
    }

    @Test("lists: size in the header below 15, a varint size from 15 on; struct elements end with stop")
    func lists() {
        var w = ThriftCompactWriter()
        w.i32List(2, [1, 2])
        #expect(w.bytes == [0x29, 0x25, 0x02, 0x04])
        var long = ThriftCompactWriter()
        long.i32List(1, Array(repeating: 0, count: 15))
        #expect(long.bytes == [0x19, 0xF5, 0x0F] + Array(repeating: 0, count: 15))
        var structs = ThriftCompactWriter()
        structs.structList(1, [3, 4]) { v, w in w.i32(2, Int32(v)) }
        #expect(structs.bytes == [0x19, 0x2C, 0x25, 0x06, 0x00, 0x25, 0x08, 0x00])
        var strings = ThriftCompactWriter()
        strings.stringList(3, ["bbox", "x"])
        #expect(strings.bytes == [0x39, 0x28, 0x04] + Array("bbox".utf8) + [0x01] + Array("x".utf8))
    }

    @Test("a data page header, field by field")
    func dataPageHeader() {
        let header = ParquetThrift.PageHeader(
            type: .dataPage, uncompressedSize: 10, compressedSize: 12,
            valueCount: 3, encoding: .rleDictionary
        ).encoded()
        // type 0; sizes 10 and 12 (zigzag 20, 24); field 5 a struct (delta 2): num_values 3,
        // encoding 8, level encodings RLE (3) and RLE; stop; stop.
        #expect(
            header == [
                0x15, 0x00, 0x15, 0x14, 0x15, 0x18, 0x2C, 0x15, 0x06, 0x15, 0x10, 0x15, 0x06, 0x15, 0x06,
                0x00, 0x00
            ])
    }

    @Test("RLE / bit-packed hybrid: runs, packed groups, padding only at the end")
    func hybrid() {
        func encode(_ values: [UInt32], _ width: Int) -> [UInt8] {
            var out: [UInt8] = []
            RLEHybrid.encode(values, bitWidth: width, to: &out)
            return out
        }
        #expect(encode(Array(repeating: 1, count: 10), 1) == [0x14, 0x01])
        // 1,0,1,1,0,0,0,1 from the least significant bit: 0b1000_1101.
        #expect(encode([1, 0, 1, 1, 0, 0, 0, 1], 1) == [0x03, 0x8D])
        // Three values padded to a group at the end.
        #expect(encode([1, 0, 1], 1) == [0x03, 0x05])
        // Encodings.md's example: 0…7 at width 3.
        #expect(encode([0, 1, 2, 3, 4, 5, 6, 7], 3) == [0x03, 0x88, 0xC6, 0xFA])
        // A run's value takes ceil(width / 8) bytes, little-endian.
        #expect(encode(Array(repeating: 300, count: 8), 9) == [0x10, 0x2C, 0x01])
        // A run, then a short tail.
        #expect(encode(Array(repeating: 0, count: 10) + [1, 0, 1], 1) == [0x14, 0x00, 0x03, 0x05])
        // Packed groups stop where a run of 8 starts at a group boundary.
        #expect(encode([1, 0, 1, 0, 1, 0, 1, 0] + Array(repeating: 1, count: 9), 1) == [0x03, 0x55, 0x12, 0x01])
        #expect(RLEHybrid.bitWidth(forValuesBelow: 1) == 1)
        #expect(RLEHybrid.bitWidth(forValuesBelow: 2) == 1)
        #expect(RLEHybrid.bitWidth(forValuesBelow: 3) == 2)
        #expect(RLEHybrid.bitWidth(forValuesBelow: 256) == 8)
        #expect(RLEHybrid.bitWidth(forValuesBelow: 257) == 9)
    }

    @Test("WKB: a rectangle is the Polygon of its five corners; counts are 4-byte, coordinates 8-byte")
    func wkb() {
        var rectangle: [UInt8] = [], polygon: [UInt8] = []
        WKB.appendRectangle(minX: -1.5, minY: 53.5, maxX: -1.25, maxY: 53.75, to: &rectangle)
        WKB.appendPolygon([[(-1.5, 53.5), (-1.25, 53.5), (-1.25, 53.75), (-1.5, 53.75), (-1.5, 53.5)]], to: &polygon)
        #expect(rectangle == polygon)
        #expect(Array(rectangle.prefix(13)) == [1, 3, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0])
        #expect(rectangle.count == 13 + 5 * 16)
        var multi: [UInt8] = []
        WKB.appendMultiPolygon([[[(0, 0), (1, 0), (0, 1), (0, 0)]], [[(2, 2), (3, 2), (2, 3), (2, 2)]]], to: &multi)
        // Byte order, type 6, two members, each a whole Polygon of one ring of four points.
        #expect(Array(multi.prefix(9)) == [1, 6, 0, 0, 0, 2, 0, 0, 0])
        #expect(Array(multi[9..<22]) == [1, 3, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0])
        #expect(multi.count == 9 + 2 * (13 + 4 * 16))
    }

    @Test("RLE / bit-packed hybrid: random values decode to themselves at every width")
    func hybridRoundTrip() throws {
        var random = SplitMix64(seed: 0x5EED_0001)
        for _ in 0..<500 {
            let width = 1 + Int(random.next() % 32)
            let count = Int(random.next() % 300)
            var values: [UInt32] = []
            while values.count < count {
                let v = UInt32(truncatingIfNeeded: random.next()) & UInt32((1 << width) - 1)
                // Runs of every length, so both kinds of run and their boundaries occur.
                values += Array(repeating: v, count: random.next() % 3 == 0 ? Int(random.next() % 20) : 1)
            }
            values = Array(values.prefix(count))
            var out: [UInt8] = []
            RLEHybrid.encode(values, bitWidth: width, to: &out)
            var cursor = ByteCursor(bytes: out, at: 0)
            #expect(try decodeHybrid(&cursor, width: width, count: values.count) == values, "width \(width)")
            #expect(cursor.at == out.count, "bytes left over at width \(width)")
        }
    }
}
