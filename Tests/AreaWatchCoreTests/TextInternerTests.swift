import AreaWatchCore
import Testing

@Suite("TextInterner")
struct TextInternerTests {
    /// Values built to collide in the hash's inputs: the same length and the same first and last
    /// eight bytes, differing only in the middle; short values; and values over the 128-byte cap.
    private static func value(_ rng: inout SplitMix64) -> [UInt8] {
        switch rng.int(0...3) {
        case 0:
            return Array("prefix-".utf8) + [UInt8(rng.int(97...122)), UInt8(rng.int(97...122))] + Array("-suffix!".utf8)
        case 1: return (0..<rng.int(0...7)).map { _ in UInt8(rng.int(97...100)) }
        case 2: return (0..<rng.int(8...40)).map { _ in UInt8(rng.int(0...255)) }
        default: return (0..<rng.int(126...130)).map { _ in UInt8(rng.int(120...121)) }
        }
    }

    @Test("entries number distinct values in first-seen order up to the capacity; texts are the bytes'")
    func againstReference() {
        let seed = testSeed(0x1A7E)
        var rng = SplitMix64(seed: seed)
        let interner = TextInterner(capacity: 300)
        var numbers: [[UInt8]: Int] = [:]
        for _ in 0..<30_000 {
            let bytes = TextInternerTests.value(&rng)
            let expected: Int?
            if let known = numbers[bytes] {
                expected = known
            } else if bytes.count <= 128 && numbers.count < 300 {
                expected = numbers.count
                numbers[bytes] = numbers.count
            } else {
                expected = nil
            }
            let entry = interner.entry(bytes.span)
            let text = interner.text(bytes.span)
            #expect(entry == expected, "seed \(seed): \(bytes)")
            #expect(Array(text.utf8) == Array(String(decoding: bytes, as: UTF8.self).utf8))
        }
        #expect(numbers.count == 300) // the cap was reached: later new values are not kept
        for (bytes, k) in numbers {
            #expect(interner.text(ofEntry: k) == String(decoding: bytes, as: UTF8.self))
        }
    }
}
