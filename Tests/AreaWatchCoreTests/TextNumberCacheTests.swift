import Testing

@testable import AreaWatchCore

/// Category interning through the byte-keyed cache against a plain dictionary of texts: short and
/// long texts, the same text in separate copies, and more distinct texts than the cache holds
/// (it is emptied and refilled).
struct TextNumberCacheTests {
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
            // Borrowed where it is stored (the ad-hoc sink's path) or passed as a value: the same number.
            if random.bool(0.5) {
                #expect(columns.internCategory(borrowing: text) == expected)
            } else {
                #expect(columns.internCategory(text) == expected)
            }
        }
        #expect(columns.categories.count == reference.count)
        #expect(columns.internCategory(nil) == -1)
    }

    @Test func aCachedNumberBelongsToThoseBytes() {
        var cache = TextNumberCache()
        let long = String(repeating: "x", count: 40), other = String(repeating: "y", count: 40)
        let short = "burglary"
        cache.remember(long, as: 7)
        cache.remember(short, as: 3)
        #expect(cache.number(of: long) == 7)
        #expect(cache.number(of: short) == 3)
        #expect(cache.number(of: "burglary") == 3)
        #expect(cache.number(of: other) == nil)
        // Another copy of the same text is the same bytes: found.
        #expect(cache.number(of: String(decoding: Array(long.utf8), as: UTF8.self)) == 7)
        // Same length, same first and last eight bytes, other middle: a miss, never a wrong number.
        let sameEnds = String(repeating: "x", count: 8) + "z" + String(repeating: "x", count: 31)
        #expect(cache.number(of: sameEnds) == nil)
        #expect(cache.number(of: "burglar") == nil && cache.number(of: "") == nil)
        // Longer than the cache keeps: never remembered, still interned by the columns.
        let huge = String(repeating: "q", count: TextNumberCache.maxBytes + 1)
        cache.remember(huge, as: 9)
        #expect(cache.number(of: huge) == nil)
    }
}
