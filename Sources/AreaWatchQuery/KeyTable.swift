import CAreaWatchSystem
import Glibc

/// The rows of the ad-hoc path's keys: 96-bit key hash → row, for SPEC §4 de-duplication (two
/// different keys merge with probability ~n²/2⁹⁷: 6·10⁻¹⁶ at 10M keys).
///
/// Open addressing with linear probing over one flat table of 8-byte slots (the high 32 bits of
/// the hash's first half as a fingerprint, the row + 1 below), the full hashes kept per row
/// (12 bytes a row).
/// Measured at 10M incidents: Swift's `Dictionary<KeyHash, Int32>` took ~3 cache misses and a
/// SipHash of the 16-byte key per lookup, and 335 MB; this takes one miss per lookup (a probe run
/// shares a cache line), the key's hash is its own slot hash (it is already a seeded SipHash, so
/// input cannot be crafted to collide), and the table sits on 2 MB pages where the kernel allows,
/// so random probes of a 100+ MB table do not miss the TLB as well.
struct KeyTable {
    private var storage: Slots
    private(set) var a: [UInt64] = []
    private(set) var b: [UInt32] = []
    static let maxLoad = 0.75

    /// Sized for `expected` keys (it grows when more arrive). Any size, not a power of two: the
    /// home slot is the hash scaled to the table (multiply-shift), so 10M keys take 107 MB of
    /// slots, not the 134 MB of the next power of two.
    init(expected: Int) {
        storage = Slots(count: max(1024, Int((Double(expected) / KeyTable.maxLoad).rounded(.up))))
        a.reserveCapacity(expected)
        b.reserveCapacity(expected)
    }

    var count: Int { a.count }

    /// Starts loading the key's home slot; `rowOrInsert` of the same key follows other work.
    @inline(__always)
    func prefetch(a keyA: UInt64) {
        aw_prefetch_for_write(storage.base + KeyTable.home(keyA, storage.count))
    }

    /// The row of the key, or nil after adding it as row `count`.
    mutating func rowOrInsert(a keyA: UInt64, b keyB: UInt32) -> Int? {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        if Double(a.count + 1) > Double(storage.count) * KeyTable.maxLoad { grow() }
        let slots = storage.base
        let capacity = storage.count
        let fingerprint = keyA >> 32
        var i = KeyTable.home(keyA, capacity)
        while true {
            let slot = slots[i]
            if slot == 0 {
                slots[i] = fingerprint << 32 | UInt64(a.count + 1)
                a.append(keyA)
                b.append(keyB)
                return nil
            }
            if slot >> 32 == fingerprint {
                let row = Int(slot & 0xFFFF_FFFF) - 1
                if a[row] == keyA && b[row] == keyB { return row }
            }
            i += 1
            if i == capacity { i = 0 }
        }
    }

    /// The low 32 bits of the hash scaled to `capacity` (the high 32 are the fingerprint).
    @inline(__always)
    static func home(_ keyA: UInt64, _ capacity: Int) -> Int {
        Int(((keyA & 0xFFFF_FFFF) &* UInt64(capacity)) >> 32)
    }

    private mutating func grow() {
        let grown = Slots(count: storage.count * 2)
        let capacity = grown.count
        for j in 0..<storage.count {
            let slot = storage.base[j]
            guard slot != 0 else { continue }
            var i = KeyTable.home(a[Int(slot & 0xFFFF_FFFF) - 1], capacity)
            while grown.base[i] != 0 {
                i += 1
                if i == capacity { i = 0 }
            }
            grown.base[i] = slot
        }
        storage = grown
    }

    /// Zeroed slots, mapped on their own so the kernel can back them with 2 MB pages.
    final class Slots {
        let base: UnsafeMutablePointer<UInt64>
        let count: Int
        private let mapping: UnsafeMutableRawPointer?
        private let mappedBytes: Int
        private static let hugePage = 2 << 20

        init(count: Int) {
            self.count = count
            let bytes = count * 8
            if bytes >= Slots.hugePage,
                let raw = mmap(
                    nil, bytes + Slots.hugePage, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), raw != MAP_FAILED
            {
                mapping = raw
                mappedBytes = bytes + Slots.hugePage
                let aligned = (Int(bitPattern: raw) + Slots.hugePage - 1) & ~(Slots.hugePage - 1)
                let start = UnsafeMutableRawPointer(bitPattern: aligned)!
                _ = madvise(start, bytes, MADV_HUGEPAGE) // advice only: 4 KB pages work too
                base = start.bindMemory(to: UInt64.self, capacity: count)
            } else {
                mapping = nil
                mappedBytes = 0
                base = .allocate(capacity: count)
                base.initialize(repeating: 0, count: count)
            }
        }

        func copy() -> Slots {
            let copy = Slots(count: count)
            copy.base.update(from: base, count: count)
            return copy
        }

        deinit {
            if let mapping { munmap(mapping, mappedBytes) } else { base.deallocate() }
        }
    }
}
