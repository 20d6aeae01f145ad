import AreaWatchCore

/// One JSON value (a record) parsed into a flat array of nodes, simdjson-style: no allocation per
/// value, strings decoded only when asked for. Containers know where their subtree ends, so a
/// caller walks an object's members with `firstChild` / `next`.
final class JSONTape {
    enum Kind: UInt8 { case object, array, string, number, trueValue, falseValue, null }

    struct Node: BitwiseCopyable {
        var kind: Kind
        /// Byte range of the token (string content without quotes).
        var start: Int32
        var end: Int32
        /// Index of the node after this one's subtree.
        var next: Int32
        var escaped: Bool
        /// Offset of the decoded text in the arena, once decoded (-1 before).
        var decodedAt: Int32 = -1
        var decodedCount: Int32 = 0
    }

    enum Failure: Error { case invalid, truncated, tooDeep }

    // Unchecked exclusivity: a tape belongs to one reader; the checks cost a call per node.
    @exclusivity(unchecked) private var nodes = GrowableBuffer<Node>(capacity: 64)
    @exclusivity(unchecked) private var bytes = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    @exclusivity(unchecked) private var openStack = GrowableBuffer<Int>(capacity: 16)
    /// Decoded strings of the current value. Decoding never lengthens a string, so an arena with
    /// room for the input never grows, and so never moves, while the value is read.
    @exclusivity(unchecked) private var arena = GrowableBuffer<UInt8>(capacity: 4096)
    @exclusivity(unchecked) private var scratch: [UInt8] = []

    /// `reference`: the general parser only, without `parseValid` (for the property tests).
    let reference: Bool

    init(reference: Bool = false) {
        self.reference = reference
    }

    /// With `prefix`, where the object or array that was parsed ends (bytes read).
    private(set) var valueEnd = 0
    /// With `prefix`, the line feeds inside the value and the index of the last one.
    private(set) var newlines = 0
    private(set) var lastNewline = -1

