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
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
    ]

    public static func parse(_ text: String) -> Double? {
        parse(text.utf8.span)
    }

    public static func parse(_ bytes: Span<UInt8>) -> Double? {
        if let value = parseShort(bytes) { return value }
        return parseGeneral(bytes)
    }

    /// `[-]digits[.digits]` with at most 19 digits in all, the shape of nearly every coordinate:
    /// while the mantissa is exact in a Double, one division by an exact power of ten is
    /// correctly rounded; longer ones (the shortest text of many doubles has 17 digits, as apps
    /// and Python write them) take `exactQuotient`. Why: the general path tracks significant
    /// digits and exponents byte by byte, and coordinates are two fields of every record; without
    /// `exactQuotient` the 17-digit coordinates of a WatchMe export would go through `strtod`.
    @inline(__always)
    private static func parseShort(_ bytes: Span<UInt8>) -> Double? {
        let n = bytes.count
        guard n > 0, n <= 21 else { return nil }
        var i = 0
        let negative = bytes[unchecked: 0] == UInt8(ascii: "-")
        if negative { i = 1 }
        var mantissa: UInt64 = 0
        let integerStart = i
        while i < n, bytes[unchecked: i] &- 48 < 10 {
            mantissa = mantissa &* 10 &+ UInt64(bytes[unchecked: i] &- 48)
            i += 1
        }
        let integerDigits = i - integerStart
        var fractionDigits = 0
        if i < n && bytes[unchecked: i] == UInt8(ascii: ".") {
            i += 1
            let fractionStart = i
            while i < n, bytes[unchecked: i] &- 48 < 10 {
                mantissa = mantissa &* 10 &+ UInt64(bytes[unchecked: i] &- 48)
                i += 1
            }
            fractionDigits = i - fractionStart
        }
        let digits = integerDigits + fractionDigits
        guard i == n, digits > 0, digits <= 19 else { return nil }
        // A mantissa up to 2^53 is exact in a Double (every 15-digit one, and 16-digit ones up
        // to 9007199254740992): one correctly rounded division (Clinger).
        let value =
            mantissa <= 1 << 53
            ? Double(mantissa) / exactPowersOfTen[fractionDigits]
            : exactQuotient(mantissa, fractionDigits)
        return negative ? -value : value
    }

    /// `w / 10^k` correctly rounded (to nearest, ties to even) for any 64-bit `w` and k ≤ 22:
    /// `w / 10^k = (w · 2^s / 5^k) · 2^(-s-k)`, where 5^k is exact in 64 bits; `s` is chosen so
    /// the integer quotient has 63 or 64 bits, which are rounded to 53 with the division's
    /// remainder as the sticky bit. The result is a normal double (≥ 1e-22), so scaling by a
    /// power of two is exact.
    @inline(__always)
    static func exactQuotient(_ w: UInt64, _ k: Int) -> Double {
        guard w != 0 else { return 0 }
        let d = powersOfFive[k]
        let wBits = 64 - w.leadingZeroBitCount
        let dBits = 64 - d.leadingZeroBitCount
        let s = 63 + dBits - wBits // 0 ... 114
        let high: UInt64 = s >= 64 ? w << UInt64(s - 64) : (s == 0 ? 0 : w >> UInt64(64 - s))
        let low: UInt64 = s >= 64 ? 0 : w << UInt64(s)
        // The numerator is below 2^(63 + dBits) ≤ d · 2^64, so the quotient fits 64 bits.
        let (q, r) = d.dividingFullWidth((high, low))
        let qBits = 64 - q.leadingZeroBitCount
        let drop = qBits - 53 // 10 or 11
        var m = q >> UInt64(drop)
        let rest = q & ((1 << UInt64(drop)) - 1)
        let half: UInt64 = 1 << UInt64(drop - 1)
        if rest > half || (rest == half && (r != 0 || m & 1 == 1)) { m += 1 }
        return Double(sign: .plus, exponent: drop - s - k, significand: Double(m))
    }

    /// 5^0 … 5^22 (5^22 < 2^52).
    private static let powersOfFive: [UInt64] = [
        1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125, 9765625, 48828125, 244140625,
        1220703125, 6103515625, 30517578125, 152587890625, 762939453125, 3814697265625,
        19073486328125, 95367431640625, 476837158203125, 2384185791015625
    ]

    private static func parseGeneral(_ bytes: Span<UInt8>) -> Double? {
        let n = bytes.count
        var i = 0
        var negative = false
        if i < n && (bytes[unchecked: i] == UInt8(ascii: "-") || bytes[unchecked: i] == UInt8(ascii: "+")) {
            negative = bytes[unchecked: i] == UInt8(ascii: "-")
            i += 1
        }
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var droppedDigits = false
        var decimalExponent = 0
        var digitsSeen = 0
        var seenNonZero = false
        while i < n, bytes[unchecked: i] &- 48 < 10 {
            accumulate(
                bytes[unchecked: i] &- 48, &mantissa, &significantDigits, &seenNonZero, &droppedDigits,
                &decimalExponent,
                afterPoint: false)
            digitsSeen += 1
            i += 1
        }
        if i < n && bytes[unchecked: i] == UInt8(ascii: ".") {
            i += 1
            while i < n, bytes[unchecked: i] &- 48 < 10 {
                accumulate(
                    bytes[unchecked: i] &- 48, &mantissa, &significantDigits, &seenNonZero, &droppedDigits,
                    &decimalExponent,
                    afterPoint: true)
                digitsSeen += 1
                i += 1
            }
        }
        guard digitsSeen > 0 else { return nil }
        if i < n && (bytes[unchecked: i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            var expNegative = false
            if i < n && (bytes[unchecked: i] == UInt8(ascii: "-") || bytes[unchecked: i] == UInt8(ascii: "+")) {
                expNegative = bytes[unchecked: i] == UInt8(ascii: "-")
                i += 1
            }
            var exp = 0
            var expDigits = 0
            while i < n, bytes[unchecked: i] &- 48 < 10 {
                if exp < 100_000 { exp = exp * 10 + Int(bytes[unchecked: i] &- 48) }
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
        if !droppedDigits && mantissa != 0 && decimalExponent < 0 && decimalExponent >= -22 {
            let v = exactQuotient(mantissa, -decimalExponent)
            return negative ? -v : v
        }
        // Rare slow path: long mantissas or large exponents.
        return Double(bytes.decodedString)
    }

    @inline(__always)
    private static func accumulate(
        _ digit: UInt8, _ mantissa: inout UInt64, _ significant: inout Int,
        _ seenNonZero: inout Bool, _ dropped: inout Bool,
        _ exponent: inout Int, afterPoint: Bool
    ) {
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
