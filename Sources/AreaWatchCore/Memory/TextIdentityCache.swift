/// Numbers remembered by the identity of a String value: its two words, the storage object's
/// address for a long text, the bytes themselves for a short one. Equal words are the same text;
/// the same text under other words (another copy of it) is simply a miss.
///
/// Why: interning each incident's category through a `Dictionary<String, Int32>` SipHashes the
/// text per row, on the ad-hoc ingest's writing thread, which sets its pace. The readers hand
/// every row of a category the same String, so one multiply finds it here.
///
/// Every cached String is kept in the cache: while it is cached no other String can be given its
/// storage address. The slot is picked by a multiply with per-process random factors, so short
/// texts crafted to share slots cannot be chosen in advance; the cache is emptied when half full.
struct TextIdentityCache {
    private var words: [(UInt64, UInt64)]
    /// Per slot: the number, or -1 when the slot is empty.
    private var numbers: [Int32]
    /// The Strings cached, kept alive (see above).
    private var kept: [String] = []
    private let factors = (UInt64.random(in: .min ... .max) | 1, UInt64.random(in: .min ... .max) | 1)
    private static let slotBits = 10

    /// Empty, and allocated by the first `remember` (columns are often made and dropped unused).
    init() {
        words = []
        numbers = []
    }

    private static func words(_ text: String) -> (UInt64, UInt64) {
        unsafeBitCast(text, to: (UInt64, UInt64).self)
    }

    @inline(__always)
    private func home(_ w: (UInt64, UInt64)) -> Int {
        Int(truncatingIfNeeded: (w.0 &* factors.0 &+ w.1 &* factors.1) >> UInt64(64 - Self.slotBits))
    }

    /// The slot holding these words, or the empty slot where they would go.
    @inline(__always)
    private func slot(of w: (UInt64, UInt64)) -> Int {
        let mask = numbers.count - 1
        var slot = home(w)
        while numbers[slot] >= 0 && words[slot] != w { slot = (slot + 1) & mask }
        return slot
    }

    /// The number cached for this very String value, if any.
    @inline(__always)
    func number(of text: String) -> Int32? {
        guard !numbers.isEmpty else { return nil }
        let number = numbers[slot(of: Self.words(text))]
        return number >= 0 ? number : nil
    }

    /// `number(of:)` for an optional text read where it is stored, without retaining it (nil
    /// for a nil text).
    @inline(__always)
    func number(ofTextAt text: UnsafePointer<String?>) -> Int32? {
        guard !numbers.isEmpty else { return nil }
        if case .none = text.pointee { return nil }
        // A present String? is stored as the String's own two words.
        let number = numbers[slot(of: UnsafeRawPointer(text).load(as: (UInt64, UInt64).self))]
        return number >= 0 ? number : nil
    }

    mutating func remember(_ text: String, as number: Int32) {
        if numbers.isEmpty {
            words = Array(repeating: (0, 0), count: 1 << Self.slotBits)
            numbers = Array(repeating: -1, count: 1 << Self.slotBits)
        }
        if 2 * (kept.count + 1) > numbers.count {
            for k in numbers.indices { numbers[k] = -1 }
            kept.removeAll(keepingCapacity: true)
        }
        let w = Self.words(text)
        let free = slot(of: w)
        guard numbers[free] < 0 else { return }
        words[free] = w
        numbers[free] = number
        kept.append(text)
    }
}
