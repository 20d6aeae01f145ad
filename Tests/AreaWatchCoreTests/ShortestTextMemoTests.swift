import Testing
@testable import AreaWatchCore

@Suite("ShortestTextMemo")
struct ShortestTextMemoTests {
    /// Values like a grid's p- and q-values (17 digits, repeated), short ones, integers, extremes,
    /// and more distinct values than the memo has slots: every append equals `appendShortest`.
    @Test("appends exactly what NumberFormat.appendShortest appends, repeated or not")
    func sameTextAsFormatting() {
        var rng = SplitMix64(seed: 0x5E0)
        let specials: [Double] = [0, -0.0, 1, 0.5, 100, 1e-5, 0.1 + 0.2, 1.0 / 3, 5e-324, .greatestFiniteMagnitude,
                                  .infinity, -.infinity, .nan, 0.47839130639409927, 0.9356985889154986]
        let pool = specials + (0..<3000).map { _ in rng.unit() } + (0..<500).map { _ in (rng.unit() * 1e4).rounded() / 100 }
        var memo = ShortestTextMemo()
        var memoText: [UInt8] = [], plainText: [UInt8] = []
        for round in 0..<3 {
            for _ in 0..<20_000 {
                // Later rounds also bring 40k values never seen: the table fills and overflows.
                let v = round > 0 && rng.int(0...1) == 0 ? rng.uniform(-1e6, 1e6) : pool[rng.int(0...(pool.count - 1))]
                let before = memoText.count
                memo.appendShortest(v, to: &memoText)
                NumberFormat.appendShortest(v, to: &plainText)
                #expect(memoText[before...].elementsEqual(plainText[before...]), "\(v)")
            }
        }
    }
}
