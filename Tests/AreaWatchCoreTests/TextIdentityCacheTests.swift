import Testing

@testable import AreaWatchCore

/// Category interning through the identity cache against a plain dictionary of texts: short and
/// long texts, the same text in separate copies, and more distinct texts than the cache holds
/// (it is emptied and refilled).
struct TextIdentityCacheTests {
    @Test func internedNumbersEqualADictionarysNumbering() {
        var random = SplitMix64(seed: testSeed(0x1D_CA5E))
        // Short texts live inside the String; long ones in storage, several copies of each.
        let texts = (0..<1_500).map { k in
            k % 2 == 0 ? "c\(k)" : "a category long enough to be stored apart \(k)"
        }
        let copies = texts.map { text in (0..<3).map { _ in String(decoding: Array(text.utf8), as: UTF8.self) } }
        var columns = IncidentColumns()
        var reference: [String: Int32] = [:]
        for _ in 0..<60_000 {
            // Mostly a few popular texts (what the cache is for), sometimes any of them.
            let k = random.bool(0.8) ? random.int(0...13) : random.int(0...(texts.count - 1))
            let text = random.pick(copies[k])
            let expected = reference[text] ?? Int32(reference.count)
            reference[text] = expected
            // Read where it is stored (the ad-hoc sink's path) or passed as a value: the same number.
            var stored: String? = text
            if random.bool(0.5) {
                #expect(columns.internCategory(at: &stored) == expected)
            } else {
                #expect(columns.internCategory(text) == expected)
            }
        }
        var absent: String? = nil
        #expect(columns.internCategory(at: &absent) == -1)
        #expect(columns.categories.count == reference.count)
        #expect(columns.internCategory(nil) == -1)
    }

    @Test func aCachedNumberBelongsToThatVeryText() {
        var cache = TextIdentityCache()
        let long = String(repeating: "x", count: 40), other = String(repeating: "y", count: 40)
        let short = "burglary"
        cache.remember(long, as: 7)
        cache.remember(short, as: 3)
        #expect(cache.number(of: long) == 7)
        #expect(cache.number(of: short) == 3)
        #expect(cache.number(of: "burglary") == 3) // short texts are their bytes
        #expect(cache.number(of: other) == nil)
        // A separate copy of a long text is another identity: a miss, never a wrong number.
        #expect(cache.number(of: String(decoding: Array(long.utf8), as: UTF8.self)) == nil)
        // Read in place from an optional: the same answers, and nil for nil.
        for (text, number) in [(long, Int32(7)), (short, 3), (other, nil)] as [(String, Int32?)] {
            var stored: String? = text
            #expect(cache.number(ofTextAt: &stored) == number)
        }
        var absent: String? = nil
        #expect(cache.number(ofTextAt: &absent) == nil)
    }
}
