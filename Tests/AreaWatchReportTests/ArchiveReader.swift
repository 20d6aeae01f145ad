import CZlib
import Foundation
import Testing

/// An independent reader of what grid.pmtiles holds: PMTiles v3 header and directories, gzip,
/// protobuf and MVT 2.1, written from the specifications for the tests (it shares no code with the
/// writer).
struct DecodeError: Error, CustomStringConvertible {
    var description: String
}

/// gunzip with zlib's own gzip wrapper (checks the header, CRC and length).
func gunzip(_ data: [UInt8]) throws -> [UInt8] {
    var stream = z_stream()
    guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
        throw DecodeError(description: "inflateInit2")
    }
    defer { inflateEnd(&stream) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    var input = data
    var status: Int32 = Z_OK
    try input.withUnsafeMutableBufferPointer { i in
        stream.next_in = i.baseAddress
        stream.avail_in = uInt(i.count)
        repeat {
            let produced = chunk.withUnsafeMutableBufferPointer { c -> Int in
                stream.next_out = c.baseAddress
                stream.avail_out = uInt(c.count)
                status = inflate(&stream, Z_NO_FLUSH)
                return c.count - Int(stream.avail_out)
            }
            out += chunk[0..<produced]
            guard status == Z_OK || status == Z_STREAM_END else { throw DecodeError(description: "inflate \(status)") }
        } while status != Z_STREAM_END
        guard stream.avail_in == 0 else { throw DecodeError(description: "bytes after the gzip member") }
    }
    return out
}

/// Reads protobuf fields from a byte slice.
struct WireReader {
    let bytes: [UInt8]
    var position: Int
    let end: Int

    init(_ bytes: [UInt8], range: Range<Int>? = nil) {
        self.bytes = bytes
        position = range?.lowerBound ?? 0
        end = range?.upperBound ?? bytes.count
    }

    var atEnd: Bool { position >= end }

    mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end, shift < 64 else { throw DecodeError(description: "truncated varint at \(position)") }
            let b = bytes[position]
            position += 1
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return result }
            shift += 7
        }
    }

    /// (field number, wire type).
    mutating func key() throws -> (Int, Int) {
        let k = try varint()
        return (Int(k >> 3), Int(k & 7))
    }

    mutating func lengthDelimited() throws -> Range<Int> {
        let n = Int(try varint())
        guard position + n <= end else { throw DecodeError(description: "length \(n) past the end at \(position)") }
        defer { position += n }
        return position..<position + n
    }

    mutating func skip(wireType: Int) throws {
        switch wireType {
        case 0: _ = try varint()
        case 1: position += 8
        case 2: _ = try lengthDelimited()
        case 5: position += 4
        default: throw DecodeError(description: "wire type \(wireType)")
        }
    }

    func string(_ r: Range<Int>) -> String { String(decoding: bytes[r], as: UTF8.self) }

    func packed(_ r: Range<Int>) throws -> [UInt32] {
        var sub = WireReader(bytes, range: r)
        var out: [UInt32] = []
        while !sub.atEnd { out.append(UInt32(try sub.varint())) }
        return out
    }
}

/// A decoded MVT layer.
struct DecodedLayer {
    enum Value: Equatable, Hashable {
        case string(String), uint(UInt64), int(Int64), other
    }

    struct Feature {
        var type: Int
        var properties: [String: Value]
        /// Rings of absolute tile coordinates, closing point left implicit (as ClosePath).
        var rings: [[(x: Int64, y: Int64)]]
    }

    var name = ""
    var version = 1
    var extent = 4096
    var keys: [String] = []
    var values: [Value] = []
    var features: [Feature] = []
}

func decodeTile(_ bytes: [UInt8]) throws -> [DecodedLayer] {
    var r = WireReader(bytes)
    var layers: [DecodedLayer] = []
    while !r.atEnd {
        let (field, wire) = try r.key()
        if field == 3 && wire == 2 {
            layers.append(try decodeLayer(bytes, try r.lengthDelimited()))
        } else {
            try r.skip(wireType: wire)
        }
    }
    return layers
}

