/// A JSON document with ordered members, serialised deterministically: the same value always
/// gives the same bytes (member order as built, fixed number formats).
public indirect enum JSONValue: Sendable, Equatable {
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case int(Int)
    /// A number written with a fixed number of decimals.
    case fixed(Double, decimals: Int)
    /// A number written in its shortest round-trip form (integers without `.0`).
    case number(Double)
    case bool(Bool)
    case null

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        a.serialized() == b.serialized()
    }

    public static func optional(_ v: Int?) -> JSONValue { v.map { .int($0) } ?? .null }
    public static func optional(_ v: String?) -> JSONValue { v.map { .string($0) } ?? .null }

    /// Compact (no whitespace) or indented by two spaces per level.
    public func serialized(pretty: Bool = false) -> String {
        var out: [UInt8] = []
        append(to: &out, pretty: pretty, depth: 0)
        if pretty { out.append(ASCII.lf) }
        return String(decoding: out, as: UTF8.self)
    }

    public func append(to out: inout [UInt8], pretty: Bool = false, depth: Int = 0) {
        func newline(_ d: Int) {
            guard pretty else { return }
            out.append(ASCII.lf)
            out.append(contentsOf: repeatElement(32, count: 2 * d))
        }
        switch self {
        case .object(let members):
            out.append(ASCII.openBrace)
            for (k, (name, value)) in members.enumerated() {
                if k > 0 { out.append(ASCII.comma) }
                newline(depth + 1)
                out.append(ASCII.quote)
                JSONText.appendEscaped(name, to: &out)
                out.append(ASCII.quote)
                out.append(ASCII.colon)
                if pretty { out.append(ASCII.space) }
                value.append(to: &out, pretty: pretty, depth: depth + 1)
            }
            if !members.isEmpty { newline(depth) }
            out.append(ASCII.closeBrace)
        case .array(let items):
            out.append(ASCII.openBracket)
            let flat = items.allSatisfy { !$0.isContainer }
            for (k, item) in items.enumerated() {
                if k > 0 {
                    out.append(ASCII.comma)
                    if pretty && flat { out.append(ASCII.space) }
                }
                if !flat { newline(depth + 1) }
                item.append(to: &out, pretty: pretty, depth: depth + 1)
            }
            if !flat && !items.isEmpty { newline(depth) }
            out.append(ASCII.closeBracket)
        case .string(let s):
            out.append(ASCII.quote)
            JSONText.appendEscaped(s, to: &out)
            out.append(ASCII.quote)
        case .int(let v):
            NumberFormat.appendInteger(v, to: &out)
        case .fixed(let v, let decimals):
            if v.isFinite {
                NumberFormat.appendFixed(v, decimals: decimals, to: &out)
            } else {
                out.append(contentsOf: Array("null".utf8))
            }
        case .number(let v):
            out.append(contentsOf: Array((v.isFinite ? NumberFormat.compact(v) : "null").utf8))
        case .bool(let b):
            out.append(contentsOf: Array((b ? "true" : "false").utf8))
        case .null:
            out.append(contentsOf: Array("null".utf8))
        }
    }

    private var isContainer: Bool {
        switch self {
        case .object, .array: return true
        default: return false
        }
    }

    /// Member lookup for reading small documents back (tiles, TileJSON).
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members.first { $0.0 == key }?.1 }
        return nil
    }
}
