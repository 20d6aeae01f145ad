import AreaWatchCore
import CAreaWatchSystem
import Crypto
import Glibc

/// How records without a source id get their keys (SPEC §4).
public enum IdlessMode: String, Sendable, CaseIterable {
    /// The file is a full export: the n-th identical id-less record gets ordinal n, so
    /// re-ingesting the file (or a later full export) yields the same keys.
    case snapshot
    /// The file is a delta: every id-less record is new; its key carries the file's SHA-256.
    case append
}

/// An accepted record's key as the thread that parsed it leaves it for `RecordAccounting`.
enum ParsedKey {
    /// The incident's `key` is its source id.
    case id
    /// No id: keyed in file order (SPEC §4 ordinals) from this content digest.
    case idless(digest: UInt64)
    /// The key of the record's id, hashed (`CSVRecordSource.keyHashPrefix`); `key` is empty.
    case hashed(KeyHash)
}

/// Assigns SPEC §4 keys within one file.
///
/// Memory: the one structure that grows with the input is the ordinal table, 16–32 bytes per
/// distinct id-less content in the file; everything else is per record.
struct IncidentKeyer {
    let prefix: String
    let mode: IdlessMode
    let fileDigestPrefix: String
    private let ordinals = OrdinalTable()
    /// Reused for every id-less record: the hashed content, then the key's bytes (no String
    /// interpolation and no fresh array per record: id-less rows are common in portal exports).
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

    /// Replaces the incident's source id (its `key` as built) by its key: the id, or for an
    /// id-less record (empty key) `h:<16 hex>:<n>` (`:<file digest prefix>` in append mode),
    /// each behind `SOURCE:` when a source is given.
    mutating func assignKey(_ incident: inout Incident) {
        assignKey(
            &incident, digest: incident.key.isEmpty ? IncidentKeyer.contentDigest(incident, scratch: &scratch) : 0)
    }

    /// `assignKey` with the content digest of an id-less incident computed beforehand (on the
    /// thread that parsed it); `digest` is ignored when the incident has an id.
    mutating func assignKey(_ incident: inout Incident, digest: UInt64) {
        if !incident.key.isEmpty {
            if !prefix.isEmpty { incident.key = prefix + incident.key }
            return
        }
        writeIdlessKey(digest: digest)
        incident.key = String(decoding: scratch, as: UTF8.self)
    }

    /// Starts loading the ordinal table's slot of an id-less record's content digest, some
    /// records before its key is assigned.
    @inline(__always)
    func prefetchOrdinal(digest: UInt64) {
        ordinals.prefetch(digest)
    }

    /// The hash of an id-less record's key (`assignKey`'s text, never built as a String).
    mutating func idlessKeyHash(digest: UInt64) -> KeyHash {
        writeIdlessKey(digest: digest)
        return scratch.withUnsafeBytes { KeyHash(bytes: $0.bytes) }
    }

    /// The next id-less key of this content into `scratch`.
    private mutating func writeIdlessKey(digest: UInt64) {
        let n = ordinals.increment(digest)
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: prefix.utf8)
        scratch.append(UInt8(ascii: "h"))
        scratch.append(ASCII.colon)
        for i in 0..<16 {
            let nibble = UInt8(truncatingIfNeeded: digest >> UInt64(60 - 4 * i)) & 15
            scratch.append(nibble < 10 ? 48 + nibble : 87 + nibble) // 0-9, a-f
        }
        scratch.append(ASCII.colon)
        NumberFormat.appendInteger(Int(n), to: &scratch)
        if mode == .append {
            scratch.append(ASCII.colon)
            scratch.append(contentsOf: fileDigestPrefix.utf8)
        }
    }

    /// First 8 bytes of SHA-256 over `time|lat|lon|category` (SPEC §4); `scratch` is reused.
    static func contentDigest(_ incident: Incident, scratch: inout [UInt8]) -> UInt64 {
        scratch.removeAll(keepingCapacity: true)
        NumberFormat.appendInteger(Int(incident.time), to: &scratch)
        scratch.append(124)
        NumberFormat.appendShortest(incident.lat, to: &scratch)
        scratch.append(124)
        NumberFormat.appendShortest(incident.lon, to: &scratch)
        scratch.append(124)
        if var category = incident.category { category.withUTF8 { scratch.append(contentsOf: $0) } }
        let digest = scratch.withUnsafeBytes { SHA256.hash(data: $0) }
        return digest.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self).bigEndian }
    }
}

