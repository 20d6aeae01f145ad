import AreaWatchFormats
import CZstd

/// The tests' own reader of what the Parquet writer writes, sharing no code with it: the Thrift
/// compact protocol read into a generic tree, the footer, and every page (gzip through `Gzip.inflate`,
/// zlib's inflate; zstd through libzstd; definition levels and dictionary indices through an RLE / bit-packed decoder).
public struct TestReadError: Error, CustomStringConvertible {
    public let description: String
}

public indirect enum ThriftValue: Equatable {
    case int(Int64)
    case bool(Bool)
    case double(Double)
    case binary([UInt8])
    case list([ThriftValue])
    case structure([Int16: ThriftValue])

    public var int: Int? { if case .int(let v) = self { Int(v) } else { nil } }
    public var binary: [UInt8]? { if case .binary(let v) = self { v } else { nil } }
    public var string: String? { binary.map { String(decoding: $0, as: UTF8.self) } }
    public var list: [ThriftValue]? { if case .list(let v) = self { v } else { nil } }
    public var fields: [Int16: ThriftValue]? { if case .structure(let v) = self { v } else { nil } }
    public subscript(_ id: Int16) -> ThriftValue? { fields?[id] }
}

public struct ByteCursor {
    public let bytes: [UInt8]
    public var at: Int

    public init(bytes: [UInt8], at: Int) {
        self.bytes = bytes
        self.at = at
    }

    public mutating func byte() throws -> UInt8 {
        guard at < bytes.count else { throw TestReadError(description: "read past the end at \(at)") }
        defer { at += 1 }
        return bytes[at]
    }

    public mutating func take(_ n: Int) throws -> [UInt8] {
        guard n >= 0, at + n <= bytes.count else {
            throw TestReadError(description: "\(n) bytes past the end at \(at)")
        }
        defer { at += n }
        return Array(bytes[at..<(at + n)])
    }

    public mutating func varint() throws -> UInt64 {
        var v: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte()
            v |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return v }
            shift += 7
            guard shift < 64 else { throw TestReadError(description: "varint too long") }
        }
    }

    public mutating func zigzag() throws -> Int64 {
        let u = try varint()
        return Int64(bitPattern: u >> 1) ^ -Int64(bitPattern: u & 1)
    }

    public mutating func littleEndian(_ n: Int) throws -> UInt64 {
        try take(n).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    public mutating func thriftStruct() throws -> ThriftValue {
        var fields: [Int16: ThriftValue] = [:]
        var last: Int16 = 0
        while true {
            let header = try byte()
            if header == 0 { return .structure(fields) }
            let type = header & 0x0F
            var id = last + Int16(header >> 4)
            if header >> 4 == 0 { id = Int16(truncatingIfNeeded: try zigzag()) }
            fields[id] = try thriftValue(type, inField: true)
            last = id
        }
    }

    mutating func thriftValue(_ type: UInt8, inField: Bool) throws -> ThriftValue {
        switch type {
        case 1: return .bool(true)
        case 2:
            if inField { return .bool(false) }
            return .bool(try byte() == 1)
        case 3: return .int(Int64(Int8(bitPattern: try byte())))
        case 4, 5, 6: return .int(try zigzag())
        case 7: return .double(Double(bitPattern: try littleEndian(8)))
        case 8: return .binary(try take(Int(try varint())))
        case 9, 10:
            let header = try byte()
            var count = Int(header >> 4)
            if count == 15 { count = Int(try varint()) }
            return .list(try (0..<count).map { _ in try thriftValue(header & 0x0F, inField: false) })
        case 12: return try thriftStruct()
        default: throw TestReadError(description: "thrift type \(type) at \(at)")
        }
    }
}

/// RLE / bit-packed hybrid, `count` values of `width` bits.
public func decodeHybrid(_ cursor: inout ByteCursor, width: Int, count: Int) throws -> [UInt32] {
    var out: [UInt32] = []
    while out.count < count {
        let header = try cursor.varint()
        if header & 1 == 0 {
            let value = try cursor.littleEndian((width + 7) / 8)
            out += Array(repeating: UInt32(value), count: Int(header >> 1))
        } else {
            let packed = try cursor.take(Int(header >> 1) * width)
            for k in 0..<(Int(header >> 1) * 8) {
                var v: UInt32 = 0
                for bit in 0..<width where packed[(k * width + bit) / 8] >> UInt8((k * width + bit) % 8) & 1 == 1 {
                    v |= 1 << UInt32(bit)
                }
                out.append(v)
            }
        }
    }
    return Array(out.prefix(count))
}

/// A value as read back: integers and doubles (by bit pattern) compare exactly.
public enum ReadValue: Equatable, CustomStringConvertible {
    case bool(Bool)
    case int(Int64)
    case double(UInt64)
    case bytes([UInt8])

    public var description: String {
        switch self {
        case .bool(let v): "\(v)"
        case .int(let v): "\(v)"
        case .double(let v): "\(Double(bitPattern: v))"
        case .bytes(let v): "\(v)"
        }
    }
}

public struct ReadParquet {
    public var footer: ThriftValue
    public var schema: [ThriftValue]
    public var rowCount: Int
    public var keyValues: [(String, String)]
    /// Per leaf column, every row's value (nil for null), row groups concatenated.
    public var columns: [[ReadValue?]] = []
    public var rowGroupSizes: [Int] = []

