import Foundation

// Readers of the outputs written for these tests alone, independent of the engine's own
// writers and parsers: a strict RFC 4180 reader that reports every quoting violation, and a
// JSON reader that keeps member order and the text of every number.

/// RFC 4180, strictly: `,` between fields, `"` quoting with `""` inside, CRLF or LF between
/// records. A quote inside an unquoted field, text after a closing quote and a file ending
/// inside quotes are violations.
enum StrictCSV {
    struct Row {
        /// 1-based line where the record starts.
        var line: Int
        var fields: [String]
    }

    struct Parsed {
        var rows: [Row]
        var violations: [String]
        /// The record separators seen: "\n" and/or "\r\n".
        var lineEnds: Set<String>

        var header: [String] { rows.first?.fields ?? [] }
        var records: ArraySlice<Row> { rows.dropFirst() }

        /// The records as dictionaries by header name.
        var dictionaries: [[String: String]] {
            let h = header
            return records.map { row in
                var d: [String: String] = [:]
                for (i, name) in h.enumerated() where i < row.fields.count { d[name] = row.fields[i] }
                return d
            }
        }
    }

    static func parse(_ text: String) -> Parsed { parse(Array(text.utf8)) }

    static func parse(_ bytes: [UInt8]) -> Parsed {
        var rows: [Row] = []
        var violations: [String] = []
        var lineEnds: Set<String> = []
        var i = 0
        var line = 1
        let n = bytes.count
        // Skip a UTF-8 BOM.
        if n >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { i = 3 }
        while i < n {
            // A blank line is not a record.
            if bytes[i] == 10 {
                line += 1
                i += 1
                lineEnds.insert("\n")
                continue
            }
            if bytes[i] == 13 && i + 1 < n && bytes[i + 1] == 10 {
                line += 1
                i += 2
                lineEnds.insert("\r\n")
                continue
            }
            let startLine = line
            var fields: [String] = []
            var recordDone = false
            while !recordDone {
                var field: [UInt8] = []
                if i < n && bytes[i] == 34 {
                    i += 1
                    var closed = false
                    while i < n {
                        let b = bytes[i]
                        if b == 34 {
                            if i + 1 < n && bytes[i + 1] == 34 {
                                field.append(34)
                                i += 2
                                continue
                            }
                            i += 1
                            closed = true
                            break
                        }
                        if b == 10 { line += 1 }
                        field.append(b)
                        i += 1
                    }
                    if !closed { violations.append("line \(startLine): the file ends inside a quoted field") }
                    if i < n && bytes[i] != 44 && bytes[i] != 10 && !(bytes[i] == 13 && i + 1 < n && bytes[i + 1] == 10)
                    {
                        violations.append("line \(line): text after a closing quote")
                        while i < n && bytes[i] != 44 && bytes[i] != 10 { i += 1 }
                    }
                } else {
                    while i < n && bytes[i] != 44 && bytes[i] != 10
                        && !(bytes[i] == 13 && i + 1 < n && bytes[i + 1] == 10)
                    {
                        if bytes[i] == 34 { violations.append("line \(line): a quote inside an unquoted field") }
                        if bytes[i] == 13 { violations.append("line \(line): a bare CR in an unquoted field") }
                        field.append(bytes[i])
                        i += 1
                    }
                }
                fields.append(String(decoding: field, as: UTF8.self))
                if i >= n {
                    recordDone = true
                } else if bytes[i] == 44 {
                    i += 1
                } else if bytes[i] == 10 {
                    line += 1
                    i += 1
                    lineEnds.insert("\n")
                    recordDone = true
                } else {
                    line += 1
                    i += 2
                    lineEnds.insert("\r\n")
                    recordDone = true
                }
            }
            rows.append(Row(line: startLine, fields: fields))
        }
        return Parsed(rows: rows, violations: violations, lineEnds: lineEnds)
    }

    /// Whether a field must be quoted under RFC 4180.
    static func needsQuotes(_ field: String) -> Bool {
        field.utf8.contains { $0 == 44 || $0 == 34 || $0 == 10 || $0 == 13 }
    }
}

