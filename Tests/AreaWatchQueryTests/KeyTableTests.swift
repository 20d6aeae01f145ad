import AreaWatchCore
import Testing

@testable import AreaWatchQuery

/// The ad-hoc path's key table against a Dictionary: seeded random keys with repeats, keys that
/// share a fingerprint or a first half, a table sized too small (it must grow), and copies.
@Suite struct KeyTableTests {
    struct Key: Hashable {
        var a: UInt64
        var b: UInt32
    }

    @Test(arguments: [0, 100, 50_000])
    func agreesWithADictionary(expected: Int) {
        var rng = SplitMix64(seed: 0x7AB1E + UInt64(expected))
        var table = KeyTable(expected: expected)
        var reference: [Key: Int] = [:]
        var keys: [Key] = []
        for _ in 0..<40_000 {
            let key: Key
            switch rng.next() % 10 {
            case 0 where !keys.isEmpty: key = keys[Int(rng.next() % UInt64(keys.count))] // a repeat
            case 1 where !keys.isEmpty: // same first half, other second half
                let k = keys[Int(rng.next() % UInt64(keys.count))]
                key = Key(a: k.a, b: k.b &+ 1)
            case 2 where !keys.isEmpty: // same fingerprint (high half), other low half
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

/// The builder's outcomes (SPEC §4: a known key with identical content is a duplicate, with any
/// other content an update that wins) against a reference kept as whole incidents and compared by
/// `Incident.hasSameContent`: seeded incidents with repeated keys, repeats unchanged and repeats
/// with one field edited (each field in turn), written one at a time and in batches of random
/// sizes (`write(_: IncidentBatch)`, the parallel CSV path); the same outcomes in the same order, and
/// columns holding each key's last content in order of first appearance.
@Suite struct IncidentColumnsBuilderOutcomeTests {
    static func edited(_ incident: Incident, field: UInt64) -> Incident {
        var e = incident
        switch field % 10 {
        case 0: e.lat += 0.001
        case 1: e.lon = -e.lon
        case 2: e.time += 1
        case 3: e.handled = e.handled == true ? false : true
        case 4: e.category = e.category == "burglary" ? "robbery" : "burglary"
        case 5: e.precision = e.precision == .day ? .month : .day
        case 6: e.description = (e.description ?? "") + "x"
        case 7: e.user = e.user == nil ? "u1" : nil
        case 8: e.attributes = e.attributes == nil ? "{\"beat\":\"A\"}" : nil
        default: e.lat = -0.0 == e.lat ? 0.0 : -0.0 // the sign of zero is content too
        }
        return e
    }

    @Test func outcomesFollowSPEC4() throws {
        var rng = SplitMix64(seed: 0xBA7C4)
        var incidents: [Incident] = []
        for _ in 0..<20_000 {
            if !incidents.isEmpty && rng.next() % 3 == 0 {
                let again = incidents[Int(rng.next() % UInt64(incidents.count))]
                incidents.append(rng.next() % 2 == 0 ? again : Self.edited(again, field: rng.next()))
                continue
            }
            incidents.append(
                Incident(
                    key: "k\(rng.next() % 30_000)", time: 1_500_000_000 + Int64(rng.next() % 50_000_000),
                    precision: [.second, .second, .day][Int(rng.next() % 3)],
                    lat: 53 + Double(rng.next() % 1000) / 1000, lon: -2 + Double(rng.next() % 1000) / 1000,
                    category: ["burglary", "vehicle-crime", nil][Int(rng.next() % 3)],
                    handled: [true, false, nil][Int(rng.next() % 3)],
                    description: rng.next() % 5 == 0 ? "seen" : nil))
        }
        var reference: [String: Incident] = [:], firstSeen: [String] = []
        var expected: [WriteOutcome] = []
        for incident in incidents {
            if let known = reference[incident.key] {
                expected.append(known.hasSameContent(as: incident) ? .duplicate : .updated)
            } else {
                expected.append(.inserted)
                firstSeen.append(incident.key)
            }
            if expected.last != .duplicate { reference[incident.key] = incident }
        }
        #expect(Set(expected) == [.inserted, .updated, .duplicate])

        var single = IncidentColumnsBuilder(), batched = IncidentColumnsBuilder()
        var singleOutcomes: [WriteOutcome] = [], batchedOutcomes: [WriteOutcome] = []
        for incident in incidents { singleOutcomes.append(try single.write(incident)) }
        var start = 0
        while start < incidents.count {
            // Runs shorter and longer than the builder's prefetch distance.
            let end = min(incidents.count, start + Int(rng.next() % 100))
            incidents[start..<end].withUnsafeBufferPointer { run in
                batched.write(IncidentBatch(run)) { batchedOutcomes.append($0) }
            }
            start = end
        }
        for (name, outcomes) in [("single", singleOutcomes), ("batched", batchedOutcomes)] {
            #expect(outcomes.count == expected.count, "\(name)")
            let first = zip(outcomes, expected).enumerated().first { $0.element.0 != $0.element.1 }
            #expect(
                first == nil,
                "\(name): outcome \(first?.offset ?? -1) is \(String(describing: first?.element.0)), not \(String(describing: first?.element.1))"
            )
        }
        for builder in [single, batched] {
            let columns = builder.columns
            #expect(columns.count == firstSeen.count)
            let wrong = firstSeen.indices.first { row in
                let last = reference[firstSeen[row]]!
                let category = last.category.map { columns.categories.firstIndex(of: $0).map(Int32.init) ?? -2 } ?? -1
                return !columns.holds(
                    row, lat: last.lat, lon: last.lon, time: last.time, handled: last.handled, categoryID: category)
            }
            #expect(wrong == nil, "row \(wrong ?? -1) does not hold its key's last content")
        }
    }
}
