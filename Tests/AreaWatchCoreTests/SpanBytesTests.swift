import Testing

@testable import AreaWatchCore

/// The span byte operations against Array's own: random runs, with many that share a prefix,
/// compared with `==`, `lexicographicallyPrecedes`, `contains`, a byte-by-byte word and
/// `String(decoding:)`.
struct SpanBytesTests {
    private static func run(_ random: inout SplitMix64, alphabet: Int) -> [UInt8] {
        (0..<random.int(0...20)).map { _ in UInt8(random.int(0...(alphabet - 1))) + 97 }
    }

    @Test func equalityAndOrderMatchArrays() {
        let seed = testSeed(0x51AB_0001)
        var random = SplitMix64(seed: seed)
        for _ in 0..<5_000 {
            let a = Self.run(&random, alphabet: 3), b = Self.run(&random, alphabet: 3)
            let equal = Bytes.equal(a.span, b.span)
            let less = Bytes.less(a.span, b.span)
            #expect(equal == (a == b), "seed \(seed): \(a) \(b)")
            #expect(less == a.lexicographicallyPrecedes(b), "seed \(seed): \(a) \(b)")
            #expect(Bytes.equal(a, b.span) == (a == b))
        }
    }

    @Test func headAndTailAreTheEdgeWords() {
        let seed = testSeed(0x51AB_0002)
        var random = SplitMix64(seed: seed)
        for _ in 0..<2_000 {
            let a = Self.run(&random, alphabet: 26)
            let (head, tail) = Bytes.headAndTail(a.span)
            func word(_ bytes: ArraySlice<UInt8>) -> UInt64 {
                bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
            }
            if a.count >= 8 {
                #expect(head == word(a.prefix(8)) && tail == word(a.suffix(8)), "seed \(seed): \(a)")
            } else {
                #expect(head == a.reduce(0) { $0 << 8 | UInt64($1) } && tail == 0, "seed \(seed): \(a)")
            }
        }
    }

    @Test func searchCopyAndDecode() {
        let seed = testSeed(0x51AB_0003)
        var random = SplitMix64(seed: seed)
        for _ in 0..<2_000 {
            var a = Self.run(&random, alphabet: 5)
            if random.int(0...3) == 0 && !a.isEmpty { a[random.int(0...(a.count - 1))] = 0 }
            if random.int(0...3) == 0 { a.append(0xFF) } // not UTF-8: decoding repairs it
            let span = a.span
            let hasNUL = span.containsByte(0)
            let copy = span.copiedArray
            let text = span.decodedString
            var appended: [UInt8] = [1]
            appended.append(span: span)
            #expect(hasNUL == a.contains(0), "seed \(seed): \(a)")
            #expect(copy == a)
            #expect(text == String(decoding: a, as: UTF8.self))
            #expect(appended == [1] + a)
        }
    }

    @Test func growableBufferLendsAndTakesSpans() {
        var buffer = GrowableBuffer<UInt8>(capacity: 1)
        let parts = ["hello", ", ", "", "span", " world"].map { Array($0.utf8) }
        for part in parts { buffer.append(span: part.span) }
        let whole = buffer.withSpan { $0.copiedArray }
        #expect(whole == Array("hello, span world".utf8))
        let empty = GrowableBuffer<UInt8>(capacity: 4)
        #expect(empty.withSpan { $0.count } == 0)
    }
}
