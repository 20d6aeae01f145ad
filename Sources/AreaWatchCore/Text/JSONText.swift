/// JSON string escaping shared by every writer of JSON text.
public enum JSONText {
    private static let hex = Array("0123456789abcdef".utf8)

    /// Appends the bytes of a string body (without quotes), escaping `"`, `\` and control bytes.
    /// Invalid UTF-8 is replaced by U+FFFD so the output is always valid JSON.
    public static func appendEscaped(_ s: Span<UInt8>, to out: inout [UInt8]) {
        // Fast path: plain ASCII without anything to escape is copied in one go.
        var plain = true
        for i in 0..<s.count {
            let b = s[unchecked: i]
            if b < 32 || b == ASCII.quote || b == ASCII.backslash || b >= 127 {
                plain = false
                break
            }
        }
        if plain {
            out.append(span: s)
            return
        }
        let start = out.count
        var needsRepair = false
        for i in 0..<s.count {
            let b = s[unchecked: i]
            switch b {
            case ASCII.quote:
                out.append(ASCII.backslash)
                out.append(b)
            case ASCII.backslash:
                out.append(ASCII.backslash)
                out.append(b)
            case ASCII.lf:
                out.append(ASCII.backslash)
                out.append(UInt8(ascii: "n"))
            case ASCII.cr:
                out.append(ASCII.backslash)
                out.append(UInt8(ascii: "r"))
            case ASCII.tab:
                out.append(ASCII.backslash)
                out.append(UInt8(ascii: "t"))
            case 0..<32, 127:
                out.append(contentsOf: [
                    ASCII.backslash, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(b >> 4)],
                    hex[Int(b & 15)]
                ])
            default:
                if b >= 0x80 { needsRepair = true }
                out.append(b)
            }
        }
        if needsRepair { repairUTF8(in: &out, from: start) }
    }

    public static func appendEscaped(_ s: String, to out: inout [UInt8]) {
        appendEscaped(s.utf8.span, to: &out)
    }

    public static func escaped(_ s: String) -> String {
        var out: [UInt8] = []
        appendEscaped(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Re-validates the bytes appended from `start`; rewrites them only when they are not UTF-8.
    private static func repairUTF8(in out: inout [UInt8], from start: Int) {
        let tail = Array(out[start...])
        let repaired = Array(String(decoding: tail, as: UTF8.self).utf8)
        if repaired != tail {
            out.removeSubrange(start...)
            out.append(contentsOf: repaired)
        }
    }
}