    /// Parses one complete value; surrounding whitespace allowed, anything else is a failure.
    /// With `prefix`, an object or array at the start is parsed up to its closing bracket and
    /// whatever follows is not read (`valueEnd` tells where it stopped): a record parsed where
    /// it lies in the read buffer.
    func parse(_ input: UnsafeBufferPointer<UInt8>, maxDepth: Int, prefix: Bool = false) -> Failure? {
        bytes = input
        nodes.removeAll()
        openStack.removeAll()
        arena.removeAll()
        arena.reserveCapacity(input.count)
        if !reference && parseValid(input, maxDepth: maxDepth, prefix: prefix) { return nil }
        nodes.removeAll()
        openStack.removeAll()
        var i = 0
        let n = input.count
        var lineFeeds = 0, lastLineFeed = -1
        @inline(__always) func skipSpace() {
            // One compare passes the usual next byte (a token); blanks are rare in exports.
            while i < n, input[i] <= ASCII.space,
                input[i] == ASCII.space || input[i] == ASCII.lf || input[i] == ASCII.cr || input[i] == ASCII.tab
            {
                if input[i] == ASCII.lf {
                    lineFeeds += 1
                    lastLineFeed = i
                }
                i += 1
            }
        }
        @inline(__always) func rootClosed() -> Bool {
            guard prefix && openStack.isEmpty else { return false }
            valueEnd = i
            newlines = lineFeeds
            lastNewline = lastLineFeed
            return true
        }
        // Expecting: a value (after '[' ',' ':' or at the start), or a key, or ',' / closer.
        var expectValue = true
        var expectKey = false
        while true {
            skipSpace()
            if expectValue {
                guard i < n else { return .truncated }
                let b = input[i]
                let index = nodes.count
                switch b {
                case ASCII.openBrace, ASCII.openBracket:
                    guard openStack.count < maxDepth else { return .tooDeep }
                    nodes.append(
                        Node(
                            kind: b == ASCII.openBrace ? .object : .array, start: Int32(i), end: 0, next: 0,
                            escaped: false))
                    openStack.append(index)
                    i += 1
                    skipSpace()
                    guard i < n else { return .truncated }
                    if input[i] == (b == ASCII.openBrace ? ASCII.closeBrace : ASCII.closeBracket) {
                        i += 1
                        close(index, at: i)
                        openStack.removeLast()
                        if rootClosed() { return nil }
                        expectValue = false
                    } else if b == ASCII.openBrace {
                        expectKey = true
                        expectValue = false
                    }
                    continue
                case ASCII.quote:
                    guard let (end, escaped) = scanString(input, from: i + 1) else {
                        return i + 1 >= n ? .truncated : stringFailure(input, from: i + 1)
                    }
                    nodes.append(
                        Node(
                            kind: .string, start: Int32(i + 1), end: Int32(end), next: Int32(index + 1),
                            escaped: escaped))
                    i = end + 1
                case 116, 102, 110:
                    let (word, kind): (StaticString, Kind) =
                        b == 116 ? ("true", .trueValue) : b == 102 ? ("false", .falseValue) : ("null", .null)
                    let len = word.utf8CodeUnitCount
                    guard i + len <= n else { return .truncated }
                    for k in 0..<len where input[i + k] != word.utf8Start[k] { return .invalid }
                    nodes.append(
                        Node(kind: kind, start: Int32(i), end: Int32(i + len), next: Int32(index + 1), escaped: false))
                    i += len
                default:
                    var cut = false
                    guard let end = scanNumber(input, from: i, cut: &cut) else {
                        // `-`, `5.`, `5e`, `5e+` at the very end: the input was cut inside the number.
                        return cut ? .truncated : .invalid
                    }
                    nodes.append(
                        Node(kind: .number, start: Int32(i), end: Int32(end), next: Int32(index + 1), escaped: false))
                    i = end
                }
                expectValue = false
                continue
            }
            if expectKey {
                guard i < n else { return .truncated }
                guard input[i] == ASCII.quote else { return .invalid }
                guard let (end, escaped) = scanString(input, from: i + 1) else {
                    return i + 1 >= n ? .truncated : stringFailure(input, from: i + 1)
                }
                nodes.append(
                    Node(
                        kind: .string, start: Int32(i + 1), end: Int32(end), next: Int32(nodes.count + 1),
                        escaped: escaped))
                i = end + 1
                skipSpace()
                guard i < n else { return .truncated }
                guard input[i] == ASCII.colon else { return .invalid }
                i += 1
                expectKey = false
                expectValue = true
                continue
            }
            // After a value: close containers or continue them.
            guard let open = openStack.last else {
                return i == n ? nil : .invalid
            }
            guard i < n else { return .truncated }
            let b = input[i]
            i += 1
            let isObject = nodes[open].kind == .object
            if b == ASCII.comma {
                if isObject { expectKey = true } else { expectValue = true }
            } else if b == (isObject ? ASCII.closeBrace : ASCII.closeBracket) {
                close(open, at: i)
                openStack.removeLast()
                if rootClosed() { return nil }
            } else {
                return .invalid
            }
        }
    }

