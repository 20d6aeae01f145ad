import Testing

@testable import AreaWatchCore

/// The radix sort against the standard library's stable sort, on one and several threads.
struct RadixSortTests {
    /// Keys drawn so that every kind of pass happens: digits that vary, digits the same for every
    /// key (skipped), many equal keys (stability), and sizes around the per-thread minimum.
    static func keys(_ n: Int, _ kind: Int, _ random: inout SplitMix64) -> [UInt64] {
        (0..<n).map { _ in
            switch kind {
            case 0: return random.next()
            case 1: return 0x9C3F_0000_0000_0000 | (random.next() & 0xFFFF_FFFF) // one city: high digits constant
            case 2: return random.next() & 0x7 // few distinct keys
            default: return random.next() & 0xFFFF_0000_FFFF_0000 // two digits always zero
            }
        }
    }

    @Test(arguments: [1, 2, 3, 8])
    func equalsAStableComparisonSort(threads: Int) {
        let seed = testSeed(0x5EED_5047)
        var random = SplitMix64(seed: seed)
        for n in [0, 1, 2, 1_000, RadixSort.pairsPerThread * 2 - 1, RadixSort.pairsPerThread * 3 + 17] {
            for kind in 0..<4 {
                var keys = RadixSortTests.keys(n, kind, &random)
                var values = (0..<n).map { UInt32($0) }
                // Values ascend: the stable order.
                let expected = zip(keys, values).sorted { ($0.0, $0.1) < ($1.0, $1.1) }
                RadixSort.sort(keys: &keys, values: &values, threads: threads)
                #expect(keys == expected.map { $0.0 }, "seed \(seed), n \(n), kind \(kind)")
                #expect(values == expected.map { $0.1 }, "seed \(seed), n \(n), kind \(kind)")
            }
        }
    }
}
