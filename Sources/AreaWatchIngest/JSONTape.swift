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
        var c = Cursor(input: input, maxDepth: maxDepth, prefix: prefix)
        // Expecting: a value (after '[' ',' ':' or at the start), or a key, or ',' / closer.
        var expect = Expect.value
        do {
            while expect != .done {
                c.skipSpace()
                switch expect {
                case .value: expect = try generalValue(&c)
                case .key:
                    try generalKey(&c)
                    expect = .value
                case .more: expect = try generalAfterValue(&c)
                case .done: break
                }
            }
        } catch {
            return error
        }
        return nil
    }

    /// What the general parser expects next: a value, a member name, `,` or a closer after a
    /// value, or nothing (the value is complete).
    private enum Expect { case value, key, more, done }

    /// The general parser's place in its input and the line feeds it has passed.
    private struct Cursor {
        let input: UnsafeBufferPointer<UInt8>
        let n: Int
        let maxDepth: Int
        let prefix: Bool
        var i = 0
        var lineFeeds = 0
        var lastLineFeed = -1

        init(input: UnsafeBufferPointer<UInt8>, maxDepth: Int, prefix: Bool) {
            self.input = input
            n = input.count
            self.maxDepth = maxDepth
            self.prefix = prefix
        }

        @inline(__always)
        mutating func skipSpace() {
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
    }

    /// With `prefix`, whether the root container just closed; if so, where the value ended.
    @inline(__always)
    private func rootClosed(_ c: Cursor) -> Bool {
        guard c.prefix && openStack.isEmpty else { return false }
        valueEnd = c.i
        newlines = c.lineFeeds
        lastNewline = c.lastLineFeed
        return true
    }

    /// A value at the cursor onto the tape; what is expected after it.
    private func generalValue(_ c: inout Cursor) throws(Failure) -> Expect {
        guard c.i < c.n else { throw Failure.truncated }
        let input = c.input, i = c.i, n = c.n
        let b = input[i]
        let index = nodes.count
        switch b {
        case ASCII.openBrace, ASCII.openBracket:
            return try generalOpen(&c)
        case ASCII.quote:
            guard let (end, escaped) = JSONTape.scanString(input, from: i + 1) else {
                throw i + 1 >= n ? Failure.truncated : stringFailure(input, from: i + 1)
            }
            nodes.append(
                Node(kind: .string, start: Int32(i + 1), end: Int32(end), next: Int32(index + 1), escaped: escaped))
            c.i = end + 1
        case 116, 102, 110:
            let (word, kind): (StaticString, Kind) =
                b == 116 ? ("true", .trueValue) : b == 102 ? ("false", .falseValue) : ("null", .null)
            let len = word.utf8CodeUnitCount
            guard i + len <= n else { throw Failure.truncated }
            for k in 0..<len where input[i + k] != word.utf8Start[k] { throw Failure.invalid }
            nodes.append(Node(kind: kind, start: Int32(i), end: Int32(i + len), next: Int32(index + 1), escaped: false))
            c.i = i + len
        default:
            var cut = false
            guard let end = scanNumber(input, from: i, cut: &cut) else {
                // `-`, `5.`, `5e`, `5e+` at the very end: the input was cut inside the number.
                throw cut ? Failure.truncated : Failure.invalid
            }
            nodes.append(Node(kind: .number, start: Int32(i), end: Int32(end), next: Int32(index + 1), escaped: false))
            c.i = end
        }
        return .more
    }

    /// An object or array opening at the cursor; what is expected inside it (or after it, when
    /// it is empty).
    private func generalOpen(_ c: inout Cursor) throws(Failure) -> Expect {
        guard openStack.count < c.maxDepth else { throw Failure.tooDeep }
        let b = c.input[c.i]
        let index = nodes.count
        nodes.append(
            Node(kind: b == ASCII.openBrace ? .object : .array, start: Int32(c.i), end: 0, next: 0, escaped: false))
        openStack.append(index)
        c.i += 1
        c.skipSpace()
        guard c.i < c.n else { throw Failure.truncated }
        if c.input[c.i] == (b == ASCII.openBrace ? ASCII.closeBrace : ASCII.closeBracket) {
            c.i += 1
            close(index, at: c.i)
            openStack.removeLast()
            return rootClosed(c) ? .done : .more
        }
        return b == ASCII.openBrace ? .key : .value
    }

    /// A member name and its `:` at the cursor onto the tape.
    private func generalKey(_ c: inout Cursor) throws(Failure) {
        let input = c.input, i = c.i, n = c.n
        guard i < n else { throw Failure.truncated }
        guard input[i] == ASCII.quote else { throw Failure.invalid }
        guard let (end, escaped) = JSONTape.scanString(input, from: i + 1) else {
            throw i + 1 >= n ? Failure.truncated : stringFailure(input, from: i + 1)
        }
        nodes.append(
            Node(
                kind: .string, start: Int32(i + 1), end: Int32(end), next: Int32(nodes.count + 1), escaped: escaped))
        c.i = end + 1
        c.skipSpace()
        guard c.i < n else { throw Failure.truncated }
        guard input[c.i] == ASCII.colon else { throw Failure.invalid }
        c.i += 1
    }

    /// After a value: closes containers or continues them; what is expected next.
    private func generalAfterValue(_ c: inout Cursor) throws(Failure) -> Expect {
        guard let open = openStack.last else {
            guard c.i == c.n else { throw Failure.invalid }
            return .done
        }
        guard c.i < c.n else { throw Failure.truncated }
        let b = c.input[c.i]
        c.i += 1
        let isObject = nodes[open].kind == .object
        if b == ASCII.comma { return isObject ? .key : .value }
        guard b == (isObject ? ASCII.closeBrace : ASCII.closeBracket) else { throw Failure.invalid }
        close(open, at: c.i)
        openStack.removeLast()
        return rootClosed(c) ? .done : .more
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
        var c = ValidCursor(input: input, p: p, n: n)
        c.skipSpace()
        guard c.i < n, p[c.i] == ASCII.openBrace || p[c.i] == ASCII.openBracket, maxDepth > 0 else { return false }
        var inObject = p[c.i] == ASCII.openBrace
        nodes.append(
            Node(
                kind: inObject ? .object : .array, start: Int32(truncatingIfNeeded: c.i), end: 0, next: 0,
                escaped: false))
        openStack.append(0)
        c.i += 1
        var first = true
        members: while true {
            switch validMember(&c, first: first, inObject: &inObject, maxDepth: maxDepth) {
            case .invalid: return false
            case .opened:
                first = true
                continue members
            case .value: first = false
            }
            switch validClosers(&c, inObject: &inObject) {
            case .invalid: return false
            case .next: continue members
            case .root: break members
            }
        }
        if prefix {
            valueEnd = c.i
            newlines = c.lineFeeds
            lastNewline = c.lastLineFeed
            return true
        }
        c.skipSpace()
        return c.i == n
    }

    /// The fast path's place in its input and the line feeds it has passed. Its steps are
    /// inlined into `parseValid`'s loop on a local copy, so the fields live in registers across
    /// the loop as plain locals would.
    private struct ValidCursor {
        let input: UnsafeBufferPointer<UInt8>
        let p: UnsafePointer<UInt8>
        let n: Int
        var i = 0
        var lineFeeds = 0
        var lastLineFeed = -1

        @inline(__always)
        mutating func skipSpace() {
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
        @inline(__always)
        func string(from: Int) -> (Int, Bool) {
            var k = from
            while k + 8 <= n {
                let x = JSONSWAR.load(p + k)
                let stops = JSONSWAR.equal(x, ASCII.quote) | JSONSWAR.equal(x, ASCII.backslash) | JSONSWAR.control(x)
                if stops != 0 {
                    k += JSONSWAR.first(stops)
                    return p[k] == ASCII.quote ? (k, false) : (JSONTape.scanString(input, from: from) ?? (-1, false))
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
            return JSONTape.scanString(input, from: from) ?? (-1, false)
        }

        /// The first byte at or after `from` that is not an ASCII digit.
        @inline(__always)
        func digits(from: Int) -> Int {
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
        @inline(__always)
        func number() -> Int {
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
    }

    /// What a member step of the fast path did: declined the input, opened a container (its
    /// members come next), or put a value on the tape (or found an empty container's closer).
    private enum MemberStep { case invalid, opened, value }

    /// What follows a value on the fast path: a declined input, `,` (another member), or the
    /// root's closer.
    private enum CloseStep { case invalid, next, root }

    @inline(__always)
    private func scalar(_ kind: Kind, _ start: Int, _ end: Int, escaped: Bool = false) {
        nodes.append(
            Node(
                kind: kind, start: Int32(truncatingIfNeeded: start), end: Int32(truncatingIfNeeded: end),
                next: Int32(truncatingIfNeeded: nodes.count + 1), escaped: escaped))
    }

    /// After `{`, `[` or `,`: a member or element, or (`first` only) the closer, left for
    /// `validClosers`.
    @inline(__always)
    private func validMember(_ c: inout ValidCursor, first: Bool, inObject: inout Bool, maxDepth: Int) -> MemberStep {
        let p = c.p, n = c.n
        c.skipSpace()
        guard c.i < n else { return .invalid }
        var b = p[c.i]
        if first && b == (inObject ? ASCII.closeBrace : ASCII.closeBracket) { return .value }
        if inObject {
            guard b == ASCII.quote else { return .invalid }
            let (end, escaped) = c.string(from: c.i + 1)
            guard end >= 0 else { return .invalid }
            scalar(.string, c.i + 1, end, escaped: escaped)
            c.i = end + 1
            c.skipSpace()
            guard c.i < n, p[c.i] == ASCII.colon else { return .invalid }
            c.i += 1
            c.skipSpace()
            guard c.i < n else { return .invalid }
            b = p[c.i]
        }
        return validValue(&c, b, inObject: &inObject, maxDepth: maxDepth)
    }

    /// The value starting with `b` at the cursor onto the tape.
    @inline(__always)
    private func validValue(_ c: inout ValidCursor, _ b: UInt8, inObject: inout Bool, maxDepth: Int) -> MemberStep {
        let p = c.p, n = c.n, i = c.i
        switch b {
        case ASCII.quote:
            let (end, escaped) = c.string(from: i + 1)
            guard end >= 0 else { return .invalid }
            scalar(.string, i + 1, end, escaped: escaped)
            c.i = end + 1
        case ASCII.openBrace, ASCII.openBracket:
            guard openStack.count < maxDepth else { return .invalid }
            openStack.append(nodes.count)
            inObject = b == ASCII.openBrace
            nodes.append(
                Node(
                    kind: inObject ? .object : .array, start: Int32(truncatingIfNeeded: i), end: 0, next: 0,
                    escaped: false))
            c.i = i + 1
            return .opened
        case 116: // true
            guard i + 4 <= n,
                UnsafeRawPointer(p + i).loadUnaligned(as: UInt32.self) == UInt32(littleEndian: 0x6575_7274)
            else { return .invalid }
            scalar(.trueValue, i, i + 4)
            c.i = i + 4
        case 102: // false
            guard i + 5 <= n,
                UnsafeRawPointer(p + i).loadUnaligned(as: UInt32.self) == UInt32(littleEndian: 0x736C_6166),
                p[i + 4] == 101
            else { return .invalid }
            scalar(.falseValue, i, i + 5)
            c.i = i + 5
        case 110: // null
            guard i + 4 <= n,
                UnsafeRawPointer(p + i).loadUnaligned(as: UInt32.self) == UInt32(littleEndian: 0x6C6C_756E)
            else { return .invalid }
            scalar(.null, i, i + 4)
            c.i = i + 4
        default:
            let end = c.number()
            guard end >= 0 else { return .invalid }
            scalar(.number, i, end)
            c.i = end
        }
        return .value
    }

    /// After a value (or an empty container's opener): `,`, or closers up to one that leaves an
    /// outer container open (its kind in `inObject`) or closes the root.
    @inline(__always)
    private func validClosers(_ c: inout ValidCursor, inObject: inout Bool) -> CloseStep {
        while true {
            c.skipSpace()
            guard c.i < c.n else { return .invalid }
            let b = c.p[c.i]
            c.i += 1
            if b == ASCII.comma { return .next }
            guard b == (inObject ? ASCII.closeBrace : ASCII.closeBracket), let open = openStack.last else {
                return .invalid
            }
            close(open, at: c.i)
            openStack.removeLast()
            guard let outer = openStack.last else { return .root }
            inObject = nodes[outer].kind == .object
        }
    }

    private func close(_ index: Int, at end: Int) {
        nodes[index].end = Int32(end)
        nodes[index].next = Int32(nodes.count)
    }

    /// End index of a string's content (the closing quote) and whether it has escapes; nil when
    /// it is unterminated or has a raw control character or a bad escape.
    private static func scanString(_ s: UnsafeBufferPointer<UInt8>, from: Int) -> (Int, Bool)? {
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
                    guard i + 5 < s.count, JSONEscapes.hexValue(s.span, at: i + 2) != nil else { return nil }
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
            JSONTape.decodeEscapes(raw.span, into: &scratch)
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
