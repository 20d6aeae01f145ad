/// Well-known binary (OGC Simple Features / ISO 13249-3 WKB, 2D) of the geometries a report
/// writes (GeoParquet and GeoPackage): little-endian (byte order 1), geometry type 1 (Point),
/// 3 (Polygon) or 6 (MultiPolygon); for polygons a
/// count of rings and per ring a count of points, each point x (longitude) then y (latitude)
/// as IEEE doubles. Rings are written as given: closing and winding are the caller's.
public enum WKB {
    public typealias Ring = [(x: Double, y: Double)]

    static let pointType: UInt32 = 1
    static let polygonType: UInt32 = 3
    static let multiPolygonType: UInt32 = 6

    /// A Point.
    /// The bounds of every vertex of the polygons, or nil when they have none (an empty
    /// MultiPolygon).
    public static func bounds(_ polygons: [[Ring]]) -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        var b: (minX: Double, minY: Double, maxX: Double, maxY: Double)?
        for p in polygons.joined().joined() {
            b =
                b.map { (min($0.minX, p.x), min($0.minY, p.y), max($0.maxX, p.x), max($0.maxY, p.y)) } ?? (
                    p.x, p.y, p.x, p.y
                )
        }
        return b
    }

    public static func appendPoint(x: Double, y: Double, to out: inout [UInt8]) {
        out.append(1)
        append(pointType, &out)
        append(x.bitPattern, &out)
        append(y.bitPattern, &out)
    }

    /// A Polygon of `rings` (the exterior first).
    public static func appendPolygon(_ rings: [Ring], to out: inout [UInt8]) {
        out.append(1)
        append(polygonType, &out)
        append(UInt32(rings.count), &out)
        for ring in rings {
            append(UInt32(ring.count), &out)
            for p in ring {
                append(p.x.bitPattern, &out)
                append(p.y.bitPattern, &out)
            }
        }
    }

    /// A MultiPolygon: each member a whole WKB Polygon, with its own byte order and type.
    public static func appendMultiPolygon(_ polygons: [[Ring]], to out: inout [UInt8]) {
        out.append(1)
        append(multiPolygonType, &out)
        append(UInt32(polygons.count), &out)
        for rings in polygons { appendPolygon(rings, to: &out) }
    }

    /// The rectangle as a Polygon of one closed counter-clockwise ring from its south-west
    /// corner: (minX minY, maxX minY, maxX maxY, minX maxY, minX minY). No array per call: a
    /// grid has a million of them, so the bytes go in with two appends: the fixed head, then the
    /// ten coordinates as one little-endian block.
    public static func appendRectangle(minX: Double, minY: Double, maxX: Double, maxY: Double, to out: inout [UInt8]) {
        // Byte order 1, type 3 (Polygon), one ring, five points: each count 4 bytes little-endian.
        let head: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (1, 3, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0)
        let (x0, y0, x1, y1) = (
            minX.bitPattern.littleEndian, minY.bitPattern.littleEndian,
            maxX.bitPattern.littleEndian, maxY.bitPattern.littleEndian
        )
        // A homogeneous tuple is laid out like a C array: no padding between its elements.
        let ring = (x0, y0, x1, y0, x1, y1, x0, y1, x0, y0)
        withUnsafeBytes(of: head) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: ring) { out.append(contentsOf: $0) }
    }

    @inline(__always)
    private static func append<T: FixedWidthInteger>(_ v: T, _ out: inout [UInt8]) {
        withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) }
    }
}
