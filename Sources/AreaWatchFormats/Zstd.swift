import CZstd

/// Zstandard (RFC 8878) frames, each with its content size, no checksum and no dictionary, so
/// the same input gives the same bytes with the same library. One compression context is reused
/// for every call: a Parquet file compresses many pages. Not shared between threads: one per
/// thread.
public final class ZstdCompressor {
    private let context: OpaquePointer
    private let level: Int32

    /// `level`: zstd's 1…19 (its fastest is 1, its default 3).
    public init(level: Int32 = 1) {
        guard let context = ZSTD_createCCtx() else { preconditionFailure("zstd could not allocate a context") }
        self.context = context
        self.level = level
    }

    deinit {
        ZSTD_freeCCtx(context)
    }

    /// `input` as one frame.
    public func compress(_ input: [UInt8]) -> [UInt8] {
        let bound = ZSTD_compressBound(input.count)
        var written = 0
        // Not zero-filled first: zstd writes the frame's bytes, and only those are kept.
        let out = [UInt8](unsafeUninitializedCapacity: bound) { o, count in
            written = input.withUnsafeBytes { i in
                ZSTD_compressCCtx(context, o.baseAddress, bound, i.baseAddress, i.count, level)
            }
            count = ZSTD_isError(written) == 0 ? written : 0
        }
        // ZSTD_compressBound guarantees room, so an error is a broken library or context.
        precondition(
            ZSTD_isError(written) == 0, "zstd did not compress (\(String(cString: ZSTD_getErrorName(written))))")
        return out
    }
}