    /// The fast path of `parse` for input it accepts: the same nodes, `valueEnd` and line counts
    /// from one pass that knows at each point which few bytes may come next (a member name after
    /// `{` or `,` in an object, `:` after it, a value, then `,` or the closer), with no state
    /// flags, digit runs and string bodies eight bytes a step (a string with an escape or a raw
    /// control byte goes to `scanString`, as on the general path), `true`/`false`/`null` one
    /// compare. Anything else (an error of any kind, a scalar at the top, nesting at the depth
    /// limit, an exponent) returns false and `parse` starts again on the general path, which
    /// alone decides failures: so the tape and every failure are the general parser's.
    private func parseValid(_ input: UnsafeBufferPointer<UInt8>, maxDepth: Int, prefix: Bool) -> Bool {
        let n = input.count
        // Offsets are stored as Int32: larger inputs go the general way (which traps as before).
        guard n > 0, n < Int(Int32.max), let p = input.baseAddress else { return false }
        var i = 0
        var lineFeeds = 0, lastLineFeed = -1
        @inline(__always) func skipSpace() {
            while i < n, p[i] <= ASCII.space {
                let b = p[i]
                if b == ASCII.lf {
                    lineFeeds += 1
                    lastLineFeed = i
                } else if b != ASCII.space && b != ASCII.cr && b != ASCII.tab {
                    return
                }
                i += 1
            }
        }
        /// End of the string whose body starts at `from` (its closing quote), and whether it
        /// has escapes; -1 when it is not a valid string.
        @inline(__always) func string(from: Int) -> (Int, Bool) {
            var k = from
            while k + 8 <= n {
                let x = JSONSWAR.load(p + k)
                let stops = JSONSWAR.equal(x, ASCII.quote) | JSONSWAR.equal(x, ASCII.backslash) | JSONSWAR.control(x)
                if stops != 0 {
                    k += JSONSWAR.first(stops)
                    return p[k] == ASCII.quote ? (k, false) : (scanString(input, from: from) ?? (-1, false))
                }
                k += 8
            }
            // The last few bytes (an NDJSON line's last string ends here): one at a time, not
            // the whole string again.
            while k < n {
                let b = p[k]
                if b == ASCII.quote { return (k, false) }
                if b == ASCII.backslash || b < 0x20 { break }
                k += 1
            }
            return scanString(input, from: from) ?? (-1, false)
        }
        /// The first byte at or after `from` that is not an ASCII digit.
        @inline(__always) func digits(from: Int) -> Int {
            var k = from
            while k + 8 <= n {
                let other = JSONSWAR.nonDigits(JSONSWAR.load(p + k))
                if other != 0 { return k + JSONSWAR.first(other) }
                k += 8
            }
            while k < n, p[k] &- 48 < 10 { k += 1 }
            return k
        }
        /// End of the number at `i` (RFC 8259 grammar, followed by a delimiter or the end), or -1.
        @inline(__always) func number() -> Int {
            var k = i
            if p[k] == 45 {
                k += 1
                guard k < n else { return -1 }
            }
            let lead = p[k]
            if lead == 48 {
                k += 1
            } else if lead &- 49 < 9 {
                k = digits(from: k + 1)
            } else {
                return -1
            }
            if k < n && p[k] == 46 {
                let fraction = digits(from: k + 1)
                guard fraction > k + 1 else { return -1 }
                k = fraction
            }
            guard k < n else { return k }
            switch p[k] {
            case ASCII.comma, ASCII.closeBrace, ASCII.closeBracket, ASCII.space, ASCII.lf, ASCII.cr, ASCII.tab: return k
            default: return -1 // an exponent, or not a number
            }
        }
        @inline(__always) func scalar(_ kind: Kind, _ start: Int, _ end: Int, escaped: Bool = false) {
            nodes.append(
                Node(
                    kind: kind, start: Int32(truncatingIfNeeded: start), end: Int32(truncatingIfNeeded: end),
                    next: Int32(truncatingIfNeeded: nodes.count + 1), escaped: escaped))
        }

        skipSpace()
        guard i < n, p[i] == ASCII.openBrace || p[i] == ASCII.openBracket, maxDepth > 0 else { return false }
        var inObject = p[i] == ASCII.openBrace
        nodes.append(
            Node(
                kind: inObject ? .object : .array, start: Int32(truncatingIfNeeded: i), end: 0, next: 0, escaped: false)
        )
        openStack.append(0)
        i += 1
        var first = true
        members: while true {
            // After `{`, `[` or `,`: a member or element, or (first only) the closer.
            skipSpace()
            guard i < n else { return false }
            var b = p[i]
            if !(first && b == (inObject ? ASCII.closeBrace : ASCII.closeBracket)) {
                if inObject {
                    guard b == ASCII.quote else { return false }
                    let (end, escaped) = string(from: i + 1)
                    guard end >= 0 else { return false }
                    scalar(.string, i + 1, end, escaped: escaped)
                    i = end + 1
                    skipSpace()
                    guard i < n, p[i] == ASCII.colon else { return false }
                    i += 1
                    skipSpace()
                    guard i < n else { return false }
                    b = p[i]
                }
                switch b {
                case ASCII.quote:
                    let (end, escaped) = string(from: i + 1)
                    guard end >= 0 else { return false }
                    scalar(.string, i + 1, end, escaped: escaped)
                    i = end + 1
                case ASCII.openBrace, ASCII.openBracket:
                    guard openStack.count < maxDepth else { return false }
                    openStack.append(nodes.count)
                    inObject = b == ASCII.openBrace
                    nodes.append(
                        Node(
                            kind: inObject ? .object : .array, start: Int32(truncatingIfNeeded: i), end: 0, next: 0,
                            escaped: false))
                    i += 1
                    first = true
                    continue members
                case 116: // true
                    guard i + 4 <= n,
                        UnsafeRawPointer(p + i).loadUnaligned(as: UInt32.self) == UInt32(littleEndian: 0x6575_7274)
                    else { return false }
                    scalar(.trueValue, i, i + 4)
                    i += 4
                case 102: // false
                    guard i + 5 <= n,
                        UnsafeRawPointer(p + i).loadUnaligned(as: UInt32.self) == UInt32(littleEndian: 0x736C_6166),
                        p[i + 4] == 101
                    else { return false }
                    scalar(.falseValue, i, i + 5)
                    i += 5
                case 110: // null
                    guard i + 4 <= n,
                        UnsafeRawPointer(p + i).loadUnaligned(as: UInt32.self) == UInt32(littleEndian: 0x6C6C_756E)
                    else { return false }
                    scalar(.null, i, i + 4)
                    i += 4
                default:
                    let end = number()
                    guard end >= 0 else { return false }
                    scalar(.number, i, end)
                    i = end
                }
            }
            first = false
            // After a value (or an empty container's opener): `,` or closers.
            while true {
                skipSpace()
                guard i < n else { return false }
                let c = p[i]
                i += 1
                if c == ASCII.comma { continue members }
                guard c == (inObject ? ASCII.closeBrace : ASCII.closeBracket), let open = openStack.last else {
                    return false
                }
                close(open, at: i)
                openStack.removeLast()
                guard let outer = openStack.last else { break members }
                inObject = nodes[outer].kind == .object
            }
        }
        if prefix {
            valueEnd = i
            newlines = lineFeeds
            lastNewline = lastLineFeed
            return true
        }
        skipSpace()
        return i == n
    }

