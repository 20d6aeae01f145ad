import CZlib
import Foundation

/// gzip (or zlib) data inflated in memory, with a bound on the output: a directory or tile of a
/// few kilobytes must not expand into gigabytes (a "zip bomb" in a hostile archive).
enum Gzip {
    struct Failure: Error { let message: String }

    static func inflate(_ input: some Collection<UInt8>, limit: Int) throws -> [UInt8] {
        var stream = z_stream()
        // 15 + 32: a window of 2^15 and automatic detection of the gzip or zlib header.
        guard inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(message: "cannot start decompression")
        }
        defer { inflateEnd(&stream) }
        let source = Array(input)
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        return try source.withUnsafeBufferPointer { src -> [UInt8] in
            stream.next_in = UnsafeMutablePointer(mutating: src.baseAddress)
            stream.avail_in = UInt32(src.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { out -> Int32 in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                guard output.count + produced <= limit else {
                    throw Failure(message: "decompresses to more than \(limit) bytes")
                }
                output.append(contentsOf: chunk[0..<produced])
                if status == Z_STREAM_END { return output }
                guard status == Z_OK else { throw Failure(message: "not valid gzip data (zlib status \(status))") }
                if stream.avail_in == 0 && produced == 0 { throw Failure(message: "gzip data cut short") }
            }
        }
    }

    /// gzip of `input` (the tests build hostile archives with it).
    static func compress(_ input: [UInt8]) throws -> [UInt8] {
        var stream = z_stream()
        // 15 + 16: a gzip header rather than zlib's.
        guard deflateInit2_(&stream, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else { throw Failure(message: "cannot start compression") }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))))
        let produced = input.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { out -> Int in
                stream.next_in = UnsafeMutablePointer(mutating: src.baseAddress)
                stream.avail_in = UInt32(src.count)
                stream.next_out = out.baseAddress
                stream.avail_out = UInt32(out.count)
                return CZlib.deflate(&stream, Z_FINISH) == Z_STREAM_END ? out.count - Int(stream.avail_out) : -1
            }
        }
        guard produced >= 0 else { throw Failure(message: "compression failed") }
        return Array(output[..<produced])
    }

    /// Whether an `Accept-Encoding` value admits gzip (RFC 9110 §12.5.3; `gzip;q=0` refuses it).
    static func accepted(by acceptEncoding: String?) -> Bool {
        guard let acceptEncoding else { return false }
        for item in acceptEncoding.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = parts.first, coding == "gzip" || coding == "x-gzip" || coding == "*" else { continue }
            let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return q > 0
        }
        return false
    }
}
