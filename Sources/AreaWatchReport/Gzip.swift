import CZlib

/// gzip (RFC 1952) with a fixed header — no file name, mtime 0, OS 255 "unknown" — so the same
/// input gives the same bytes on every run and machine (zlib's own gzip wrapper writes the build
/// OS). One deflate state is reused for every call: tiles are many and small, and setting up a
/// state costs more than compressing a tile.
final class GzipCompressor {
    private let stream: UnsafeMutablePointer<z_stream>

    /// `level`: zlib's 1…9; 6 is zlib's default balance of size and time.
    init(level: Int32 = 6) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // Negative window bits: raw deflate, the wrapper is written here.
        let status = deflateInit2_(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                                   ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib deflateInit2 failed (\(status))")
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    static let header: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]

    func compress(_ input: [UInt8]) -> [UInt8] {
        deflateReset(stream)
        let bound = Int(deflateBound(stream, uLong(input.count)))
        var out = [UInt8](repeating: 0, count: Self.header.count + bound + 8)
        out.withUnsafeMutableBufferPointer { o in
            for (k, b) in Self.header.enumerated() { o[k] = b }
            input.withUnsafeBufferPointer { i in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: i.baseAddress)
                stream.pointee.avail_in = uInt(i.count)
                stream.pointee.next_out = o.baseAddress! + Self.header.count
                stream.pointee.avail_out = uInt(bound)
                // deflateBound guarantees one call finishes.
                let status = deflate(stream, Z_FINISH)
                precondition(status == Z_STREAM_END, "zlib deflate did not finish (\(status))")
            }
        }
        var count = Self.header.count + Int(stream.pointee.total_out)
        let crc = input.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
        for v in [UInt32(truncatingIfNeeded: crc), UInt32(truncatingIfNeeded: input.count)] {
            for shift in stride(from: 0, to: 32, by: 8) {
                out[count] = UInt8(truncatingIfNeeded: v >> UInt32(shift))
                count += 1
            }
        }
        out.removeLast(out.count - count)
        return out
    }
}