    public init(_ bytes: [UInt8]) throws {
        let magic = Array("PAR1".utf8)
        guard bytes.count >= 12, Array(bytes.prefix(4)) == magic, Array(bytes.suffix(4)) == magic else {
            throw TestReadError(description: "no PAR1 magic")
        }
        var end = ByteCursor(bytes: bytes, at: bytes.count - 8)
        let length = Int(try end.littleEndian(4))
        var cursor = ByteCursor(bytes: bytes, at: bytes.count - 8 - length)
        footer = try cursor.thriftStruct()
        guard cursor.at == bytes.count - 8 else { throw TestReadError(description: "footer length mismatch") }
        schema = footer[2]?.list ?? []
        rowCount = footer[3]?.int ?? -1
        keyValues = (footer[5]?.list ?? []).map { ($0[1]?.string ?? "", $0[2]?.string ?? "") }
        let leaves = schema.dropFirst().filter { $0[1] != nil }
        columns = Array(repeating: [], count: leaves.count)
        for group in footer[4]?.list ?? [] {
            rowGroupSizes.append(group[3]?.int ?? -1)
            for (k, chunk) in (group[1]?.list ?? []).enumerated() {
                columns[k] += try Self.readChunk(bytes, chunk[3] ?? .structure([:]), optional: leaves[k][3]?.int == 1)
            }
        }
    }

    /// The leaf columns' names (dotted paths) as the chunks list them.
    public var leafPaths: [String] {
        (footer[4]?.list?.first?[1]?.list ?? []).map { chunk in
            (chunk[3]?[3]?.list ?? []).compactMap(\.string).joined(separator: ".")
        }
    }

    static func readChunk(_ bytes: [UInt8], _ meta: ThriftValue, optional: Bool) throws -> [ReadValue?] {
        let type = meta[1]?.int ?? -1
        var cursor = ByteCursor(bytes: bytes, at: meta[11]?.int ?? meta[9]?.int ?? 0)
        var dictionary: [ReadValue] = []
        if meta[11] != nil {
            let header = try cursor.thriftStruct()
            let body = try pageBody(&cursor, header, codec: meta[4]?.int ?? 0)
            var b = ByteCursor(bytes: body, at: 0)
            dictionary = try plain(&b, type: type, count: header[7]?[1]?.int ?? 0)
        }
        guard cursor.at == meta[9]?.int else { throw TestReadError(description: "data page not where the chunk says") }
        let header = try cursor.thriftStruct()
        let rows = header[5]?[1]?.int ?? 0
        var body = ByteCursor(bytes: try pageBody(&cursor, header, codec: meta[4]?.int ?? 0), at: 0)
        var defined = Array(repeating: true, count: rows)
        if optional {
            let length = Int(try body.littleEndian(4))
            var levels = ByteCursor(bytes: try body.take(length), at: 0)
            defined = try decodeHybrid(&levels, width: 1, count: rows).map { $0 == 1 }
        }
        let present = defined.filter { $0 }.count
        var values: [ReadValue]
        switch header[5]?[2]?.int ?? -1 {
        case 0: values = try plain(&body, type: type, count: present)
        case 8:
            let width = Int(try body.byte())
            values = try decodeHybrid(&body, width: width, count: present).map { dictionary[Int($0)] }
        default: throw TestReadError(description: "encoding \(String(describing: header[5]?[2]))")
        }
        var it = values.makeIterator()
        return defined.map { $0 ? it.next() : nil }
    }

    static func pageBody(_ cursor: inout ByteCursor, _ header: ThriftValue, codec: Int) throws -> [UInt8] {
        let stored = try cursor.take(header[3]?.int ?? 0)
        let body: [UInt8]
        switch codec {
        case 0: body = stored
        case 2: body = try Gzip.inflate(stored, limit: 1 << 30)
        case 6: body = try zstdDecompress(stored, size: header[2]?.int ?? 0)
        default: throw TestReadError(description: "codec \(codec)")
        }
        guard body.count == header[2]?.int else { throw TestReadError(description: "page size mismatch") }
        return body
    }

    /// A zstd frame through the library itself (the writer's side is `ZstdCompressor`).
    static func zstdDecompress(_ frame: [UInt8], size: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: size)
        let n = out.withUnsafeMutableBytes { o in
            frame.withUnsafeBytes { i in ZSTD_decompress(o.baseAddress, size, i.baseAddress, i.count) }
        }
        guard ZSTD_isError(n) == 0, n == size else {
            throw TestReadError(description: "a zstd page that does not inflate")
        }
        return out
    }

    static func plain(_ c: inout ByteCursor, type: Int, count: Int) throws -> [ReadValue] {
        switch type {
        case 0:
            let packed = try c.take((count + 7) / 8)
            return (0..<count).map { .bool(packed[$0 / 8] >> UInt8($0 % 8) & 1 == 1) }
        case 1: return try (0..<count).map { _ in .int(Int64(Int32(bitPattern: UInt32(try c.littleEndian(4))))) }
        case 2: return try (0..<count).map { _ in .int(Int64(bitPattern: try c.littleEndian(8))) }
        case 5: return try (0..<count).map { _ in .double(try c.littleEndian(8)) }
        case 6: return try (0..<count).map { _ in .bytes(try c.take(Int(try c.littleEndian(4)))) }
        default: throw TestReadError(description: "physical type \(type)")
        }
    }
}
