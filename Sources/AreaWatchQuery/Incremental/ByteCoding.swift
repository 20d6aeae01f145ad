/// Little-endian fields appended to bytes, for the grid count state file.
struct ByteWriter {
    var data: [UInt8] = []

    mutating func bytes(_ b: [UInt8]) { data += b }
    mutating func u8(_ v: UInt8) { data.append(v) }
    mutating func u16(_ v: UInt16) { put(UInt64(v), 2) }
    mutating func u32(_ v: UInt32) { put(UInt64(v), 4) }
    mutating func u64(_ v: UInt64) { put(v, 8) }
    mutating func i64(_ v: Int64) { put(UInt64(bitPattern: v), 8) }

    /// u32 byte length, then the UTF-8 bytes.
    mutating func string(_ s: String) {
        let utf8 = Array(s.utf8)
        u32(UInt32(utf8.count))
        data += utf8
    }

    private mutating func put(_ v: UInt64, _ n: Int) {
        withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0.prefix(n)) }
    }

    /// 64-bit FNV-1a: the state guards against damage, not forgery.
    static func fnv1a(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.withUnsafeBufferPointer { buffer in
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in buffer { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
            return h
        }
    }
}

/// Reads what `ByteWriter` wrote; every read is bounds-checked (nil past the end).
struct ByteReader {
    private let data: [UInt8]
    private var at: Int
    private let end: Int

    init(_ data: [UInt8], at: Int = 0, end: Int? = nil) {
        self.data = data
        self.at = at
        self.end = end ?? data.count
    }

    var remaining: Int { end - at }
    var atEnd: Bool { at == end }

    mutating func skip(_ n: Int) { at += n }

    mutating func bytes(_ n: Int) -> [UInt8]? {
        guard n >= 0, n <= remaining else { return nil }
        defer { at += n }
        return Array(data[at..<(at + n)])
    }

    mutating func u8() -> UInt8? { get(1).map { UInt8($0) } }
    mutating func u16() -> UInt16? { get(2).map { UInt16($0) } }
    mutating func u32() -> UInt32? { get(4).map { UInt32($0) } }
    mutating func u64() -> UInt64? { get(8) }
    mutating func i64() -> Int64? { get(8).map { Int64(bitPattern: $0) } }

    mutating func string() -> String? {
        guard let n = u32(), let b = bytes(Int(n)) else { return nil }
        return String(decoding: b, as: UTF8.self)
    }

    private mutating func get(_ n: Int) -> UInt64? {
        guard n <= remaining else { return nil }
        let start = at
        at += n
        if n == 8 {
            return UInt64(
                littleEndian: data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: start, as: UInt64.self) })
        }
        var v: UInt64 = 0
        for k in 0..<n { v |= UInt64(data[start + k]) << (8 * UInt64(k)) }
        return v
    }
}
