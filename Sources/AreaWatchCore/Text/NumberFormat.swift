import Glibc

/// Deterministic number text for every output.
///
/// `fixed` rounds the exact binary value half-to-even, like C's `%.*f` and Python's format, so
/// our files match tools that use them digit for digit. Why hand-written: grid.geojson writes
/// ten coordinates per cell, and `snprintf` parses its format and locks the locale for each; the
/// fast path below is exact and falls back to `snprintf` only near a tie.
public enum NumberFormat {
    /// 10^0 … 10^15, exact (a literal, so no lazy initialisation per use).
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15
    ]

    /// `v` with exactly `decimals` (0…9) digits after the point.
    public static func fixed(_ v: Double, decimals: Int) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        appendFixed(v, decimals: decimals, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    public static func appendFixed(_ v: Double, decimals: Int, to out: inout [UInt8]) {
        precondition(decimals >= 0 && decimals <= 9)
        guard v.isFinite else {
            out.append(contentsOf: v.isNaN ? Array("nan".utf8) : Array((v < 0 ? "-inf" : "inf").utf8))
            return
        }
        guard let digits = fixedDigits(v, decimals: decimals) else {
            appendViaPrintf(v, decimals: decimals, to: &out)
            return
        }
        appendDigits(digits, negative: v.sign == .minus, decimals: decimals, to: &out)
    }

    /// |v|·10^decimals correctly rounded to an integer, or nil when the fast path cannot tell
    /// (near a rounding tie, too large, not finite). The exact product is within half an ulp of
    /// `scaled`; unless `scaled` sits near a tie, `rounded` is the correctly rounded exact value.
    @inline(__always)
    fileprivate static func fixedDigits(_ v: Double, decimals: Int) -> UInt64? {
        let scaled = v * powersOfTen[decimals]
        let rounded = scaled.rounded(.toNearestOrEven)
        guard abs(scaled) < 1e15, abs(scaled - rounded) < 0.4999 else { return nil }
        return UInt64(abs(rounded))
    }

    /// `magnitude` in decimal with a point before its last `decimals` digits (at least one digit
    /// before the point). The text is built backwards on the stack and appended at once: an array
    /// per number, then an append per digit, were most of writing grid.geojson.
    @inline(__always)
    private static func appendDigits(_ magnitude: UInt64, negative: Bool, decimals: Int, to out: inout [UInt8]) {
        var text: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &text) { buf in
            let at = writeDigits(magnitude, negative: negative, decimals: decimals, endingAt: buf)
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buf[at...]))
        }
    }

    /// Writes the text `appendDigits` appends so that it ends at the end of `buf` (32 bytes);
    /// returns where it starts.
    @inline(__always)
    fileprivate static func writeDigits(
        _ magnitude: UInt64, negative: Bool, decimals: Int,
        endingAt buf: UnsafeMutableRawBufferPointer
    ) -> Int {
        var rest = magnitude
        var at = buf.count
        var written = 0
        repeat {
            if written == decimals && decimals > 0 {
                at -= 1
                buf[at] = UInt8(ascii: ".")
            }
            at -= 1
            buf[at] = 48 + UInt8(rest % 10)
            rest /= 10
            written += 1
        } while rest > 0 || written <= decimals
        if negative {
            at -= 1
            buf[at] = UInt8(ascii: "-")
        }
        return at
    }

    private static func appendViaPrintf(_ v: Double, decimals: Int, to out: inout [UInt8]) {
        var buffer = [CChar](repeating: 0, count: 512)
        let count = withVaList([decimals, v]) { vsnprintf(&buffer, buffer.count, "%.*f", $0) }
        out.append(contentsOf: buffer.prefix(Int(count)).map { UInt8(bitPattern: $0) })
    }

    /// Integers without a fractional part (`5`), other values as their shortest round-trip text.
    public static func compact(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }

    /// The shortest decimal text that reads back as the same Double (`53.5974`, `-1.550626`,
    /// `1e-05`, `100.0`): Swift's and Python's `repr` form, used in derived keys (SPEC §4).
    public static func shortest(_ v: Double) -> String { v.description }

    /// Appends `shortest(v)`. Why: an id-less row's key needs two of these, and the standard
    /// library's shortest-digits conversion builds a String for each. The fast path covers
    /// 1e-4 ≤ |v| < 1e15 with at most 15 significant digits, every coordinate. Two decimals of
    /// ≤ 15 significant digits never read back as the same Double, so if `v` has such a text it is
    /// `|v|·10^d` rounded, for the most decimals `d` that keep 15 digits (the product is within
    /// 0.2 of that integer), with its trailing zeros dropped; one correctly rounded division
    /// checks that it reads back as `v`. Anything else takes `description`.
    public static func appendShortest(_ v: Double, to out: inout [UInt8]) {
        let magnitude = abs(v)
        if magnitude >= 1e-4 && magnitude < 1e15 {
            var decimals = 15
            while decimals > 0 && magnitude >= powersOfTen[15 - decimals] { decimals -= 1 }
            let digits = (magnitude * powersOfTen[decimals]).rounded()
            if digits < 1e15 && digits / powersOfTen[decimals] == magnitude {
                var m = UInt64(digits)
                while decimals > 0 && m % 10 == 0 {
                    m /= 10
                    decimals -= 1
                }
                appendDigits(m, negative: v < 0, decimals: decimals, to: &out)
                if decimals == 0 { // Swift's and Python's integral form: "100.0"
                    out.append(UInt8(ascii: "."))
                    out.append(UInt8(ascii: "0"))
                }
                return
            }
        }
        var text = v.description
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    /// An integer with a comma between groups of three digits (`1,999,769`), for counts people read.
    public static func grouped(_ v: Int) -> String {
        let digits = Array(String(v.magnitude).utf8)
        var out: [UInt8] = v < 0 ? [UInt8(ascii: "-")] : []
        for (i, digit) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(UInt8(ascii: ",")) }
            out.append(digit)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the decimal digits of an integer.
    @inline(__always)
    public static func appendInteger(_ v: Int, to out: inout [UInt8]) {
        appendDigits(UInt64(v.magnitude), negative: v < 0, decimals: 0, to: &out)
    }
}

/// `NumberFormat.appendFixed`'s text held on the stack, for a number written several times: a
/// cell polygon names each edge two or three times, and formatting each once halves the number
/// formatting of grid.geojson and grid.csv.
public struct FixedText {
    private var text: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var start = 0
    /// The rare text the fast path does not produce (non-finite, huge, near a rounding tie).
    private var other: [UInt8]?

    public init(_ v: Double, decimals: Int) {
        precondition(decimals >= 0 && decimals <= 9)
        guard let digits = NumberFormat.fixedDigits(v, decimals: decimals) else {
            var bytes: [UInt8] = []
            NumberFormat.appendFixed(v, decimals: decimals, to: &bytes)
            other = bytes
            return
        }
        start = withUnsafeMutableBytes(of: &text) { buf in
            NumberFormat.writeDigits(digits, negative: v.sign == .minus, decimals: decimals, endingAt: buf)
        }
    }

    @inline(__always)
    public func append(to out: inout [UInt8]) {
        if let other { return out.append(contentsOf: other) }
        withUnsafeBytes(of: text) { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[start...])) }
    }
}
