/// Reading the canonical attribute text ingest writes: a JSON object of string values.
public enum AttributeText {
    /// The value of one attribute, or nil when absent (or the text is not such an object).
    public static func value(named name: String, in text: String?) -> String? {
        guard let text else { return nil }
        var bytes = Array(text.utf8)[...]
        guard bytes.popFirst() == ASCII.openBrace else { return nil }
        while let key = readString(&bytes) {
            guard bytes.popFirst() == ASCII.colon, let value = readString(&bytes) else { return nil }
            if key == name { return value }
            guard bytes.popFirst() == ASCII.comma else { return nil }
        }
        return nil
    }

    private static func readString(_ bytes: inout ArraySlice<UInt8>) -> String? {
        guard bytes.popFirst() == ASCII.quote else { return nil }
        var out: [UInt8] = []
        while let b = bytes.popFirst() {
            if b == ASCII.quote { return String(decoding: out, as: UTF8.self) }
            if b == ASCII.backslash {
                guard let e = bytes.popFirst() else { return nil }
                switch e {
                case UInt8(ascii: "n"): out.append(ASCII.lf)
                case UInt8(ascii: "r"): out.append(ASCII.cr)
                case UInt8(ascii: "t"): out.append(ASCII.tab)
                case UInt8(ascii: "u"):
                    guard bytes.count >= 4, let v = UInt32(String(decoding: bytes.prefix(4), as: UTF8.self), radix: 16)
                    else { return nil }
                    bytes = bytes.dropFirst(4)
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(v) ?? "\u{FFFD}")).utf8))
                default: out.append(e)
                }
            } else {
                out.append(b)
            }
        }
        return nil
    }
}
