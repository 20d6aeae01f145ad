import AreaWatchCore
import Crypto

/// How records without a source id get their keys (SPEC §4).
public enum IdlessMode: String, Sendable, CaseIterable {
    /// The file is a full export: the n-th identical id-less record gets ordinal n, so
    /// re-ingesting the file (or a later full export) yields the same keys.
    case snapshot
    /// The file is a delta: every id-less record is new; its key carries the file's SHA-256.
    case append
}

/// Assigns SPEC §4 keys within one file.
///
/// Memory: the one structure that grows with the input is the ordinal counter, one entry
/// (≈ 20 bytes) per distinct id-less content in the file; everything else is per record.
struct IncidentKeyer {
    let prefix: String
    let mode: IdlessMode
    let fileDigestPrefix: String
    private var ordinals: [UInt64: UInt32] = [:]
    /// Reused for every id-less record: the hashed content, then the key's bytes (a String
    /// interpolation and a fresh array per record were 10 % of parsing a CSV with 20 % id-less rows).
    private var scratch: [UInt8] = []

    /// - Parameters:
    ///   - source: `--source`; namespaces every key of the file as `SOURCE:…`.
    ///   - fileSHA256: hex digest of the file, used by `append` mode.
    init(source: String?, mode: IdlessMode, fileSHA256: String) {
        prefix = source.map { "\($0):" } ?? ""
        self.mode = mode
        fileDigestPrefix = String(fileSHA256.prefix(16))
        scratch.reserveCapacity(128)
    }

    /// `id`, or for an id-less record `h:<16 hex>:<n>` (`:<file digest prefix>` in append mode),
    /// each behind `SOURCE:` when a source is given.
    mutating func key(for draft: IncidentDraft) -> String {
        if let id = draft.id { return prefix.isEmpty ? id : prefix + id }
        let digest = contentDigest(draft)
        let n: UInt32
        if let index = ordinals.index(forKey: digest) {
            n = ordinals.values[index] + 1
            ordinals.values[index] = n
        } else {
            n = 1
            ordinals[digest] = n
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: prefix.utf8)
        scratch.append(contentsOf: [104, 58])  // "h:"
        for i in 0..<16 { scratch.append(IncidentKeyer.hexDigits[Int((digest >> UInt64(60 - 4 * i)) & 15)]) }
        scratch.append(58)
        NumberFormat.appendInteger(Int(n), to: &scratch)
        if mode == .append {
            scratch.append(58)
            scratch.append(contentsOf: fileDigestPrefix.utf8)
        }
        return String(decoding: scratch, as: UTF8.self)
    }

    /// First 8 bytes of SHA-256 over `time|lat|lon|category` (SPEC §4).
    mutating func contentDigest(_ draft: IncidentDraft) -> UInt64 {
        scratch.removeAll(keepingCapacity: true)
        NumberFormat.appendInteger(Int(draft.time.seconds), to: &scratch)
        scratch.append(124)
        scratch.append(contentsOf: NumberFormat.shortest(draft.lat).utf8)
        scratch.append(124)
        scratch.append(contentsOf: NumberFormat.shortest(draft.lon).utf8)
        scratch.append(124)
        if let category = draft.category { scratch.append(contentsOf: category.utf8) }
        let digest = SHA256.hash(data: scratch)
        var value: UInt64 = 0
        for byte in digest.prefix(8) { value = value << 8 | UInt64(byte) }
        return value
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}

/// SHA-256 of a file's bytes as stored (compressed bytes for `.gz`), read in chunks.
public enum FileDigest {
    public static func sha256(path: String) throws(InputError) -> (hex: String, bytes: Int64) {
        let source = try ByteSource(rawPath: path)
        var hasher = SHA256()
        let chunk = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 20)
        defer { chunk.deallocate() }
        var total: Int64 = 0
        while true {
            let n = try source.read(into: chunk, capacity: 1 << 20)
            if n == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(start: chunk, count: n))
            total += Int64(n)
        }
        let hex = hasher.finalize().map { byte -> String in
            let s = String(byte, radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined()
        return (hex, total)
    }
}
