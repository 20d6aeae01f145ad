import AreaWatchCore
import Testing

@testable import AreaWatchCore

/// Checks DecimalParsing against the standard library's correctly rounded `Double(String)`:
/// the same bits when finite; for an overflow, nil or the same infinity (never a finite value).
private func agrees(_ text: String) -> (ok: Bool, got: Double?, expected: Double?) {
    let got = DecimalParsing.parse(text)
    guard let expected = Double(text) else { return (got == nil, got, nil) }
    if expected.isInfinite { return (got == nil || got == expected, got, expected) }
    return (got?.bitPattern == expected.bitPattern, got, expected)
}

private func randomDigits(_ rng: inout SplitMix64, _ count: Int) -> String {
    var s = ""
    for _ in 0..<count { s.append(Character(Unicode.Scalar(UInt8(48 + rng.int(0...9))))) }
    return s
}

@Suite("DecimalParsing")
struct DecimalParsingTests {
    @Test("random decimal strings equal Double(String)")
    func randomStrings() {
        let seed = testSeed(0xDEC_0001)
        var rng = SplitMix64(seed: seed)
        var checked = 0
        for i in 0..<30_000 {
            var text: String
            switch i % 4 {
            case 0, 1:
                // Generic: sign, up to 25 digits around an optional point, optional exponent.
                let total = rng.int(1...25)
                let intCount = rng.int(0...total)
                text = rng.pick(["", "", "-", "+"])
                if rng.bool(0.2) { text += String(repeating: "0", count: rng.int(1...4)) }
                text += randomDigits(&rng, intCount)
                if intCount < total || rng.bool(0.3) {
                    text += "." + randomDigits(&rng, total - intCount)
                }
                if rng.bool(0.4) {
                    text +=
                        rng.pick(["e", "E"]) + rng.pick(["", "-", "+"])
                        + String(rng.pick([rng.int(0...25), rng.int(0...400), rng.int(280...330)]))
                }
            case 2:
                // Coordinate-like: up to 3 integer digits and 1–12 decimals.
                text = (rng.bool() ? "-" : "") + String(rng.int(0...180)) + "." + randomDigits(&rng, rng.int(1...12))
            default:
                // The shortest text of a random Double (hard cases near every exponent).
                var d: Double
                repeat { d = Double(bitPattern: rng.next()) } while !d.isFinite
                text = "\(d)"
            }
            if text == "+" || text == "-" || text == "." { continue }
            let r = agrees(text)
            checked += 1
            #expect(
                r.ok,
                "seed \(seed): \"\(text)\" → \(String(describing: r.got)), Double(String) gives \(String(describing: r.expected))"
            )
        }
        #expect(checked > 25_000)
    }

    @Test("16 to 19 significant digits with up to 22 decimals (the exact-quotient path) equal Double(String)")
    func longMantissas() {
        let seed = testSeed(0xDEC_0016)
        var rng = SplitMix64(seed: seed)
        for i in 0..<40_000 {
            let digits = rng.int(16...19)
            let decimals = rng.int(0...min(22, digits))
            var body = randomDigits(&rng, digits)
            if i % 3 == 0 { body = String(rng.int(1...9)) + body.dropFirst() }
            let intPart = String(body.prefix(digits - decimals))
            let text =
                (rng.bool() ? "-" : "") + (intPart.isEmpty ? "0" : intPart)
                + (decimals > 0 ? "." + body.suffix(decimals) : "")
            let r = agrees(text)
            #expect(
                r.ok,
                "seed \(seed): \"\(text)\" → \(String(describing: r.got)), Double(String) gives \(String(describing: r.expected))"
            )
        }
        // A quotient exactly halfway between two doubles rounds to the even one.
        for w: UInt64 in [9_007_199_254_740_993, 9_007_199_254_740_995, 18_014_398_509_481_990, 18_014_398_509_481_986]
        {
            #expect(DecimalParsing.exactQuotient(w, 0) == Double("\(w)"), "\(w)")
        }
    }

    @Test(
        "hard and boundary cases equal Double(String)",
        arguments: [
            "0", "-0.0", "0.1", "0.3", "1", "9007199254740992", "9007199254740993", "9007199254740993.0000000001",
            "123456789012345", "1234567890123456", "123456789012345e22", "123456789012345e-22", "123456789012345e23",
            "123456789012345e-23", "1e22", "1e23", "1e-22", "1e-23", "999999999999999e22",
            "0.000000000000000000000000000001",
            "000000000000000000000000001", "1000000000000000000000000", "100000000000000000000000000000e-10",
            "2.2250738585072011e-308", "2.2250738585072012e-308", "2.2250738585072014e-308", "4.9406564584124654e-324",
            "2.4703282292062327e-324", "2.4703282292062328e-324", "1e-400", "-1e-400", "1.7976931348623157e308",
            "1.7976931348623158e308", "1.7976931348623159e308", "1e308", "1e309", "1e400", "-1e400", "0e999999",
            "1e-999999",
            "53.5974", "-1.550626", "1e-05", "100.0", "5.", ".5", "-.5", "+.5e1", "1E5", "1e+5", "1e-0", "00.00",
            "0.1000000000000000055511151231257827", "0.10000000000000000555111512312578271",
            "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791.9999999999999999999999999999999999999999999999999999999999999999999999"
        ])
    func hardCases(_ text: String) {
        let r = agrees(text)
        #expect(
            r.ok, "\"\(text)\" → \(String(describing: r.got)), Double(String) gives \(String(describing: r.expected))")
        #expect(DecimalParsing.parse(text) != nil)
    }

    @Test(
        "rejects everything but plain decimal syntax",
        arguments: [
            "", "nan", "NaN", "inf", "-inf", "+inf", "infinity", "Infinity", "0x1p3", "0x10", "1e", "1e+", "1e-", ".",
            "-.", "+.",
            "--1", "+-1", "-+1", "1.2.3", " 1", "1 ", "1\t", "+", "-", "e5", ".e5", "1_000", "1,5", "1e5.5", "1ee5",
            "1d5", "١",
            "12a", "0b101", "1e5 ", "∞"
        ])
    func rejects(_ text: String) {
        #expect(DecimalParsing.parse(text) == nil, "\"\(text)\" → \(String(describing: DecimalParsing.parse(text)))")
    }

    @Test("signs, zero and overflow")
    func specialValues() throws {
        let negativeZero = try #require(DecimalParsing.parse("-0"))
        #expect(negativeZero == 0 && negativeZero.sign == .minus)
        #expect(DecimalParsing.parse("-0.000e5")?.sign == .minus)
        #expect(DecimalParsing.parse("0")?.sign == .plus)
        #expect(DecimalParsing.parse("+0")?.sign == .plus)
        let huge = DecimalParsing.parse("1e400")
        #expect(huge == nil || huge == .infinity)
        let negativeHuge = DecimalParsing.parse("-1e400")
        #expect(negativeHuge == nil || negativeHuge == -.infinity)
        #expect(DecimalParsing.parse("1e-400") == 0)
    }

    @Test("the byte entry point matches the String one")
    func bytes() {
        for text in ["53.5974", "-1.550626", "1e22", "abc", "", "-0"] {
            let bytes = Array(text.utf8)
            let viaBytes = DecimalParsing.parse(bytes.span)
            #expect(viaBytes?.bitPattern == DecimalParsing.parse(text)?.bitPattern, "\"\(text)\"")
        }
    }
}