/// A parsed JSON value that keeps member order and number text.
indirect enum JSON: Equatable, CustomStringConvertible {
    case object([(String, JSON)])
    case array([JSON])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.array(let x), .array(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.null, .null): return true
        default: return false
        }
    }

    subscript(key: String) -> JSON? {
        if case .object(let members) = self { return members.first { $0.0 == key }?.1 }
        return nil
    }

    subscript(index: Int) -> JSON? {
        if case .array(let items) = self, items.indices.contains(index) { return items[index] }
        return nil
    }

    var keys: [String] {
        if case .object(let members) = self { return members.map(\.0) }
        return []
    }

    var members: [(String, JSON)] {
        if case .object(let members) = self { return members }
        return []
    }

    var array: [JSON]? {
        if case .array(let items) = self { return items }
        return nil
    }

    var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    var numberText: String? {
        if case .number(let t) = self { return t }
        return nil
    }

    var double: Double? { numberText.flatMap(Double.init) }

    var int: Int? {
        guard let t = numberText else { return nil }
        return Int(t)
    }

    var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    var isNull: Bool { self == .null }

    var description: String {
        switch self {
        case .object(let m): return "{" + m.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
        case .array(let a): return "[" + a.map(\.description).joined(separator: ",") + "]"
        case .string(let s): return "\"\(s)\""
        case .number(let t): return t
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        }
    }

    struct ParseError: Error, CustomStringConvertible {
        var offset: Int
        var message: String
        var description: String { "JSON: \(message) at byte \(offset)" }
    }

    static func parse(_ text: String) throws -> JSON { try parse(Array(text.utf8)) }

    /// Parses a whole document (RFC 8259; trailing whitespace only).
    static func parse(_ bytes: [UInt8]) throws -> JSON {
        try bytes.withUnsafeBufferPointer { buffer in
            var p = Parser(bytes: buffer)
            let value = try p.value(depth: 0)
            p.skipSpace()
            guard p.i == buffer.count else { throw ParseError(offset: p.i, message: "trailing content") }
            return value
        }
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var i = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 32 || bytes[i] == 10 || bytes[i] == 13 || bytes[i] == 9 { i += 1 }
        }

        func fail(_ message: String) -> ParseError { ParseError(offset: i, message: message) }

        mutating func value(depth: Int) throws -> JSON {
            guard depth < 200 else { throw fail("nested too deeply") }
            skipSpace()
            guard i < bytes.count else { throw fail("unexpected end") }
            switch bytes[i] {
            case UInt8(ascii: "{"):
                i += 1
                var members: [(String, JSON)] = []
                skipSpace()
                if i < bytes.count && bytes[i] == UInt8(ascii: "}") {
                    i += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    guard i < bytes.count, bytes[i] == 34 else { throw fail("expected a member name") }
                    let name = try string()
                    skipSpace()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                    i += 1
                    members.append((name, try value(depth: depth + 1)))
                    skipSpace()
                    guard i < bytes.count else { throw fail("unexpected end in an object") }
                    if bytes[i] == UInt8(ascii: ",") {
                        i += 1
                        continue
                    }
                    if bytes[i] == UInt8(ascii: "}") {
                        i += 1
                        return .object(members)
                    }
                    throw fail("expected ',' or '}'")
                }
            case UInt8(ascii: "["):
                i += 1
                var items: [JSON] = []
                skipSpace()
                if i < bytes.count && bytes[i] == UInt8(ascii: "]") {
                    i += 1
                    return .array(items)
                }
                while true {
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard i < bytes.count else { throw fail("unexpected end in an array") }
                    if bytes[i] == UInt8(ascii: ",") {
                        i += 1
                        continue
                    }
                    if bytes[i] == UInt8(ascii: "]") {
                        i += 1
                        return .array(items)
                    }
                    throw fail("expected ',' or ']'")
                }
            case 34:
                return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            default:
                return .number(try number())
            }
        }

        mutating func literal(_ word: String) throws {
            for b in word.utf8 {
                guard i < bytes.count, bytes[i] == b else { throw fail("bad literal") }
                i += 1
            }
        }

        mutating func number() throws -> String {
            let start = i
            func digits() -> Int {
                let s = i
                while i < bytes.count, bytes[i] >= 48 && bytes[i] <= 57 { i += 1 }
                return i - s
            }
            if i < bytes.count && bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count else { throw fail("bad number") }
            if bytes[i] == 48 { i += 1 } else if digits() == 0 { throw fail("bad number") }
            if i < bytes.count && bytes[i] == UInt8(ascii: ".") {
                i += 1
                guard digits() > 0 else { throw fail("bad fraction") }
            }
            if i < bytes.count && (bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")) {
                i += 1
                if i < bytes.count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) { i += 1 }
                guard digits() > 0 else { throw fail("bad exponent") }
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        }

        mutating func string() throws -> String {
            i += 1 // opening quote
            var out: [UInt8] = []
            let start = i
            // Fast path: no escapes.
            while i < bytes.count, bytes[i] != 34, bytes[i] != 92 {
                guard bytes[i] >= 0x20 else { throw fail("control character in a string") }
                i += 1
            }
            if i < bytes.count && bytes[i] == 34 {
                let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
                i += 1
                return s
            }
            out.append(contentsOf: bytes[start..<i])
            while i < bytes.count {
                let b = bytes[i]
                if b == 34 {
                    i += 1
                    return String(decoding: out, as: UTF8.self)
                }
                guard b >= 0x20 else { throw fail("control character in a string") }
                if b == 92 {
                    i += 1
                    guard i < bytes.count else { break }
                    switch bytes[i] {
                    case UInt8(ascii: "\""): out.append(34)
                    case UInt8(ascii: "\\"): out.append(92)
                    case UInt8(ascii: "/"): out.append(47)
                    case UInt8(ascii: "b"): out.append(8)
                    case UInt8(ascii: "f"): out.append(12)
                    case UInt8(ascii: "n"): out.append(10)
                    case UInt8(ascii: "r"): out.append(13)
                    case UInt8(ascii: "t"): out.append(9)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800..<0xDC00).contains(scalar), i + 2 < bytes.count, bytes[i + 1] == 92,
                            bytes[i + 2] == UInt8(ascii: "u")
                        {
                            i += 2
                            let low = try hex4()
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        out.append(
                            contentsOf: Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8))
                    default: throw fail("bad escape")
                    }
                    i += 1
                    continue
                }
                out.append(b)
                i += 1
            }
            throw fail("unterminated string")
        }

        mutating func hex4() throws -> UInt32 {
            var v: UInt32 = 0
            for _ in 0..<4 {
                i += 1
                guard i < bytes.count, let d = hexDigit(bytes[i]) else { throw fail("bad \\u escape") }
                v = v << 4 | d
            }
            return v
        }

        func hexDigit(_ b: UInt8) -> UInt32? {
            switch b {
            case 48...57: return UInt32(b - 48)
            case 97...102: return UInt32(b - 87)
            case 65...70: return UInt32(b - 55)
            default: return nil
            }
        }
    }
}

