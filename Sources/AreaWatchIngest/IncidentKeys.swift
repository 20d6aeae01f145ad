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

    /// - Parameters:
    ///   - source: `--source`; namespaces every key of the file as `SOURCE:…`.
    ///   - fileSHA256: hex digest of the file, used by `append` mode.
    init(source: String?, mode: IdlessMode, fileSHA256: String) {
        prefix = source.map { "\($0):" } ?? ""
        self.mode = mode
        fileDigestPrefix = String(fileSHA256.prefix(16))
    }

    mutating func key(for draft: IncidentDraft) -> String {
        if let id = draft.id { return prefix.isEmpty ? id : prefix + id }
        let digest = IncidentKeyer.contentDigest(draft)
        let hex = IncidentKeyer.hex(digest)
        let n = (ordinals[digest] ?? 0) + 1
        ordinals[digest] = n
        switch mode {
        case .snapshot: return "\(prefix)h:\(hex):\(n)"
        case .append: return "\(prefix)h:\(hex):\(n):\(fileDigestPrefix)"
        }
    }

    /// First 8 bytes of SHA-256 over `time|lat|lon|category` (SPEC §4).
    static func contentDigest(_ draft: IncidentDraft) -> UInt64 {
        var content: [UInt8] = []
        content.reserveCapacity(80)
        NumberFormat.appendInteger(Int(draft.time.seconds), to: &content)
        content.append(124)
        content.append(contentsOf: NumberFormat.shortest(draft.lat).utf8)
        content.append(124)
        content.append(contentsOf: NumberFormat.shortest(draft.lon).utf8)
        content.append(124)
        if let category = draft.category { content.append(contentsOf: category.utf8) }
        let digest = SHA256.hash(data: content)
        var value: UInt64 = 0
        for byte in digest.prefix(8) { value = value << 8 | UInt64(byte) }
        return value
    }

    static func hex(_ v: UInt64) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8](repeating: 0, count: 16)
        for i in 0..<16 { out[i] = digits[Int((v >> UInt64(60 - 4 * i)) & 15)] }
        return String(decoding: out, as: UTF8.self)
    }
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
