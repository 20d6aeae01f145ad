import AreaWatchCore
import Testing

@Suite("FNV-1a")
struct FNV1aTests {
    @Test("the published 64-bit FNV-1a test vectors")
    func publishedVectors() {
        #expect(FNV1a.hash([UInt8]()) == 0xcbf2_9ce4_8422_2325)
        #expect(FNV1a.hash("a".utf8) == 0xaf63_dc4c_8601_ec8c)
        #expect(FNV1a.hash("foobar".utf8) == 0x8594_4171_f739_67e8)
    }

    @Test("an integer is its eight bytes, least significant first; a text ends with a mark")
    func combining() {
        var integer = FNV1a()
        integer.combine(0x0102_0304_0506_0708)
        #expect(integer.value == FNV1a.hash([8, 7, 6, 5, 4, 3, 2, 1]))
        var split1 = FNV1a(), split2 = FNV1a()
        split1.combine("ab")
        split1.combine("c")
        split2.combine("a")
        split2.combine("bc")
        #expect(split1.value != split2.value, "the end mark keeps the texts apart")
        var plain = FNV1a()
        plain.combine("abc")
        #expect(plain.value == FNV1a.hash(Array("abc".utf8) + [UInt8](repeating: 0xff, count: 8)))
    }
}
