import AreaWatchCore
import Foundation
import Testing

@testable import AreaWatchCore

private func printf(_ v: Double, _ decimals: Int) -> String {
    String(format: "%.*f", decimals, v)
}

@Suite("NumberFormat")
struct NumberFormatTests {
    @Test("fixed equals printf's %.*f on random values, decimals 0…9")
    func randomValues() {
        let seed = testSeed(0xF0_0001)
        var rng = SplitMix64(seed: seed)
        for i in 0..<20_000 {
            let v: Double
            switch i % 6 {
            case 0: v = rng.uniform(-1000, 1000)
            case 1: v = rng.uniform(-1, 1) * pow(10, Double(rng.int(-12...20)))
            case 2: v = Double(rng.int(-1_000_000...1_000_000)) / Double(1 << rng.int(1...16)) // exact binary ties
            case 3:
                // Decimal texts ending in 5, just above or below a tie in binary.
                let text =
                    (rng.bool() ? "-" : "") + String(rng.int(0...9999)) + "." + String(rng.int(0...99_999_999)) + "5"
                v = Double(text)!
            case 4:
                var d: Double
                repeat { d = Double(bitPattern: rng.next()) } while !d.isFinite
                v = d
            default: v = Double(rng.int(-99_999...99_999)) / pow(10, Double(rng.int(0...10)))
            }
            let d = rng.int(0...9)
            #expect(NumberFormat.fixed(v, decimals: d) == printf(v, d), "seed \(seed): \(v) with \(d) decimals")
        }
    }

    @Test(
        "ties and signs",
        arguments: [
            (0.03125, 4), (-1e-9, 6), (0.125, 2), (0.375, 2), (2.5, 0), (3.5, 0), (0.5, 0), (1.5, 0), (-0.5, 0),
            (-2.5, 0),
            (1.005, 2), (2.675, 2), (1.0000000005, 9), (-0.0, 2), (-0.0, 0), (0.0, 0), (1e15, 2), (1e16, 3), (-1e20, 9),
            (123456789.123456789, 9), (999999.9999999, 6), (9.5, 0), (0.05, 1), (0.15, 1), (0.25, 1), (0.35, 1),
            (4503599627370495.5, 0), (4503599627370497, 0), (1.7976931348623157e308, 9),
            (Double.leastNonzeroMagnitude, 9), (-Double.leastNonzeroMagnitude, 9),
            (0.0000000005, 9), (0.0000000015, 9), (53.5974, 6), (-1.550626, 6)
        ])
    func ties(v: Double, decimals: Int) {
        #expect(NumberFormat.fixed(v, decimals: decimals) == printf(v, decimals), "\(v) with \(decimals) decimals")
    }

    @Test("known texts")
    func knownTexts() {
        #expect(NumberFormat.fixed(0.03125, decimals: 4) == "0.0312")
        #expect(NumberFormat.fixed(-1e-9, decimals: 6) == "-0.000000")
        #expect(NumberFormat.fixed(2.5, decimals: 0) == "2")
        #expect(NumberFormat.fixed(53.5974, decimals: 6) == "53.597400")
        #expect(NumberFormat.fixed(.infinity, decimals: 2) == "inf")
        #expect(NumberFormat.fixed(-.infinity, decimals: 2) == "-inf")
        #expect(NumberFormat.fixed(.nan, decimals: 2) == "nan")
        var out = Array("x=".utf8)
        NumberFormat.appendFixed(1.25, decimals: 1, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "x=1.2")
    }

    @Test("appendShortest equals the standard library's shortest text (description) on random values")
    func shortestAgainstDescription() {
        let seed = testSeed(0xF0_0002)
        var rng = SplitMix64(seed: seed)
        func shortest(_ v: Double) -> String {
            var out: [UInt8] = []
            NumberFormat.appendShortest(v, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
        for i in 0..<200_000 {
            let v: Double
            switch i % 7 {
            case 0: v = (Double(rng.int(-90_000_000...90_000_000)) / 1e6) // coordinates, 6 decimals
            case 1: v = Double(Float(rng.uniform(-180, 180))) // float32 values: 17-digit doubles
            case 2: v = rng.uniform(-1, 1) * pow(10, Double(rng.int(-6...17))) // around both notation limits
            case 3: v = Double(rng.int(-99_999_999_999_999...99_999_999_999_999)) / pow(10, Double(rng.int(0...15)))
            case 4:
                var d: Double
                repeat { d = Double(bitPattern: rng.next()) } while !d.isFinite
                v = d
            case 5: v = Double(rng.int(-1_000_000...1_000_000)) // integers: "5.0"
            default: v = rng.uniform(-1e-3, 1e-3)
            }
            #expect(shortest(v) == v.description, "seed \(seed): \(v)")
        }
        for v in [
            0.0, -0.0, 1e-4, -1e-4, 0.00009999, 1e15, 999_999_999_999_999.0, 1e15 - 0.5, 0.1, 0.2, 0.3,
            0.1 + 0.2, 53.5974, -1.550626, 100, 1e-05, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
            123_456_789_012_345.6, 4503599627370497
        ] {
            #expect(shortest(v) == v.description, "\(v)")
        }
    }

    @Test("compact, shortest and integers")
    func otherForms() {
        #expect(NumberFormat.compact(5) == "5")
        #expect(NumberFormat.compact(-3) == "-3")
        #expect(NumberFormat.compact(2.5) == "2.5")
        #expect(NumberFormat.compact(0.1) == "0.1")
        #expect(NumberFormat.shortest(53.5974) == "53.5974")
        #expect(NumberFormat.shortest(-1.550626) == "-1.550626")
        #expect(NumberFormat.shortest(1e-05) == "1e-05")
        #expect(NumberFormat.shortest(100.0) == "100.0")
        for v in [0, 7, 9, 10, 99, 100, -1, -10, 1_234_567_890, Int.max, Int.min] {
            var out: [UInt8] = []
            NumberFormat.appendInteger(v, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == String(v))
        }
    }
}
