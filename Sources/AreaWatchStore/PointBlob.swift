/// SpatiaLite's BLOB geometry of a point in SRID 4326, byte for byte what `MakePoint(lon, lat,
/// 4326)` returns (SpatiaLite's "BLOB-Geometry" layout, little-endian): 0x00, 0x01 (byte order),
/// SRID (int32), MBR min x, min y, max x, max y (four doubles), 0x7C, class 1 = POINT (int32),
/// x, y (doubles), 0xFE: 60 bytes.
///
/// Measured need (docs/PERFORMANCE.md): binding the bytes skips an SQL function call per row
/// (a geometry allocated, exported and freed inside SpatiaLite). A test compares every stored
/// geometry with `MakePoint`'s.
enum PointBlob {
    static let byteCount = 60

    /// Calls `body` with the point's blob (valid only inside `body`), built on the stack.
    @inline(__always)
    static func with<R>(lat: Double, lon: Double, _ body: (RawSpan) throws -> R) rethrows -> R {
        var blob = InlineArray<60, UInt8>(repeating: 0)
        var elements = blob.mutableSpan
        var raw = elements.mutableBytes
        raw.storeBytes(of: 0x01, toByteOffset: 1, as: UInt8.self)
        raw.storeBytes(of: UInt32(4326).littleEndian, toByteOffset: 2, as: UInt32.self)
        let x = lon.bitPattern.littleEndian, y = lat.bitPattern.littleEndian
        raw.storeBytes(of: x, toByteOffset: 6, as: UInt64.self)
        raw.storeBytes(of: y, toByteOffset: 14, as: UInt64.self)
        raw.storeBytes(of: x, toByteOffset: 22, as: UInt64.self)
        raw.storeBytes(of: y, toByteOffset: 30, as: UInt64.self)
        raw.storeBytes(of: 0x7C, toByteOffset: 38, as: UInt8.self)
        raw.storeBytes(of: UInt32(1).littleEndian, toByteOffset: 39, as: UInt32.self)
        raw.storeBytes(of: x, toByteOffset: 43, as: UInt64.self)
        raw.storeBytes(of: y, toByteOffset: 51, as: UInt64.self)
        raw.storeBytes(of: 0xFE, toByteOffset: 59, as: UInt8.self)
        return try body(blob.span.bytes)
    }
}
