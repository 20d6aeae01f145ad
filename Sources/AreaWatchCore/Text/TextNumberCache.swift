/// Numbers remembered for the texts seen most, found by their UTF-8 bytes: the text's length and
/// its first and last eight bytes pick a slot, one comparison of the bytes confirms it.
///
/// Why: interning each incident's category through a `Dictionary<String, Int32>` SipHashes the
/// whole text per row, on the ad-hoc ingest's writing thread, which sets its pace; categories are
/// few and repeat on every row. Only documented String API is used (contiguous UTF-8): no
/// assumption about how a String lays out its words.
///
/// The slot is picked by a multiply with per-process random factors, so texts crafted to share
/// slots cannot be chosen in advance; texts over `maxBytes` are not cached, and the cache is
/// emptied when half full, so its size stays fixed whatever the input.
struct TextNumberCache {
    /// Per slot: the entry + 1, 0 when empty.
    private var slots: [Int32]
    /// Entry k's bytes are `bytes[starts[k]..<starts[k + 1]]`; its number is `numbers[k]`.
    private var bytes: [UInt8] = []
    private var starts: [Int] = [0]
    private var numbers: [Int32] = []
    private let factors = (UInt64.random(in: .min ... .max) | 1, UInt64.random(in: .min ... .max) | 1)
    private static let slotBits = 10
    static let maxBytes = 256

    /// Empty, and allocated by the first `remember` (columns are often made and dropped unused).
    init() {
        slots = []
    }

    @inline(__always)
    private func home(_ text: Span<UInt8>) -> Int {
        let n = text.count
        let (head, tail) = Bytes.headAndTail(text)
        let mixed = (head ^ UInt64(n)) &* factors.0 &+ tail &* factors.1
        return Int(truncatingIfNeeded: mixed >> UInt64(64 - Self.slotBits))
    }

    /// The slot holding these bytes, or the empty slot where they would go.
    @inline(__always)
    private func slot(of text: Span<UInt8>) -> Int {
        let mask = slots.count - 1
        var slot = home(text)
        while slots[slot] != 0 {
            let k = Int(slots[slot]) - 1
            if starts[k + 1] - starts[k] == text.count
                && Bytes.equal(bytes.span.extracting(unchecked: starts[k]..<starts[k + 1]), text)
            {
                break
            }
            slot = (slot + 1) & mask
        }
        return slot
    }

    /// The number remembered for this text, if any; the text is read where the caller keeps it.
    @inline(__always)
    func number(of text: borrowing String) -> Int32? {
        guard !slots.isEmpty else { return nil }
        return number(ofUTF8: text.utf8.span)
    }

    @inline(__always)
    private func number(ofUTF8 utf8: Span<UInt8>) -> Int32? {
        let k = Int(slots[slot(of: utf8)]) - 1
        return k >= 0 ? numbers[k] : nil
    }

    mutating func remember(_ text: String, as number: Int32) {
        if slots.isEmpty { slots = Array(repeating: 0, count: 1 << Self.slotBits) }
        if 2 * (numbers.count + 1) > slots.count {
            for k in slots.indices { slots[k] = 0 }
            bytes.removeAll(keepingCapacity: true)
            starts.removeAll(keepingCapacity: true)
            starts.append(0)
            numbers.removeAll(keepingCapacity: true)
        }
        let utf8 = text.utf8.span
        guard utf8.count <= Self.maxBytes else { return }
        let free = slot(of: utf8)
        guard slots[free] == 0 else { return }
        bytes.append(span: utf8)
        starts.append(bytes.count)
        numbers.append(number)
        slots[free] = Int32(numbers.count)
    }
}
