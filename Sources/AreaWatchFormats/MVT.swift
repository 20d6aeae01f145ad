/// The Protocol Buffers wire format, as much of it as a vector tile and a PMTiles directory
/// need: varints, zigzag and length-delimited fields.
///
/// Hand-written rather than apple/swift-protobuf: a tile is three message types with a dozen
/// fields, and the encoder appends every tile to reused buffers (no message objects, no
/// per-feature arrays, no generated code to keep in step with the .proto, no protoc in the build).
/// Measured (release, `areawatch benchmark query --report-folder`, 1M-incident city, zooms 10–14:
/// 1,231 tiles, 135,784 features): grouping 0.02 s, MVT encoding 0.04 s (over 3M features/s),
/// gzip 0.08 s of CPU. swift-protobuf was not built for comparison; its generated messages hold a
/// `[UInt32]` per feature's tags and geometry and serialize them afterwards, which cannot beat
/// appending varints once, so the most it could change is part of the 0.04 s. Inlinable: the
/// report's tile encoder calls these for every feature.
public enum Protobuf {
    /// Wire types (protobuf encoding §"Message Structure").
    public static let varintType: UInt64 = 0
    public static let lengthType: UInt64 = 2

    @inlinable @inline(__always)
    public static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// The bytes `appendVarint` writes for `v`.
    @inlinable
    public static func varintSize(_ v: UInt64) -> Int {
        v == 0 ? 1 : (64 - v.leadingZeroBitCount + 6) / 7
    }

    /// Zigzag: 0, −1, 1, −2, … → 0, 1, 2, 3, … so small negative numbers stay short.
    @inlinable @inline(__always)
    public static func zigzag(_ value: Int32) -> UInt32 {
        UInt32(bitPattern: (value << 1) ^ (value >> 31))
    }

    @inlinable @inline(__always)
    public static func appendKey(field: Int, wireType: UInt64, to out: inout [UInt8]) {
        appendVarint(UInt64(field) << 3 | wireType, to: &out)
    }

    @inlinable
    public static func appendVarintField(_ field: Int, _ value: UInt64, to out: inout [UInt8]) {
        appendKey(field: field, wireType: varintType, to: &out)
        appendVarint(value, to: &out)
    }

    @inlinable
    public static func appendBytesField(_ field: Int, _ bytes: [UInt8], to out: inout [UInt8]) {
        appendKey(field: field, wireType: lengthType, to: &out)
        appendVarint(UInt64(bytes.count), to: &out)
        out.append(contentsOf: bytes)
    }

    @inlinable
    public static func appendStringField(_ field: Int, _ text: String, to out: inout [UInt8]) {
        appendKey(field: field, wireType: lengthType, to: &out)
        appendVarint(UInt64(text.utf8.count), to: &out)
        out.append(contentsOf: text.utf8)
    }
}

/// Mapbox Vector Tile 2.1 geometry: command integers and zigzag parameters.
public enum MVT {
    /// An axis-aligned rectangle in tile coordinates: x0 < x1 west to east, y0 < y1 north to south.
    public struct Rectangle: Sendable, Equatable {
        public var x0: Int32, y0: Int32, x1: Int32, y1: Int32

        public init(x0: Int32, y0: Int32, x1: Int32, y1: Int32) {
            (self.x0, self.y0, self.x1, self.y1) = (x0, y0, x1, y1)
        }
    }

    /// A rectangle as a polygon's one exterior ring: MoveTo the north-west corner, LineTo
    /// north-east, south-east, south-west, ClosePath (clockwise on screen, the positive area MVT
    /// 2.1 §4.3.4.3 asks of an exterior ring); each parameter a zigzag delta from the cursor,
    /// which starts at (0, 0) for every feature.
    @inlinable
    public static func appendRectangle(_ r: Rectangle, to out: inout [UInt8]) {
        func command(_ id: UInt32, count: UInt32) { Protobuf.appendVarint(UInt64(id & 0x7 | count << 3), to: &out) }
        func delta(_ dx: Int32, _ dy: Int32) {
            Protobuf.appendVarint(UInt64(Protobuf.zigzag(dx)), to: &out)
            Protobuf.appendVarint(UInt64(Protobuf.zigzag(dy)), to: &out)
        }
        command(1, count: 1)
        delta(r.x0, r.y0)
        command(2, count: 3)
        delta(r.x1 - r.x0, 0)
        delta(0, r.y1 - r.y0)
        delta(r.x0 - r.x1, 0)
        command(7, count: 1)
    }

    /// A vertex in tile coordinates (x east, y south).
    public struct Point: Sendable, Equatable {
        public var x: Int32, y: Int32

        public init(x: Int32, y: Int32) {
            (self.x, self.y) = (x, y)
        }
    }

    /// Polygons of one exterior ring each: per ring MoveTo its first vertex, LineTo each other
    /// vertex, ClosePath (MVT 2.1 §4.3.4.4); every parameter a zigzag delta from the cursor, which
    /// starts at (0, 0) and carries over from ring to ring. The caller gives each ring not closed,
    /// with at least three vertices and the positive area an exterior ring must have.
    public static func appendPolygons(_ rings: [[Point]], to out: inout [UInt8]) {
        func command(_ id: UInt32, count: Int) {
            Protobuf.appendVarint(UInt64(id & 0x7 | UInt32(count) << 3), to: &out)
        }
        var cursor = Point(x: 0, y: 0)
        func moveCursor(to p: Point) {
            Protobuf.appendVarint(UInt64(Protobuf.zigzag(p.x &- cursor.x)), to: &out)
            Protobuf.appendVarint(UInt64(Protobuf.zigzag(p.y &- cursor.y)), to: &out)
            cursor = p
        }
        for ring in rings {
            command(1, count: 1)
            moveCursor(to: ring[0])
            command(2, count: ring.count - 1)
            for p in ring.dropFirst() { moveCursor(to: p) }
            command(7, count: 1)
        }
    }
}
