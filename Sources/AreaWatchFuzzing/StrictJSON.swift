/// A deliberately plain, strict RFC 8259 parser, independent of the engine's `JSONStream` and
/// `JSONTape`: the model the JSON fuzz target compares the engine with.
///
/// It keeps what the model needs: every value's kind, byte span and nesting depth, object
/// members in order (duplicates kept) with decoded names, decoded strings. Like the engine it
/// does not validate UTF-8 inside strings. Nesting deeper than `depthLimit` makes it give up
/// (nil), so the model itself never overflows the stack.
struct StrictJSON {
    final class Value {
        enum Kind { case object, array, string, number, trueValue, falseValue, null }
        let kind: Kind
        /// Byte range of the value in the input (without surrounding whitespace).
        let start: Int
        var end: Int = 0
        /// 0 for scalars, 1 + the deepest child for containers.
        var depth = 0
        /// Members in order: decoded name, the name as written (between its quotes), value.
        var members: [(name: [UInt8], raw: [UInt8], value: Value)] = []
        var elements: [Value] = []
        /// Decoded UTF-8 of a string.
        var text: [UInt8] = []

        init(kind: Kind, start: Int) {
            self.kind = kind
            self.start = start
        }

        var span: Int { end - start }
    }

    let bytes: [UInt8]
    var i = 0
    let depthLimit: Int
    /// True when parsing stopped because of the depth limit (the answer is unknown, not "invalid").
    private(set) var gaveUp = false

    init(_ bytes: [UInt8], from start: Int = 0, depthLimit: Int = 400) {
        self.bytes = bytes
        i = start
        self.depthLimit = depthLimit
    }

    /// One whole document: whitespace, a value, whitespace, the end.
    mutating func document() -> Value? {
        skipSpace()
        guard let v = value(level: 0) else { return nil }
        skipSpace()
        return i == bytes.count ? v : nil
    }

    mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 32 || bytes[i] == 9 || bytes[i] == 10 || bytes[i] == 13 { i += 1 }
    }

    private mutating func value(level: Int) -> Value? {
        guard i < bytes.count else { return nil }
        switch bytes[i] {
        case 123: return object(level: level)
        case 91: return array(level: level)
        case 34:
            let v = Value(kind: .string, start: i)
            guard let text = string() else { return nil }
            v.text = text
            v.end = i
            return v
        case 116: return literal("true", .trueValue)
        case 102: return literal("false", .falseValue)
        case 110: return literal("null", .null)
        default: return number()
        }
    }

    private mutating func object(level: Int) -> Value? {
        container(.object, close: 125, level: level) { parser, v in
            let nameStart = parser.i
            guard parser.i < parser.bytes.count, parser.bytes[parser.i] == 34, let name = parser.string() else {
                return nil
            }
            let raw = Array(parser.bytes[(nameStart + 1)..<(parser.i - 1)])
            parser.skipSpace()
            guard parser.i < parser.bytes.count, parser.bytes[parser.i] == 58 else { return nil }
            parser.i += 1
            parser.skipSpace()
            guard let member = parser.value(level: level + 1) else { return nil }
            v.members.append((name, raw, member))
            return member
        }
    }

    private mutating func array(level: Int) -> Value? {
        container(.array, close: 93, level: level) { parser, v in
            guard let element = parser.value(level: level + 1) else { return nil }
            v.elements.append(element)
            return element
        }
    }

    /// An object or array: `item` reads one member or element (after blanks) into the container
    /// and returns its value, or nil when the text is not JSON.
    private mutating func container(
        _ kind: Value.Kind, close: UInt8, level: Int,
        item: (inout StrictJSON, Value) -> Value?
    ) -> Value? {
        guard level < depthLimit else {
            gaveUp = true
            return nil
        }
        let v = Value(kind: kind, start: i)
        i += 1
        skipSpace()
        if i < bytes.count && bytes[i] == close {
            i += 1
            v.end = i
            v.depth = 1
            return v
        }
        while true {
            skipSpace()
            guard let child = item(&self, v) else { return nil }
            v.depth = max(v.depth, child.depth + 1)
            skipSpace()
            guard i < bytes.count else { return nil }
            if bytes[i] == 44 {
                i += 1
                continue
            }
            if bytes[i] == close {
                i += 1
                break
            }
            return nil
        }
        v.depth = max(v.depth, 1)
        v.end = i
        return v
    }

    private mutating func literal(_ word: String, _ kind: Value.Kind) -> Value? {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, Array(bytes[i..<(i + w.count)]) == w else { return nil }
        let v = Value(kind: kind, start: i)
        i += w.count
        v.end = i
        return v
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func number() -> Value? {
        let start = i
        func isDigit(_ k: Int) -> Bool { k < bytes.count && bytes[k] >= 48 && bytes[k] <= 57 }
        if i < bytes.count && bytes[i] == 45 { i += 1 }
        guard isDigit(i) else { return nil }
        if bytes[i] == 48 { i += 1 } else { while isDigit(i) { i += 1 } }
        if i < bytes.count && bytes[i] == 46 {
            i += 1
            guard isDigit(i) else { return nil }
            while isDigit(i) { i += 1 }
        }
        if i < bytes.count && (bytes[i] == 101 || bytes[i] == 69) {
            i += 1
            if i < bytes.count && (bytes[i] == 43 || bytes[i] == 45) { i += 1 }
            guard isDigit(i) else { return nil }
            while isDigit(i) { i += 1 }
        }
        let v = Value(kind: .number, start: start)
        v.end = i
        return v
    }

    /// A string literal at `i`; returns its decoded UTF-8 (surrogate pairs joined, a lone
    /// surrogate as U+FFFD) and moves past the closing quote.
    private mutating func string() -> [UInt8]? {
        i += 1
        var out: [UInt8] = []
        var pendingHigh: UInt32?
        func flushHigh(_ out: inout [UInt8]) {
            if pendingHigh != nil {
                appendScalar(0xFFFD, &out)
                pendingHigh = nil
            }
        }
        while i < bytes.count {
            let b = bytes[i]
            if b == 34 {
                flushHigh(&out)
                i += 1
                return out
            }
            if b < 32 { return nil }
            if b == 92 {
                guard i + 1 < bytes.count else { return nil }
                let e = bytes[i + 1]
                if e == 117 {
                    guard i + 5 < bytes.count, let unit = hex4(i + 2) else { return nil }
                    i += 6
                    if (0xD800...0xDBFF).contains(unit) {
                        flushHigh(&out)
                        pendingHigh = unit
                    } else if (0xDC00...0xDFFF).contains(unit) {
                        if let high = pendingHigh {
                            appendScalar(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00), &out)
                            pendingHigh = nil
                        } else {
                            appendScalar(0xFFFD, &out)
                        }
                    } else {
                        flushHigh(&out)
                        appendScalar(unit, &out)
                    }
                    continue
                }
                let simple: UInt8
                switch e {
                case 34: simple = 34
                case 92: simple = 92
                case 47: simple = 47
                case 98: simple = 8
                case 102: simple = 12
                case 110: simple = 10
                case 114: simple = 13
                case 116: simple = 9
                default: return nil
                }
                flushHigh(&out)
                out.append(simple)
                i += 2
                continue
            }
            flushHigh(&out)
            out.append(b)
            i += 1
        }
        return nil
    }

    private func hex4(_ at: Int) -> UInt32? {
        var v: UInt32 = 0
        for k in at..<(at + 4) {
            let c = bytes[k]
            switch c {
            case 48...57: v = v * 16 + UInt32(c - 48)
            case 65...70: v = v * 16 + UInt32(c - 55)
            case 97...102: v = v * 16 + UInt32(c - 87)
            default: return nil
            }
        }
        return v
    }

    private func appendScalar(_ scalar: UInt32, _ out: inout [UInt8]) {
        let s = Unicode.Scalar(scalar) ?? "\u{FFFD}"
        out.append(contentsOf: Array(String(Character(s)).utf8))
    }
}
