import AreaWatchCore
import CZlib

/// gzip (RFC 1952) with a fixed header — no file name, mtime 0, OS 255 "unknown" — so the same
/// input gives the same bytes on every run and machine (zlib's own gzip wrapper writes the build
/// OS). One deflate state is reused for every call: tiles are many and small, and setting up a
/// state costs more than compressing a tile. Not shared between threads: one per thread.
public final class GzipCompressor {
    /// zlib's state keeps a pointer to its `z_stream`, so the stream lives at one address.
    private let stream = PinnedValue(z_stream())

    /// `level`: zlib's 1…9; 6 is zlib's default balance of size and time.
    public init(level: Int32 = 6) {
        // Negative window bits: raw deflate, the wrapper is written here.
        let status = deflateInit2_(
            stream.pointer, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib deflateInit2 failed (\(status))")
    }

    deinit {
        deflateEnd(stream.pointer)
    }

    public static let header: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]

    /// `input` as one gzip member.
    public func compress(_ input: [UInt8]) -> [UInt8] {
        let z = stream.pointer
        deflateReset(z)
        let bound = Int(deflateBound(z, uLong(input.count)))
        var out = [UInt8](repeating: 0, count: Self.header.count + bound + 8)
        out.withUnsafeMutableBufferPointer { o in
            for (k, b) in Self.header.enumerated() { o[k] = b }
            input.withUnsafeBufferPointer { i in
                z.pointee.next_in = UnsafeMutablePointer(mutating: i.baseAddress)
                z.pointee.avail_in = uInt(i.count)
                z.pointee.next_out = o.baseAddress! + Self.header.count
                z.pointee.avail_out = uInt(bound)
                // deflateBound guarantees one call finishes.
                let status = deflate(z, Z_FINISH)
                precondition(status == Z_STREAM_END, "zlib deflate did not finish (\(status))")
            }
        }
        var count = Self.header.count + Int(z.pointee.total_out)
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

/// gzip (or zlib) data inflated in memory, with a bound on the output: a directory or tile of a
/// few kilobytes must not expand into gigabytes (a "zip bomb" in a hostile archive).
public enum Gzip {
    public struct Failure: Error, Sendable, Equatable {
        public let message: String
    }

    /// The whole of `input` decompressed; refused past `limit` bytes of output.
    public static func inflate(_ input: some Collection<UInt8>, limit: Int) throws(Failure) -> [UInt8] {
        let stream = PinnedValue(z_stream())
        let z = stream.pointer
        // 15 + 32: a window of 2^15 and automatic detection of the gzip or zlib header.
        guard inflateInit2_(z, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(message: "cannot start decompression")
        }
        defer { inflateEnd(z) }
        let source = Array(input)
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        return try source.withUnsafeBufferPointer { src throws(Failure) -> [UInt8] in
            z.pointee.next_in = UnsafeMutablePointer(mutating: src.baseAddress)
            z.pointee.avail_in = UInt32(src.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { out -> Int32 in
                    z.pointee.next_out = out.baseAddress
                    z.pointee.avail_out = UInt32(out.count)
                    return CZlib.inflate(z, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(z.pointee.avail_out)
                guard output.count + produced <= limit else {
                    throw Failure(message: "decompresses to more than \(limit) bytes")
                }
                output.append(contentsOf: chunk[0..<produced])
                if status == Z_STREAM_END { return output }
                guard status == Z_OK else { throw Failure(message: "not valid gzip data (zlib status \(status))") }
                if z.pointee.avail_in == 0 && produced == 0 { throw Failure(message: "gzip data cut short") }
            }
        }
    }
}
