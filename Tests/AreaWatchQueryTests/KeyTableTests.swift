import Testing
import AreaWatchCore
@testable import AreaWatchQuery

/// The ad-hoc path's key table against a Dictionary: seeded random keys with repeats, keys that
/// share a fingerprint or a first half, a table sized too small (it must grow), and copies.
@Suite struct KeyTableTests {
    struct Key: Hashable { var a: UInt64; var b: UInt32 }

    @Test(arguments: [0, 100, 50_000])
    func agreesWithADictionary(expected: Int) {
        var rng = SplitMix64(seed: 0x7AB1E + UInt64(expected))
        var table = KeyTable(expected: expected)
        var reference: [Key: Int] = [:]
        var keys: [Key] = []
        for _ in 0..<40_000 {
            let key: Key
            switch rng.next() % 10 {
            case 0 where !keys.isEmpty: key = keys[Int(rng.next() % UInt64(keys.count))]  // a repeat
            case 1 where !keys.isEmpty:  // same first half, other second half
                let k = keys[Int(rng.next() % UInt64(keys.count))]
                key = Key(a: k.a, b: k.b &+ 1)
            case 2 where !keys.isEmpty:  // same fingerprint (high half), other low half
                let k = keys[Int(rng.next() % UInt64(keys.count))]
                key = Key(a: k.a & 0xFFFF_FFFF_0000_0000 | (rng.next() & 0xFFFF_FFFF), b: k.b)
            default: key = Key(a: rng.next(), b: UInt32(truncatingIfNeeded: rng.next()))
            }
            let expectedRow = reference[key]
            let row = table.rowOrInsert(a: key.a, b: key.b)
            #expect(row == expectedRow, "key \(key)")
            if expectedRow == nil {
                reference[key] = reference.count
                keys.append(key)
            }
        }
        #expect(table.count == reference.count)
    }

    /// A copy is independent: inserting into one does not show in the other.
    @Test func copiesAreIndependent() {
        var one = KeyTable(expected: 10)
        _ = one.rowOrInsert(a: 1, b: 1)
        var two = one
        #expect(two.rowOrInsert(a: 2, b: 2) == nil)
        #expect(one.rowOrInsert(a: 2, b: 2) == nil)
        #expect(one.rowOrInsert(a: 1, b: 1) == 0)
        #expect(two.rowOrInsert(a: 2, b: 2) == 1)
    }

    /// Home slots spread over the whole table (a home that ignored the hash would still give right
    /// answers, one probe run at a time).
    @Test func homesSpread() {
        var rng = SplitMix64(seed: 99)
        let capacity = 100_003
        var seen = Set<Int>()
        for _ in 0..<capacity { seen.insert(KeyTable.home(rng.next(), capacity)) }
        #expect(seen.count > capacity / 2)
        #expect(seen.allSatisfy { $0 >= 0 && $0 < capacity })
    }
}