private func decodeLayer(_ bytes: [UInt8], _ range: Range<Int>) throws -> DecodedLayer {
    var layer = DecodedLayer()
    var r = WireReader(bytes, range: range)
    var rawFeatures: [(tags: [UInt32], type: Int, geometry: [UInt32])] = []
    while !r.atEnd {
        let (field, wire) = try r.key()
        switch (field, wire) {
        case (15, 0): layer.version = Int(try r.varint())
        case (1, 2): layer.name = r.string(try r.lengthDelimited())
        case (5, 0): layer.extent = Int(try r.varint())
        case (3, 2): layer.keys.append(r.string(try r.lengthDelimited()))
        case (4, 2):
            var v = WireReader(bytes, range: try r.lengthDelimited())
            var value = DecodedLayer.Value.other
            while !v.atEnd {
                let (f, w) = try v.key()
                switch (f, w) {
                case (1, 2): value = .string(v.string(try v.lengthDelimited()))
                case (4, 0): value = .int(Int64(bitPattern: try v.varint()))
                case (5, 0): value = .uint(try v.varint())
                default: try v.skip(wireType: w)
                }
            }
            layer.values.append(value)
        case (2, 2):
            var f = WireReader(bytes, range: try r.lengthDelimited())
            var feature: (tags: [UInt32], type: Int, geometry: [UInt32]) = ([], 0, [])
            while !f.atEnd {
                let (ff, fw) = try f.key()
                switch (ff, fw) {
                case (2, 2): feature.tags = try f.packed(try f.lengthDelimited())
                case (3, 0): feature.type = Int(try f.varint())
                case (4, 2): feature.geometry = try f.packed(try f.lengthDelimited())
                default: try f.skip(wireType: fw)
                }
            }
            rawFeatures.append(feature)
        default: try r.skip(wireType: wire)
        }
    }
    for raw in rawFeatures {
        guard raw.tags.count % 2 == 0 else { throw DecodeError(description: "odd tags") }
        var properties: [String: DecodedLayer.Value] = [:]
        for k in stride(from: 0, to: raw.tags.count, by: 2) {
            let key = Int(raw.tags[k]), value = Int(raw.tags[k + 1])
            guard key < layer.keys.count, value < layer.values.count else {
                throw DecodeError(description: "tag out of range")
            }
            guard properties.updateValue(layer.values[value], forKey: layer.keys[key]) == nil else {
                throw DecodeError(description: "key \(layer.keys[key]) twice")
            }
        }
        layer.features.append(.init(type: raw.type, properties: properties, rings: try decodeRings(raw.geometry)))
    }
    return layer
}

/// MVT geometry commands to rings; the cursor starts at (0, 0) for every feature.
func decodeRings(_ commands: [UInt32]) throws -> [[(x: Int64, y: Int64)]] {
    var rings: [[(x: Int64, y: Int64)]] = []
    var current: [(x: Int64, y: Int64)] = []
    var x: Int64 = 0, y: Int64 = 0, k = 0
    func unzig(_ v: UInt32) -> Int64 { Int64(v >> 1) ^ -Int64(v & 1) }
    while k < commands.count {
        let id = commands[k] & 7, count = Int(commands[k] >> 3)
        k += 1
        switch id {
        case 1, 2:
            guard k + 2 * count <= commands.count else { throw DecodeError(description: "truncated geometry") }
            for _ in 0..<count {
                x += unzig(commands[k])
                y += unzig(commands[k + 1])
                k += 2
                if id == 1 { if !current.isEmpty { throw DecodeError(description: "MoveTo inside a ring") } }
                current.append((x, y))
            }
        case 7:
            guard count == 1 else { throw DecodeError(description: "ClosePath count \(count)") }
            rings.append(current)
            current = []
        default: throw DecodeError(description: "command \(id)")
        }
    }
    guard current.isEmpty else { throw DecodeError(description: "unclosed ring") }
    return rings
}

/// Twice the surveyor's-formula area of a ring in tile coordinates (positive: exterior in MVT 2.1).
func doubledArea(_ ring: [(x: Int64, y: Int64)]) -> Int64 {
    var sum: Int64 = 0
    for k in ring.indices {
        let a = ring[k], b = ring[(k + 1) % ring.count]
        sum += a.x * b.y - b.x * a.y
    }
    return sum
}

