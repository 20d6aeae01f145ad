/// Decimal text → Double, correctly rounded, straight from bytes.
///
/// Measured need: `Double(String)` costs a String allocation per field, and ingest parses two
/// coordinates per record at over a million records a second. Numbers of at most 15 significant
/// digits and a small exponent take Clinger's exact fast path (integer mantissa times or divided
/// by an exact power of ten: one correctly rounded operation); anything else goes to the
/// standard library's correctly rounded parser. Only plain decimal syntax is accepted
/// (`[+-]digits[.digits][e[+-]digits]`): no `nan`, `inf`, hex, or surrounding text.
public enum DecimalParsing {
    /// 10^0 … 10^22, every one exact in a Double (a literal, so no lazy initialisation per use).
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    public static func parse(_ text: String) -> Double? {
        var copy = text
        return copy.withUTF8 { parse($0) }
    }

    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        if let value = parseShort(bytes) { return value }
        return parseGeneral(bytes)
    }

    /// `[-]digits[.digits]` with at most 15 digits in all, the shape of nearly every coordinate:
    /// the mantissa is exact, so one division by an exact power of ten is correctly rounded.
    /// Measured: about twice as fast as the general path, which tracks significant digits.
    @inline(__always)
    private static func parseShort(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        let n = bytes.count
        guard n > 0, n <= 17 else { return nil }
        var i = 0
        let negative = bytes[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        var mantissa: UInt64 = 0
        let integerStart = i
        while i < n, bytes[i] &- 48 < 10 {
            mantissa = mantissa &* 10 &+ UInt64(bytes[i] &- 48)
            i += 1
        }
        let integerDigits = i - integerStart
        var fractionDigits = 0
        if i < n && bytes[i] == UInt8(ascii: ".") {
            i += 1
            let fractionStart = i
            while i < n, bytes[i] &- 48 < 10 {
                mantissa = mantissa &* 10 &+ UInt64(bytes[i] &- 48)
                i += 1
            }
            fractionDigits = i - fractionStart
        }
        guard i == n, integerDigits + fractionDigits > 0, integerDigits + fractionDigits <= 15 else { return nil }
        let value = Double(mantissa) / exactPowersOfTen[fractionDigits]
        return negative ? -value : value
    }

    private static func parseGeneral(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        let n = bytes.count
        var i = 0
        var negative = false
        if i < n && (bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+")) {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var droppedDigits = false
        var decimalExponent = 0
        var digitsSeen = 0
        var seenNonZero = false
        while i < n, bytes[i] &- 48 < 10 {
            accumulate(bytes[i] &- 48, &mantissa, &significantDigits, &seenNonZero, &droppedDigits, &decimalExponent, afterPoint: false)
            digitsSeen += 1
            i += 1
        }
        if i < n && bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < n, bytes[i] &- 48 < 10 {
                accumulate(bytes[i] &- 48, &mantissa, &significantDigits, &seenNonZero, &droppedDigits, &decimalExponent, afterPoint: true)
                digitsSeen += 1
                i += 1
            }
        }
        guard digitsSeen > 0 else { return nil }
        if i < n && (bytes[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            var expNegative = false
            if i < n && (bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+")) {
                expNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            var exp = 0
            var expDigits = 0
            while i < n, bytes[i] &- 48 < 10 {
                if exp < 100_000 { exp = exp * 10 + Int(bytes[i] &- 48) }
                expDigits += 1
                i += 1
            }
            guard expDigits > 0 else { return nil }
            decimalExponent += expNegative ? -exp : exp
        }
        guard i == n else { return nil }

        if !droppedDigits && significantDigits <= 15 {
            let m = Double(mantissa)
            var value: Double?
            if mantissa == 0 {
                value = 0
            } else if decimalExponent >= 0 && decimalExponent <= 22 {
                value = m * exactPowersOfTen[decimalExponent]
            } else if decimalExponent < 0 && decimalExponent >= -22 {
                value = m / exactPowersOfTen[-decimalExponent]
            }
            if let v = value { return negative ? -v : v }
        }
        // Rare slow path: long mantissas or large exponents.
        return Double(String(decoding: bytes, as: UTF8.self))
    }

    @inline(__always)
    private static func accumulate(_ digit: UInt8, _ mantissa: inout UInt64, _ significant: inout Int,
                                   _ seenNonZero: inout Bool, _ dropped: inout Bool,
                                   _ exponent: inout Int, afterPoint: Bool) {
        if digit != 0 { seenNonZero = true }
        if !seenNonZero {
            if afterPoint { exponent -= 1 }
            return
        }
        if significant < 19 {
            mantissa = mantissa * 10 + UInt64(digit)
            significant += 1
            if afterPoint { exponent -= 1 }
        } else {
            if digit != 0 { dropped = true }
            if !afterPoint { exponent += 1 }
        }
    }
}
