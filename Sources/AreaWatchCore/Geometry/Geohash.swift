/// A latitude/longitude rectangle in degrees.
public struct GeoBox: Sendable, Hashable {
    public var minLat: Double
    public var minLon: Double
    public var maxLat: Double
    public var maxLon: Double

    public init(minLat: Double, minLon: Double, maxLat: Double, maxLon: Double) {
        self.minLat = minLat
        self.minLon = minLon
        self.maxLat = maxLat
        self.maxLon = maxLon
    }

    public func contains(lat: Double, lon: Double) -> Bool {
        lat >= minLat && lat <= maxLat && lon >= minLon && lon <= maxLon
    }
}

/// The standard geohash (SPEC §6): base32 `0123456789bcdefghjkmnpqrstuvwxyz`, bits interleaved
/// starting with longitude, a coordinate equal to a split value goes to the upper half.
///
/// A location's **code** is the 64-bit interleaved form (32 longitude bits, 32 latitude bits,
/// longitude first from the most significant bit). The top `5p` bits of a code are its cell at
/// precision `p`, so sorting by code puts every cell at every precision in one contiguous range.
public enum Geohash {
    public static let alphabet = Array("0123456789bcdefghjkmnpqrstuvwxyz".utf8)
    public static let maxPrecision = 12

    /// The 64-bit interleaved code of a location. Latitude and longitude must be finite and in range.
    public static func code(lat: Double, lon: Double) -> UInt64 {
        let x = quantize(lon, min: -180, cellSize: 360 / 4_294_967_296, cellsPerUnit: 4_294_967_296 / 360)
        let y = quantize(lat, min: -90, cellSize: 180 / 4_294_967_296, cellsPerUnit: 4_294_967_296 / 180)
        return (spreadBits(x) << 1) | spreadBits(y)
    }

    /// The geohash string of a location at precision 1…12.
    public static func encode(lat: Double, lon: Double, precision: Int) -> String {
        GeohashCell(code: code(lat: lat, lon: lon), precision: precision).string
    }

    /// The index of the 2^32-division interval holding `value`, exactly as bisection would choose it.
    ///
    /// Interval bounds `min + k·cellSize` are exact in binary floating point (cellSize is 45·2^-29
    /// or 45·2^-30), so a floating-point guess corrected against the exact bounds equals the
    /// 32 halving steps without doing them. The guess (times `cellsPerUnit`, 1 / cellSize
    /// rounded) is off by well under a cell, so a correction is rare: each loop sits behind a
    /// plain test, since the compiler turns a bare `while` here into a 16-wide vector search
    /// that ran on every call (Geohash codes were half of the index's gather at 1M incidents).
    @inline(__always)
    static func quantize(_ value: Double, min: Double, cellSize: Double, cellsPerUnit: Double) -> UInt64 {
        let last: Int64 = 4_294_967_295
        let guess = (value - min) * cellsPerUnit
        var k = guess.isFinite ? Int64(Swift.max(0, Swift.min(Double(last), guess))) : 0
        if k > 0 && value < min + Double(k) * cellSize {
            repeat { k -= 1 } while k > 0 && value < min + Double(k) * cellSize
        } else if k < last && value >= min + Double(k + 1) * cellSize {
            repeat { k += 1 } while k < last && value >= min + Double(k + 1) * cellSize
        }
        return UInt64(k)
    }

    /// Moves the low 32 bits of `v` to the even bit positions of the result.
    @inline(__always)
    static func spreadBits(_ v: UInt64) -> UInt64 {
        var x = v & 0xFFFF_FFFF
        x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF
        x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF
        x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F
        x = (x | (x << 2)) & 0x3333_3333_3333_3333
        x = (x | (x << 1)) & 0x5555_5555_5555_5555
        return x
    }

    /// Inverse of `spreadBits`: gathers the even bit positions of `v`.
    @inline(__always)
    static func gatherBits(_ v: UInt64) -> UInt64 {
        var x = v & 0x5555_5555_5555_5555
        x = (x | (x >> 1)) & 0x3333_3333_3333_3333
        x = (x | (x >> 2)) & 0x0F0F_0F0F_0F0F_0F0F
        x = (x | (x >> 4)) & 0x00FF_00FF_00FF_00FF
        x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF
        x = (x | (x >> 16)) & 0x0000_0000_FFFF_FFFF
        return x
    }
}

