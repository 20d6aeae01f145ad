import AreaWatchCore
import CAreaWatchSystem

/// The rows of the ad-hoc path's keys: 96-bit key hash → row, for SPEC §4 de-duplication (two
/// different keys merge with probability ~n²/2⁹⁷: 6·10⁻¹⁶ at 10M keys).
///
/// An `OpenAddressingTable` of 8-byte slots (the high 32 bits of the hash's first half as a
/// fingerprint, the row + 1 below), the full hashes kept per row (12 bytes a row).
/// Measured at 10M incidents: Swift's `Dictionary<KeyHash, Int32>` took ~3 cache misses and a
/// SipHash of the 16-byte key per lookup, and 335 MB; this takes one miss per lookup (a probe run
/// shares a cache line), the key's hash is its own slot hash (it is already a seeded SipHash, so
/// input cannot be crafted to collide), and the table sits on 2 MB pages where the kernel allows,
/// so random probes of a 100+ MB table do not miss the TLB as well.
/// A copy shares the slots until either copy inserts (copy on write).
struct KeyTable {
    private var storage: Slots
    private(set) var a: [UInt64] = []
    private(set) var b: [UInt32] = []
    static let maxLoad = 0.75

    /// Sized for `expected` keys (it grows when more arrive). Any size, not a power of two: the
    /// home slot is the hash scaled to the table (multiply-shift), so 10M keys take 107 MB of
    /// slots, not the 134 MB of the next power of two.
    init(expected: Int) {
        let capacity = max(1024, Int((Double(expected) / KeyTable.maxLoad).rounded(.up)))
        storage = Slots(OpenAddressingTable(capacity: capacity))
        a.reserveCapacity(expected)
        b.reserveCapacity(expected)
    }

    var count: Int { a.count }

    /// Starts loading the key's home slot; `rowOrInsert` of the same key follows other work.
    @inline(__always)
    func prefetch(a keyA: UInt64) {
        aw_prefetch_for_write(storage.table.addressForPrefetch(ofSlot: KeyTable.home(keyA, storage.table.capacity)))
    }

    /// The row of the key, or nil after adding it as row `count`.
    mutating func rowOrInsert(a keyA: UInt64, b keyB: UInt32) -> Int? {
        if !isKnownUniquelyReferenced(&storage) { storage = Slots(storage.table.copy()) }
        if Double(a.count + 1) > Double(storage.table.capacity) * KeyTable.maxLoad { grow() }
        let fingerprint = keyA >> 32
        let i = storage.table.probe(from: KeyTable.home(keyA, storage.table.capacity)) { slot in
            guard slot >> 32 == fingerprint else { return false }
            let row = Int(slot & 0xFFFF_FFFF) - 1
            return a[row] == keyA && b[row] == keyB
        }
        let found = storage.table[i]
        if found != 0 { return Int(found & 0xFFFF_FFFF) - 1 }
        storage.table[i] = fingerprint << 32 | UInt64(a.count + 1)
        a.append(keyA)
        b.append(keyB)
        return nil
    }

    /// The low 32 bits of the hash scaled to `capacity` (the high 32 are the fingerprint).
    @inline(__always)
    static func home(_ keyA: UInt64, _ capacity: Int) -> Int {
        Int(((keyA & 0xFFFF_FFFF) &* UInt64(capacity)) >> 32)
    }

    private mutating func grow() {
        let capacity = storage.table.capacity * 2
        let a = self.a
        storage = Slots(
            storage.table.rehashed(capacity: capacity) { slot in
                KeyTable.home(a[Int(slot & 0xFFFF_FFFF) - 1], capacity)
            })
    }

    /// The slots behind a reference, so that copies of the table share them until one inserts.
    final class Slots {
        let table: OpenAddressingTable<UInt64>
        init(_ table: consuming OpenAddressingTable<UInt64>) { self.table = table }
    }
}