    private func close(_ index: Int, at end: Int) {
        nodes[index].end = Int32(end)
        nodes[index].next = Int32(nodes.count)
    }

    /// End index of a string's content (the closing quote) and whether it has escapes; nil when
    /// it is unterminated or has a raw control character or a bad escape.
    private func scanString(_ s: UnsafeBufferPointer<UInt8>, from: Int) -> (Int, Bool)? {
        var i = from
        var escaped = false
        let p = s.baseAddress!
        while i < s.count {
            // Eight bytes a step to the next quote, backslash or control byte.
            while i + 8 <= s.count {
                let x = JSONSWAR.load(p + i)
                let stops = JSONSWAR.equal(x, ASCII.quote) | JSONSWAR.equal(x, ASCII.backslash) | JSONSWAR.control(x)
                if stops != 0 {
                    i += JSONSWAR.first(stops)
                    break
                }
                i += 8
            }
            guard i < s.count else { break }
            let b = s[i]
            if b == ASCII.quote { return (i, escaped) }
            if b < 32 { return nil }
            if b == ASCII.backslash {
                escaped = true
                guard i + 1 < s.count else { return nil }
                let e = s[i + 1]
                if e == UInt8(ascii: "u") {
                    guard i + 5 < s.count, JSONEscapes.hexValue(s[(i + 2)...(i + 5)]) != nil else { return nil }
                    i += 6
                    continue
                }
                guard JSONEscapes.simple(e) != nil else { return nil }
                i += 2
                continue
            }
            i += 1
        }
        return nil
    }

