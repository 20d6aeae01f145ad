/// Shares one String per distinct short value of a column (categories repeat on every row).
///
/// Measured need: creating a String per row for a category like "Anti-social behaviour" is a heap
/// allocation per record; looking the bytes up returns a shared String instead. The lookup hashes
/// the value's length and its first and last eight bytes into a small `OpenAddressingTable` (a
/// linear scan of the entries grows with the categories, on every row). Capped, so a column
/// of unique values costs no more than creating them.
public final class TextInterner {
    // Unchecked: an interner belongs to one reader on one thread and no method re-enters another,
    // so the runtime's per-access exclusivity bookkeeping, paid on every row, would find nothing.
    @exclusivity(unchecked) private var texts: [String] = []
    /// The entries' bytes, one after another (entry k at `starts[k]..<starts[k + 1]`), in owned
    /// buffers sized once, so a probe reads them in place and they never move.
    @exclusivity(unchecked) private var bytes: GrowableBuffer<UInt8>
    @exclusivity(unchecked) private var starts: GrowableBuffer<Int>
    /// Entry number + 1 per slot, 0 when empty; twice the capacity (a power of two), so probes
    /// stay short.
    private let slots: OpenAddressingTable<UInt32>
    private let mask: Int
    private let capacity: Int
    private static let maxBytes = 128

    public init(capacity: Int = 256) {
        self.capacity = capacity
        var size = 8
        while size < 2 * capacity { size *= 2 }
        mask = size - 1
        slots = OpenAddressingTable(capacity: size)
        bytes = GrowableBuffer(capacity: capacity * TextInterner.maxBytes)
        starts = GrowableBuffer(capacity: capacity + 1)
        starts.append(0)
    }

    public func text(_ bytes: Span<UInt8>) -> String {
        if let k = entry(bytes) { return texts[k] }
        return bytes.decodedString
    }

    /// The position of the bytes' entry (entries are numbered from 0 in the order first seen), or
    /// nil when the value is not kept (too long, or the interner is full).
    public func entry(_ value: Span<UInt8>) -> Int? {
        guard value.count <= TextInterner.maxBytes else { return nil }
        let slot = bytes.withSpan { stored in
            slots.probe(from: TextInterner.hash(value) & mask) { slot in
                let k = Int(slot) - 1
                return Bytes.equal(stored.extracting(unchecked: starts[k]..<starts[k + 1]), value)
            }
        }
        if slots[slot] != 0 { return Int(slots[slot]) - 1 }
        let k = texts.count
        guard k < capacity else { return nil }
        slots[slot] = UInt32(k + 1)
        bytes.append(span: value)
        starts.append(bytes.count)
        texts.append(value.decodedString)
        return k
    }

    /// The text of entry `k`.
    public func text(ofEntry k: Int) -> String { texts[k] }

    @inline(__always)
    private static func hash(_ bytes: Span<UInt8>) -> Int {
        let n = bytes.count
        let (head, tail) = Bytes.headAndTail(bytes)
        let mixed = (head ^ (tail &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(n)) &* 0xD6E8_FEB8_6659_FD93
        return Int(truncatingIfNeeded: mixed >> 32)
    }
}