/// How many id-less records of each content digest a file has had so far.
///
/// Why not a `Dictionary<UInt64, UInt32>`: it hashes every digest again (SipHash), though a digest
/// is already uniform. Here the digests seen sit in an open-addressing table of 8-byte slots, at
/// most half full: 16–32 bytes per distinct content, as in the Dictionary (the one structure of an
/// ingest that grows with the file; fuller, the probe runs grow and parsing slows). The counts
/// of digests seen more than once, far fewer, are kept apart.
/// A digest picks its slot by one multiply (high bits of the digest times a random odd number: a
/// file crafted so that many digests share some bits still cannot crowd one run of slots). The
/// probes are random reads over megabytes: on 4 KiB pages nearly every one also missed the TLB,
/// so a large table asks for transparent huge pages.
final class OrdinalTable {
    /// Digests seen; 0 marks an empty slot (a digest of 0 is counted in `repeats`). The capacity
    /// is a power of two. Unchecked exclusivity: the table belongs to the reading thread, and a
    /// class's stored property is otherwise checked at run time on every probe.
    @exclusivity(unchecked) private var slots: OpenAddressingTable<UInt64>
    /// 64 − log2(capacity): the slot is the top bits of `digest &* multiplier`.
    private var shift: UInt64
    private let multiplier = UInt64.random(in: .min ... .max) | 1
    private var used = 0
    /// Ordinal so far of every digest seen more than once (and of 0).
    private var repeats: [UInt64: UInt32] = [:]

    /// `capacity`: slots to start with, a power of two.
    init(capacity: Int = 1024) {
        precondition(capacity >= 4 && capacity & (capacity - 1) == 0)
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        slots = OpenAddressingTable(capacity: capacity)
    }

    /// Counts one more record of `digest`; returns its 1-based ordinal.
    func increment(_ digest: UInt64) -> UInt32 {
        if digest != 0 {
            if 2 * (used + 1) > slots.capacity { grow() }
            let index = slots.probe(from: home(digest, shift)) { $0 == digest }
            if slots[index] == 0 {
                slots[index] = digest
                used += 1
                return 1
            }
        }
        let n = repeats[digest, default: digest == 0 ? 0 : 1] + 1
        repeats[digest] = n
        return n
    }

    @inline(__always)
    func prefetch(_ digest: UInt64) {
        aw_prefetch_for_write(slots.addressForPrefetch(ofSlot: home(digest, shift)))
    }

    @inline(__always)
    private func home(_ digest: UInt64, _ shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (digest &* multiplier) &>> shift)
    }

    private func grow() {
        let grownShift = shift - 1
        slots = slots.rehashed(capacity: slots.capacity * 2) { home($0, grownShift) }
        shift = grownShift
    }
}

/// SHA-256 of a file's bytes as stored (compressed bytes for `.gz`), read in chunks.
public enum FileDigest {
    public static func sha256(path: String) throws(InputError) -> (hex: String, bytes: Int64) {
        let source = try ByteSource(rawPath: path)
        var hasher = SHA256()
        var chunk = GrowableBuffer<UInt8>(capacity: 1 << 20)
        var total: Int64 = 0
        while true {
            chunk.removeAll()
            try chunk.appendUninitialized(maxCount: 1 << 20) { room throws(InputError) in
                try source.read(into: room.baseAddress!, capacity: room.count)
            }
            if chunk.isEmpty { break }
            chunk.withUnsafeBufferPointer { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
            total += Int64(chunk.count)
        }
        let hex = hasher.finalize().map { byte -> String in
            let s = String(byte, radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined()
        return (hex, total)
    }
}