/// A decoded PMTiles v3 archive.
struct DecodedArchive {
    struct Header {
        var fields: [UInt64] // the eleven u64 fields, in order
        var clustered: UInt8, internalCompression: UInt8, tileCompression: UInt8, tileType: UInt8
        var minZoom: UInt8, maxZoom: UInt8
        var bounds: [Int32] // min lon, min lat, max lon, max lat (e7)
        var centerZoom: UInt8
        var center: [Int32]
        var rootOffset: Int { Int(fields[0]) }
        var rootLength: Int { Int(fields[1]) }
        var metadataOffset: Int { Int(fields[2]) }
        var metadataLength: Int { Int(fields[3]) }
        var leafOffset: Int { Int(fields[4]) }
        var leafLength: Int { Int(fields[5]) }
        var tileDataOffset: Int { Int(fields[6]) }
        var tileDataLength: Int { Int(fields[7]) }
    }

    struct Entry: Equatable {
        var tileID: UInt64, offset: UInt64, length: UInt64, runLength: UInt64
    }

    let bytes: [UInt8]
    let header: Header
    let metadata: [String: Any]
    /// Tile entries of every directory, leaves resolved, in order.
    let entries: [Entry]
    /// Directories read: root plus leaves.
    let directoryCount: Int

    static func decodeHeader(_ b: [UInt8]) throws -> Header {
        guard b.count >= 127, Array(b[0..<7]) == Array("PMTiles".utf8), b[7] == 3 else {
            throw DecodeError(description: "not PMTiles v3")
        }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(b[at + $1]) << UInt64(8 * $1) } }
        func i32(_ at: Int) -> Int32 {
            Int32(bitPattern: (0..<4).reduce(0) { $0 | UInt32(b[at + $1]) << UInt32(8 * $1) })
        }
        return Header(
            fields: (0..<11).map { u64(8 + 8 * $0) }, clustered: b[96], internalCompression: b[97],
            tileCompression: b[98], tileType: b[99], minZoom: b[100], maxZoom: b[101],
            bounds: [i32(102), i32(106), i32(110), i32(114)], centerZoom: b[118], center: [i32(119), i32(123)])
    }

    static func decodeDirectory(_ raw: [UInt8]) throws -> [Entry] {
        var r = WireReader(raw)
        let n = Int(try r.varint())
        var entries = [Entry](repeating: Entry(tileID: 0, offset: 0, length: 0, runLength: 0), count: n)
        var last: UInt64 = 0
        for k in 0..<n {
            last += try r.varint()
            entries[k].tileID = last
        }
        for k in 0..<n { entries[k].runLength = try r.varint() }
        for k in 0..<n { entries[k].length = try r.varint() }
        for k in 0..<n {
            let v = try r.varint()
            if k > 0 && v == 0 {
                entries[k].offset = entries[k - 1].offset + entries[k - 1].length
            } else {
                guard v > 0 else { throw DecodeError(description: "first offset 0") }
                entries[k].offset = v - 1
            }
        }
        guard r.atEnd else { throw DecodeError(description: "bytes after the directory") }
        return entries
    }

    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        header = try Self.decodeHeader(bytes)
        let h = header
        guard h.internalCompression == 2 else {
            throw DecodeError(description: "internal compression \(h.internalCompression)")
        }
        guard h.rootOffset + h.rootLength <= 16_384 else { throw DecodeError(description: "root past 16 KiB") }
        let meta = try gunzip(Array(bytes[h.metadataOffset..<h.metadataOffset + h.metadataLength]))
        metadata = try #require(try JSONSerialization.jsonObject(with: Data(meta)) as? [String: Any])
        var entries: [Entry] = []
        var directories = 0
        func read(_ offset: Int, _ length: Int, depth: Int) throws {
            guard depth < 4 else { throw DecodeError(description: "directories nested too deep") }
            directories += 1
            for e in try Self.decodeDirectory(try gunzip(Array(bytes[offset..<offset + length]))) {
                if e.runLength == 0 {
                    try read(h.leafOffset + Int(e.offset), Int(e.length), depth: depth + 1)
                } else {
                    entries.append(e)
                }
            }
        }
        try read(h.rootOffset, h.rootLength, depth: 0)
        self.entries = entries
        directoryCount = directories
    }

    /// Every addressed tile id with its stored (compressed) bytes.
    func tiles() -> [(id: UInt64, data: [UInt8])] {
        entries.flatMap { e in
            (0..<e.runLength).map { k in
                let start = header.tileDataOffset + Int(e.offset)
                return (e.tileID + k, Array(bytes[start..<start + Int(e.length)]))
            }
        }
    }
}
