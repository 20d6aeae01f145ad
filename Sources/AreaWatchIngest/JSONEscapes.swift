import AreaWatchCore

/// JSON string escapes.
enum JSONEscapes {
    static func simple(_ e: UInt8) -> UInt8? {
        switch e {
        case ASCII.quote: return ASCII.quote
        case ASCII.backslash: return ASCII.backslash
        case UInt8(ascii: "/"): return UInt8(ascii: "/")
        case UInt8(ascii: "b"): return 8
        case UInt8(ascii: "f"): return 12
        case UInt8(ascii: "n"): return ASCII.lf
        case UInt8(ascii: "r"): return ASCII.cr
        case UInt8(ascii: "t"): return ASCII.tab
        default: return nil
        }
    }

    /// The four hex digits at `start` (the caller checked they are inside `raw`).
    static func hexValue(_ raw: Span<UInt8>, at start: Int) -> UInt32? {
        var v: UInt32 = 0
        for k in start..<(start + 4) {
            let d = raw[k]
            switch d {
            case 48...57: v = v << 4 | UInt32(d - 48)
            case 65...70: v = v << 4 | UInt32(d - 55)
            case 97...102: v = v << 4 | UInt32(d - 87)
            default: return nil
            }
        }
        return v
    }

    /// Appends one UTF-16 code unit as UTF-8; a lone surrogate becomes U+FFFD.
    static func appendUnit(_ unit: UInt32, pendingHigh: UInt32?, to out: inout [UInt8]) {
        var scalar = unit
        if let high = pendingHigh {
            scalar = 0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00)
        } else if (0xD800...0xDFFF).contains(unit) {
            scalar = 0xFFFD
        }
        let s = Unicode.Scalar(scalar) ?? "\u{FFFD}"
        out.append(contentsOf: Array(String(Character(s)).utf8))
    }
}

extension JSONTape {
    static func decodeEscapes(_ raw: Span<UInt8>, into out: inout [UInt8]) {
        var i = 0
        var pendingHigh: UInt32?
        while i < raw.count {
            let b = raw[unchecked: i]
            if b == ASCII.backslash && i + 1 < raw.count {
                let e = raw[unchecked: i + 1]
                if e == UInt8(ascii: "u"), i + 5 < raw.count, let unit = JSONEscapes.hexValue(raw, at: i + 2) {
                    i += 6
                    if (0xD800...0xDBFF).contains(unit) {
                        if let high = pendingHigh { JSONEscapes.appendUnit(high, pendingHigh: nil, to: &out) }
                        pendingHigh = unit
                        continue
                    }
                    if let high = pendingHigh, (0xDC00...0xDFFF).contains(unit) {
                        JSONEscapes.appendUnit(unit, pendingHigh: high, to: &out)
                    } else {
                        if let high = pendingHigh { JSONEscapes.appendUnit(high, pendingHigh: nil, to: &out) }
                        JSONEscapes.appendUnit(unit, pendingHigh: nil, to: &out)
                    }
                    pendingHigh = nil
                    continue
                }
                if let high = pendingHigh {
                    JSONEscapes.appendUnit(high, pendingHigh: nil, to: &out)
                    pendingHigh = nil
                }
                out.append(JSONEscapes.simple(e) ?? e)
                i += 2
                continue
            }
            if let high = pendingHigh {
                JSONEscapes.appendUnit(high, pendingHigh: nil, to: &out)
                pendingHigh = nil
            }
            out.append(b)
            i += 1
        }
        if let high = pendingHigh { JSONEscapes.appendUnit(high, pendingHigh: nil, to: &out) }
    }

    /// Decodes a complete string literal (with quotes); nil when it is not one.
    static func decodeStringLiteral(_ literal: Span<UInt8>) -> String? {
        var lo = 0, hi = literal.count
        while lo < hi,
            literal[lo] == ASCII.space || literal[lo] == ASCII.tab || literal[lo] == ASCII.lf || literal[lo] == ASCII.cr
        { lo += 1 }
        while hi > lo,
            literal[hi - 1] == ASCII.space || literal[hi - 1] == ASCII.tab || literal[hi - 1] == ASCII.lf
                || literal[hi - 1] == ASCII.cr
        { hi -= 1 }
        guard hi - lo >= 2, literal[lo] == ASCII.quote, literal[hi - 1] == ASCII.quote else { return nil }
        var out: [UInt8] = []
        decodeEscapes(literal.extracting((lo + 1)..<(hi - 1)), into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
