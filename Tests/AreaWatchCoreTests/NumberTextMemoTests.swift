import Testing

@testable import AreaWatchCore

@Suite("NumberTextMemo")
struct NumberTextMemoTests {
    /// Values like a grid's p- and q-values (17 digits, repeated) and cell edges (6 decimals),
    /// short ones, integers, extremes, and more distinct values than the memo has slots: every
    /// append equals the `NumberFormat` function of its style.
    @Test(
        "appends exactly what NumberFormat appends, repeated or not",
        arguments: [
            NumberTextMemo.Style.shortest, .fixed(decimals: 6), .fixed(decimals: 4), .fixed(decimals: 0)
        ])
    func sameTextAsFormatting(_ style: NumberTextMemo.Style) {
        var rng = SplitMix64(seed: 0x5E0)
        let specials: [Double] = [
            0, -0.0, 1, 0.5, 100, 1e-5, 0.1 + 0.2, 1.0 / 3, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
            .infinity, -.infinity, .nan, 0.47839130639409927, 0.9356985889154986, 53.611908,
            -1.8608093261718750, 2.5e-7, -2.5e-7, 0.0000005
        ]
        let pool =
            specials + (0..<3000).map { _ in rng.unit() } + (0..<500).map { _ in (rng.unit() * 1e4).rounded() / 100 }
        var memo = NumberTextMemo(style)
        var memoText: [UInt8] = [], plainText: [UInt8] = []
        for round in 0..<3 {
            for _ in 0..<20_000 {
                // Later rounds also bring 40k values never seen: the table fills and overflows.
                let v = round > 0 && rng.int(0...1) == 0 ? rng.uniform(-1e6, 1e6) : pool[rng.int(0...(pool.count - 1))]
                let before = memoText.count
                memo.append(v, to: &memoText)
                switch style {
                case .shortest: NumberFormat.appendShortest(v, to: &plainText)
                case .fixed(let decimals): NumberFormat.appendFixed(v, decimals: decimals, to: &plainText)
                }
                #expect(memoText[before...].elementsEqual(plainText[before...]), "\(v)")
            }
        }
    }
}