/// Every number literal with a fraction (`-`? digits `.` digits) of a text, in order, as values
/// (for the privacy scan). Digits glued to a letter (`y2016`, `gcw3rgz`) are not numbers.
func decimalNumbers(_ bytes: [UInt8]) -> [Double] {
    var values: [Double] = []
    bytes.withUnsafeBufferPointer { u in
        let n = u.count
        var i = 0
        var scratch = [CChar](repeating: 0, count: 64)
        func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
        func isWord(_ b: UInt8) -> Bool { (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 95 || isDigit(b) }
        while i < n {
            let b = u[i]
            guard isDigit(b) || (b == 45 && i + 1 < n && isDigit(u[i + 1])) else {
                i += 1
                continue
            }
            if i > 0 && isWord(u[i - 1]) {
                i += 1
                while i < n && (isDigit(u[i]) || u[i] == 46) { i += 1 }
                continue
            }
            let start = i
            if b == 45 { i += 1 }
            while i < n && isDigit(u[i]) { i += 1 }
            guard i + 1 < n, u[i] == 46, isDigit(u[i + 1]) else { continue }
            i += 1
            while i < n && isDigit(u[i]) { i += 1 }
            let length = min(i - start, 63)
            for k in 0..<length { scratch[k] = CChar(bitPattern: u[start + k]) }
            scratch[length] = 0
            values.append(strtod(scratch, nil))
        }
    }
    return values
}
