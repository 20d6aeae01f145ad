import AreaWatchCore
import Testing

/// SPEC §16's generator, against the outputs of an independent implementation (Python integers,
/// the reference algorithms of splitmix64 and xoshiro256** written out from their papers).
@Suite("xoshiro256** seeded by splitmix64 (SPEC §16)")
struct Xoshiro256StarStarTests {
    @Test(
        "first four outputs for seeds 0, 1 and 2^64 - 1",
        arguments: [
            (
                UInt64(0),
                [0x99ec_5f36_cb75_f2b4, 0xbf6e_1f78_4956_452a, 0x1a5f_849d_4933_e6e0, 0x6aa5_94f1_262d_2d2c] as [UInt64]
            ),
            (UInt64(1), [0xb3f2_af6d_0fc7_10c5, 0x853b_5596_4736_4cea, 0x92f8_9756_082a_4514, 0x642e_1c7b_c266_a3a7]),
            (UInt64.max, [0x8f55_20d5_2a7e_ad08, 0xc476_a018_caa1_802d, 0x81de_31c0_d260_469e, 0xbf65_8d7e_065f_3c2f])
        ])
    func firstOutputs(seed: UInt64, expected: [UInt64]) {
        var generator = Xoshiro256StarStar(seed: seed)
        #expect((0..<4).map { _ in generator.next() } == expected)
    }

    @Test("two successive shuffles of 0…9 from seed 1 (the generator runs on between them)")
    func shuffleGolden() {
        var generator = Xoshiro256StarStar(seed: 1)
        var first = Array(0..<10)
        generator.shuffle(&first)
        var second = Array(0..<10)
        generator.shuffle(&second)
        #expect(first == [3, 6, 1, 5, 0, 9, 2, 8, 4, 7])
        #expect(second == [1, 9, 0, 3, 2, 4, 6, 7, 8, 5])
    }

    @Test("index(below:) is floor(m * bound / 2^53) for m = next() >> 11, in 128-bit arithmetic")
    func indexArithmetic() {
        var a = Xoshiro256StarStar(seed: 7), b = Xoshiro256StarStar(seed: 7)
        for bound in [1, 2, 3, 10, 1 << 20, (1 << 32) - 1, 1 << 32, 1 << 40] {
            let m = b.next() >> 11
            // Swift binds `>>` tighter than `*`: the product first.
            let expected = Int((UInt128(m) * UInt128(bound)) >> 53)
            #expect(a.index(below: bound) == expected)
            #expect(expected < bound)
        }
    }
}
