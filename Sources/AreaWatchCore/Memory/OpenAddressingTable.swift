/// What a slot of an `OpenAddressingTable` holds: a plain value whose all-zero bit pattern, the
/// slot of a fresh table, means empty.
public protocol OpenAddressingSlot: BitwiseCopyable {
    var isEmpty: Bool { get }
}

extension UInt64: OpenAddressingSlot {
    @inlinable public var isEmpty: Bool { self == 0 }
}

extension UInt32: OpenAddressingSlot {
    @inlinable public var isEmpty: Bool { self == 0 }
}

/// The one hash table design of the engine: linear probing over one flat array of slots, which
/// callers fill with what their table needs (a fingerprint and a row, a digest, an entry number).
/// A probe run shares cache lines, so a lookup in a table far larger than the cache costs about
/// one miss; the slots sit in a `HugePageAllocation`, so a large table also spares the TLB.
///
/// The table knows slots, not keys: a caller picks the home slot from its own (already uniform or
/// seeded) hash, keeps the load low enough for short runs, tells a match from its own data, and
/// grows by `rehashed`. Any capacity works (a probe wraps at the end), so a caller may scale its
/// hash to the capacity instead of rounding the capacity up to a power of two.
public struct OpenAddressingTable<Slot: OpenAddressingSlot>: ~Copyable {
    @usableFromInline let memory: HugePageAllocation
    @usableFromInline let slots: UnsafeMutablePointer<Slot>
    public let capacity: Int

    /// `capacity` empty slots (at least one).
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        memory = HugePageAllocation(zeroedBytes: self.capacity * MemoryLayout<Slot>.stride)
        slots = memory.bound(to: Slot.self, count: self.capacity)
    }

    @inlinable @inline(__always)
    public subscript(_ i: Int) -> Slot {
        get {
            precondition(i >= 0 && i < capacity, "slot out of range")
            return slots[i]
        }
        nonmutating set {
            precondition(i >= 0 && i < capacity, "slot out of range")
            slots[i] = newValue
        }
    }

    /// The first slot from `home` on (wrapping at the end) that is empty or `matches`; the
    /// caller keeps the table from filling up, so the probe ends.
    @inlinable @inline(__always)
    public func probe(from home: Int, matching matches: (Slot) -> Bool) -> Int {
        var i = home
        while true {
            let slot = slots[i]
            if slot.isEmpty || matches(slot) { return i }
            i += 1
            if i == capacity { i = 0 }
        }
    }

    /// The address of slot `i`, for a prefetch hint only (the table stays the owner).
    @inlinable @inline(__always)
    public func addressForPrefetch(ofSlot i: Int) -> UnsafeRawPointer {
        UnsafeRawPointer(slots + i)
    }

    /// Every slot emptied.
    public func removeAll() {
        UnsafeMutableRawPointer(slots).initializeMemory(
            as: UInt8.self, repeating: 0,
            count: capacity * MemoryLayout<Slot>.stride)
    }

    /// A table of `capacity` slots holding this table's non-empty slots, each at the first empty
    /// slot from `home(slot)` on. Inlinable so that it is specialized for the caller's slot type.
    @inlinable
    public func rehashed(capacity newCapacity: Int, home: (Slot) -> Int) -> OpenAddressingTable<Slot> {
        let grown = OpenAddressingTable(capacity: newCapacity)
        for j in 0..<capacity where !slots[j].isEmpty {
            let slot = slots[j]
            let i = grown.probe(from: home(slot)) { _ in false }
            grown.slots[i] = slot
        }
        return grown
    }

    /// An independent table with the same slots.
    public func copy() -> OpenAddressingTable<Slot> {
        let copy = OpenAddressingTable(capacity: capacity)
        copy.slots.update(from: slots, count: capacity)
        return copy
    }
}

/// Moving a table to another thread moves its one owner with it.
extension OpenAddressingTable: @unchecked Sendable {}