/// One geohash cell: the top `5·precision` bits of a code.
public struct GeohashCell: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The cell's bits, right-aligned (`5·precision` of them).
    public let prefix: UInt64
    public let precision: Int

    public init(prefix: UInt64, precision: Int) {
        precondition((1...Geohash.maxPrecision).contains(precision), "geohash precision must be 1…12")
        self.prefix = prefix
        self.precision = precision
    }

    /// The cell at `precision` holding a 64-bit code.
    public init(code: UInt64, precision: Int) {
        self.init(prefix: code >> UInt64(64 - 5 * precision), precision: precision)
    }

    public init(lat: Double, lon: Double, precision: Int) {
        self.init(code: Geohash.code(lat: lat, lon: lon), precision: precision)
    }

    /// Parses a geohash string (case-insensitive); nil for an empty, too long or invalid one.
    public init?(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard (1...Geohash.maxPrecision).contains(bytes.count) else { return nil }
        var bits: UInt64 = 0
        for byte in bytes {
            let lower = (byte >= 65 && byte <= 90) ? byte + 32 : byte
            guard let value = Geohash.alphabet.firstIndex(of: lower) else { return nil }
            bits = (bits << 5) | UInt64(value)
        }
        self.init(prefix: bits, precision: bytes.count)
    }

    /// Builds a cell from its column (longitude) and row (latitude) indices.
    public init(lonIndex: UInt64, latIndex: UInt64, precision: Int) {
        let lonBits = GeohashCell.lonBitCount(precision)
        let latBits = GeohashCell.latBitCount(precision)
        // Align both to 32 bits, interleave, then keep the top 5p bits.
        let code =
            (Geohash.spreadBits(lonIndex << UInt64(32 - lonBits)) << 1)
            | Geohash.spreadBits(latIndex << UInt64(32 - latBits))
        self.init(code: code, precision: precision)
    }

    public static func lonBitCount(_ precision: Int) -> Int { (5 * precision + 1) / 2 }
    public static func latBitCount(_ precision: Int) -> Int { 5 * precision / 2 }

    /// The cell's first code; the codes of the cell are `lowerCode ... upperCode`.
    public var lowerCode: UInt64 { prefix << UInt64(64 - 5 * precision) }
    public var upperCode: UInt64 { lowerCode | (UInt64.max >> UInt64(5 * precision)) }

    public var lonIndex: UInt64 {
        Geohash.gatherBits(lowerCode >> 1) >> UInt64(32 - GeohashCell.lonBitCount(precision))
    }

    public var latIndex: UInt64 {
        Geohash.gatherBits(lowerCode) >> UInt64(32 - GeohashCell.latBitCount(precision))
    }

    /// Width of a cell at this precision, in degrees of longitude (exact).
    public static func lonSpan(_ precision: Int) -> Double { 360 / Double(UInt64(1) << UInt64(lonBitCount(precision))) }
    /// Height of a cell at this precision, in degrees of latitude (exact).
    public static func latSpan(_ precision: Int) -> Double { 180 / Double(UInt64(1) << UInt64(latBitCount(precision))) }

    public var bounds: GeoBox {
        let w = GeohashCell.lonSpan(precision), h = GeohashCell.latSpan(precision)
        let minLon = -180 + Double(lonIndex) * w
        let minLat = -90 + Double(latIndex) * h
        return GeoBox(minLat: minLat, minLon: minLon, maxLat: minLat + h, maxLon: minLon + w)
    }

    /// The midpoint of the cell's bounds (exact: all bounds are dyadic).
    public var centre: (lat: Double, lon: Double) {
        (
            GeohashCell.centreLatitude(row: Int64(latIndex), precision: precision),
            GeohashCell.centreLongitude(column: Int64(lonIndex), precision: precision)
        )
    }

    /// Centre latitude of the cells in lattice row `row` at a precision (exact).
    @inline(__always)
    public static func centreLatitude(row: Int64, precision: Int) -> Double {
        let h = latSpan(precision)
        let minLat = -90 + Double(row) * h
        return (minLat + (minLat + h)) / 2
    }

    /// Centre longitude of the cells in lattice column `column` at a precision (exact).
    @inline(__always)
    public static func centreLongitude(column: Int64, precision: Int) -> Double {
        let w = lonSpan(precision)
        let minLon = -180 + Double(column) * w
        return (minLon + (minLon + w)) / 2
    }

    public var string: String {
        String(unsafeUninitializedCapacity: precision) { buffer in
            var span = buffer.mutableSpan
            writeCharacters(into: &span, at: 0)
            return precision
        }
    }

    /// Appends the cell's characters to `out` without a String or an array in between (the
    /// report writers do this for every cell of every file).
    @inline(__always)
    public func appendCharacters(to out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: precision))
        var span = out.mutableSpan
        writeCharacters(into: &span, at: start)
    }

    /// The characters into `precision` bytes of `out` from `start` on.
    @inline(__always)
    private func writeCharacters(into out: inout MutableSpan<UInt8>, at start: Int) {
        var bits = prefix
        let alphabet = Geohash.alphabet.span
        for i in stride(from: precision - 1, through: 0, by: -1) {
            out[start + i] = alphabet[Int(bits & 31)]
            bits >>= 5
        }
    }

    public var description: String { string }

    /// The enclosing cell at a lower precision.
    public func parent(precision p: Int) -> GeohashCell {
        precondition(p <= precision)
        return GeohashCell(prefix: prefix >> UInt64(5 * (precision - p)), precision: p)
    }

    /// The cell `rows` north and `columns` east of this one; longitude wraps, latitude stops at
    /// the poles (nil beyond them).
    public func offset(rows: Int, columns: Int) -> GeohashCell? {
        let latCount = Int64(1) << Int64(GeohashCell.latBitCount(precision))
        let lonCount = Int64(1) << Int64(GeohashCell.lonBitCount(precision))
        let row = Int64(latIndex) + Int64(rows)
        guard row >= 0 && row < latCount else { return nil }
        var column = (Int64(lonIndex) + Int64(columns)) % lonCount
        if column < 0 { column += lonCount }
        return GeohashCell(lonIndex: UInt64(column), latIndex: UInt64(row), precision: precision)
    }

    /// The eight neighbours N, NE, E, SE, S, SW, W, NW; those beyond a pole are left out.
    public var neighbours: [GeohashCell] {
        [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]
            .compactMap { offset(rows: $0.0, columns: $0.1) }
    }

    public static func < (a: GeohashCell, b: GeohashCell) -> Bool {
        a.lowerCode != b.lowerCode ? a.lowerCode < b.lowerCode : a.precision < b.precision
    }
}