    private func stringFailure(_ s: UnsafeBufferPointer<UInt8>, from: Int) -> Failure {
        // Unterminated at the end of the input is truncation; anything else is invalid.
        var i = from
        while i < s.count {
            if s[i] == ASCII.quote { return .invalid }
            if s[i] == ASCII.backslash {
                i += 2
                continue
            }
            i += 1
        }
        return .truncated
    }

    /// RFC 8259 number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`. On failure,
    /// `cut` tells whether the number was only missing characters after the end of the input.
    private func scanNumber(_ s: UnsafeBufferPointer<UInt8>, from: Int, cut: inout Bool) -> Int? {
        var i = from
        let n = s.count
        @inline(__always) func digits() -> Int {
            let start = i
            while i < n, s[i] &- 48 < 10 { i += 1 }
            return i - start
        }
        @inline(__always) func fail() -> Int? {
            cut = i == n
            return nil
        }
        if i < n && s[i] == 45 { i += 1 }
        guard i < n else { return fail() }
        if s[i] == 48 { i += 1 } else { guard digits() > 0 else { return fail() } }
        if i < n && s[i] == 46 {
            i += 1
            guard digits() > 0 else { return fail() }
        }
        if i < n && (s[i] | 0x20) == 101 {
            i += 1
            if i < n && (s[i] == 43 || s[i] == 45) { i += 1 }
            guard digits() > 0 else { return fail() }
        }
        if i < n {
            switch s[i] {
            case ASCII.space, ASCII.tab, ASCII.lf, ASCII.cr, ASCII.comma, ASCII.closeBracket, ASCII.closeBrace: break
            default: return nil
            }
        }
        return i
    }

    // MARK: Reading

    func node(_ index: Int) -> Node { nodes[index] }

    /// Nodes on the tape (after a successful `parse`).
    var nodeCount: Int { nodes.count }

    /// Raw bytes of a node's token (for containers, their compact-enough source text).
    func rawBytes(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        let node = nodes[index]
        return UnsafeBufferPointer(rebasing: bytes[Int(node.start)..<Int(node.end)])
    }

    /// A string node's decoded UTF-8; valid until the next `parse`.
    @inline(__always)
    func string(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        let node = nodes[index]
        // A node's range lies in `bytes`, so `bytes` has a base address.
        guard node.escaped else {
            return UnsafeBufferPointer(
                start: bytes.baseAddress.unsafelyUnwrapped + Int(node.start), count: Int(node.end &- node.start))
        }
        return decoded(index)
    }

    private func decoded(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        let node = nodes[index]
        let raw = UnsafeBufferPointer(rebasing: bytes[Int(node.start)..<Int(node.end)])
        if node.decodedAt < 0 {
            scratch.removeAll(keepingCapacity: true)
            JSONTape.decodeEscapes(raw, into: &scratch)
            // Escapes shrink text, except lone surrogates (6 bytes → 3): still within the input.
            let count = min(scratch.count, arena.capacity - arena.count)
            nodes[index].decodedAt = Int32(arena.count)
            nodes[index].decodedCount = Int32(count)
            scratch.withUnsafeBufferPointer {
                arena.append(contentsOf: UnsafeBufferPointer(rebasing: $0.prefix(count)))
            }
        }
        let decoded = nodes[index]
        return UnsafeBufferPointer(
            start: arena.unsafeBaseAddress + Int(decoded.decodedAt),
            count: Int(decoded.decodedCount))
    }

    /// Members of an object node as (key node, value node) index pairs.
    func members(of object: Int) -> [(key: Int, value: Int)] {
        var result: [(Int, Int)] = []
        var k = object + 1
        let end = Int(nodes[object].next)
        while k < end {
            let v = k + 1
            result.append((k, v))
            k = Int(nodes[v].next)
        }
        return result
    }

    /// Elements of an array node.
    func elements(of array: Int) -> [Int] {
        var result: [Int] = []
        var k = array + 1
        let end = Int(nodes[array].next)
        while k < end {
            result.append(k)
            k = Int(nodes[k].next)
        }
        return result
    }
}
