/// Little-endian binary writing for the scale-out exchange files (docs/FORMATS.md, "Scale-out
/// exchange files"): fixed-width integers and doubles, strings as a u32 length and UTF-8 bytes.
public struct BinaryWriter: Sendable {
    public var bytes: [UInt8] = []

    public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    @inline(__always) public mutating func u8(_ v: UInt8) { bytes.append(v) }
    @inline(__always) public mutating func i8(_ v: Int8) { bytes.append(UInt8(bitPattern: v)) }
    @inline(__always) public mutating func u16(_ v: UInt16) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }
    @inline(__always) public mutating func u32(_ v: UInt32) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }
    @inline(__always) public mutating func u64(_ v: UInt64) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }
    @inline(__always) public mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    @inline(__always) public mutating func f64(_ v: Double) { u64(v.bitPattern) }

    public mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { text in
            u32(UInt32(text.count))
            bytes.append(contentsOf: text)
        }
    }

    /// An optional string: length 0xFFFF_FFFF for none.
    public mutating func optionalString(_ s: String?) {
        if let s { string(s) } else { u32(.max) }
    }
}

/// Reads what `BinaryWriter` wrote; every read checks the bounds and throws on a short or
/// malformed buffer (a damaged exchange file is an error naming it, never a crash).
public struct BinaryReader {
    public let bytes: [UInt8]
    public private(set) var offset = 0
    let name: String

    public struct Malformed: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public init(_ bytes: [UInt8], name: String) {
        self.bytes = bytes
        self.name = name
    }

    public var atEnd: Bool { offset >= bytes.count }

    @inline(__always)
    mutating func take(_ n: Int) throws -> Int {
        guard n >= 0, bytes.count - offset >= n else {
            throw Malformed(description: "\(name): cut off at byte \(offset) (needed \(n) more)")
        }
        defer { offset += n }
        return offset
    }

    @inline(__always)
    mutating func load<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let at = try take(MemoryLayout<T>.size)
        return bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: T.self)) }
    }

    public mutating func u8() throws -> UInt8 { try load(UInt8.self) }
    public mutating func i8() throws -> Int8 { Int8(bitPattern: try load(UInt8.self)) }
    public mutating func u16() throws -> UInt16 { try load(UInt16.self) }
    public mutating func u32() throws -> UInt32 { try load(UInt32.self) }
    public mutating func u64() throws -> UInt64 { try load(UInt64.self) }
    public mutating func i64() throws -> Int64 { Int64(bitPattern: try load(UInt64.self)) }
    public mutating func f64() throws -> Double { Double(bitPattern: try load(UInt64.self)) }

    public mutating func raw(_ n: Int) throws -> ArraySlice<UInt8> {
        let at = try take(n)
        return bytes[at..<(at + n)]
    }

    public mutating func string() throws -> String {
        let n = Int(try u32())
        return String(decoding: try raw(n), as: UTF8.self)
    }

    public mutating func optionalString() throws -> String? {
        let n = try u32()
        if n == .max { return nil }
        return String(decoding: try raw(Int(n)), as: UTF8.self)
    }

    /// Checks an 8-byte magic and returns the version digit string after it.
    public mutating func expectMagic(_ magic: String) throws {
        let expected = Array(magic.utf8)
        let got = Array(try raw(expected.count))
        guard got == expected else {
            throw Malformed(description: "\(name): not a \(magic) file (starts with \(got.prefix(8)))")
        }
    }
}

/// One accepted incident as the scale-out stages exchange it (SPEC §15): what the grid needs, a
/// digest of its key to de-duplicate on, and a digest of its whole stored content to tell a
/// duplicate from an update (SPEC §4).
public struct CanonicalRecord: Sendable, Equatable {
    /// First 16 bytes of SHA-256 of the key.
    public var keyHigh: UInt64
    public var keyLow: UInt64
    /// First 8 bytes of SHA-256 of every stored field but the key.
    public var content: UInt64
    public var lat: Double
    public var lon: Double
    /// UTC epoch seconds.
    public var time: Int64
    /// 1 true, 0 false, -1 unknown.
    public var handled: Int8
    public var category: String?

    public init(
        keyHigh: UInt64, keyLow: UInt64, content: UInt64, lat: Double, lon: Double, time: Int64,
        handled: Int8, category: String?
    ) {
        self.keyHigh = keyHigh
        self.keyLow = keyLow
        self.content = content
        self.lat = lat
        self.lon = lon
        self.time = time
        self.handled = handled
        self.category = category
    }

    /// `AWREC` files: the magic, the version, then the index of the input file the records come
    /// from (0xFFFF_FFFF once de-duplicated), then records until the end.
    public static let magic = "AWREC001"
    public static let deduplicated = UInt32.max

    public func encode(to w: inout BinaryWriter) {
        w.u64(keyHigh)
        w.u64(keyLow)
        w.u64(content)
        w.f64(lat)
        w.f64(lon)
        w.i64(time)
        w.i8(handled)
        w.optionalString(category)
    }

    public static func decode(from r: inout BinaryReader) throws -> CanonicalRecord {
        let keyHigh = try r.u64(), keyLow = try r.u64(), content = try r.u64()
        let lat = try r.f64(), lon = try r.f64(), time = try r.i64(), handled = try r.i8()
        let category = try r.optionalString()
        guard lat.isFinite, lon.isFinite, (-90...90).contains(lat), (-180...180).contains(lon),
            (-1...1).contains(handled)
        else {
            throw BinaryReader.Malformed(description: "\(r.name): invalid record before byte \(r.offset)")
        }
        return CanonicalRecord(
            keyHigh: keyHigh, keyLow: keyLow, content: content, lat: lat, lon: lon, time: time,
            handled: handled, category: category)
    }

    /// The header of an `AWREC` file.
    public static func header(fileIndex: UInt32) -> BinaryWriter {
        var w = BinaryWriter(capacity: 1 << 16)
        for b in magic.utf8 { w.u8(b) }
        w.u32(fileIndex)
        return w
    }

    /// Reads a whole `AWREC` file: the file index and the records, in order.
    public static func readAll(_ bytes: [UInt8], name: String) throws -> (fileIndex: UInt32, records: [CanonicalRecord])
    {
        var r = BinaryReader(bytes, name: name)
        try r.expectMagic(magic)
        let fileIndex = try r.u32()
        var records: [CanonicalRecord] = []
        records.reserveCapacity(bytes.count / 60)
        while !r.atEnd { records.append(try decode(from: &r)) }
        return (fileIndex, records)
    }
}
