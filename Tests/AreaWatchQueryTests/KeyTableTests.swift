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

/// The builder's batch write (`write(contentsOf:)`, used by the parallel CSV path) against one
/// `write` per incident: seeded incidents with repeated keys, repeated and edited contents, in
/// batches of random sizes; the same outcomes in the same order and the same columns.
@Suite struct IncidentColumnsBuilderBatchTests {
    @Test func batchesWriteWhatSingleWritesDo() throws {
        var rng = SplitMix64(seed: 0xBA7C4)
        var incidents: [Incident] = []
        for _ in 0..<20_000 {
            if !incidents.isEmpty && rng.next() % 4 == 0 {
                var again = incidents[Int(rng.next() % UInt64(incidents.count))]
                if rng.next() % 2 == 0 { again.lat += 0.001 }  // an edit: same key, new content
                incidents.append(again)
                continue
            }
            incidents.append(Incident(key: "k\(rng.next() % 30_000)", time: 1_500_000_000 + Int64(rng.next() % 50_000_000),
                                      precision: .second, lat: 53 + Double(rng.next() % 1000) / 1000,
                                      lon: -2 + Double(rng.next() % 1000) / 1000,
                                      category: ["burglary", "vehicle-crime", nil][Int(rng.next() % 3)],
                                      handled: [true, false, nil][Int(rng.next() % 3)]))
        }
        var single = IncidentColumnsBuilder(), batched = IncidentColumnsBuilder()
        var singleOutcomes: [WriteOutcome] = [], batchedOutcomes: [WriteOutcome] = []
        for incident in incidents { singleOutcomes.append(try single.write(incident)) }
        var start = 0
        while start < incidents.count {
            let end = min(incidents.count, start + Int(rng.next() % 70))
            batched.write(contentsOf: Array(incidents[start..<end])) { batchedOutcomes.append($0) }
            start = end
        }
        #expect(Set(singleOutcomes) == [.inserted, .updated, .duplicate])
        #expect(batchedOutcomes.count == singleOutcomes.count)
        let firstDifference = zip(batchedOutcomes, singleOutcomes).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(firstDifference == nil, "outcome \(firstDifference?.offset ?? -1): \(String(describing: firstDifference?.element))")
        #expect(batched.columns.count == single.columns.count)
        let sameColumns = batched.columns.lat == single.columns.lat && batched.columns.lon == single.columns.lon
            && batched.columns.time == single.columns.time && batched.columns.handled == single.columns.handled
            && batched.columns.category == single.columns.category && batched.columns.categories == single.columns.categories
        #expect(sameColumns)
    }
}
