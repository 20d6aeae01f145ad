import AreaWatchCore

/// A streaming walk over the structure of a JSON document, for the levels above the records:
/// the top-level object or array, the `posts` map, the `features` array.
///
/// It never builds values. A record is parsed onto a `JSONTape` where it lies in the read buffer
/// (`parseObjectInPlace`); one that is cut by the buffer's end, too large or invalid is copied
/// out whole (`captureValue`) and parsed from the copy. Values nobody reads (`users`,
/// `timeline`, …) are skipped with a depth counter, eight bytes a step, so neither size nor
/// nesting depth of what is skipped costs memory or stack.
/// Structural errors (unbalanced brackets, a missing comma, the end of the file inside a
/// value) are input errors naming line and column.
final class JSONStream {
    let buffer: ChunkBuffer
    let reference: Bool
    // Unchecked exclusivity: a stream belongs to one reader; the checks cost a call per byte.
    @exclusivity(unchecked) private var i: Int
    @exclusivity(unchecked) private var line = 1
    /// Content offset of the first byte of the current line (for columns).
    @exclusivity(unchecked) private var lineStart: Int64 = 0

    /// `line` and `lineStart`: the line number of the buffer's first byte and the content offset
    /// where that line starts (whitespace before it may have been released).
    /// `reference`: none of the fast paths (in-place records, the eight-byte skip, names from the
    /// buffer): the plain byte-by-byte reader the property tests compare the fast one with.
    init(buffer: ChunkBuffer, line: Int = 1, lineStart: Int64 = 0, reference: Bool = false) {
        self.buffer = buffer
        self.reference = reference
        i = buffer.start
        self.line = line
        self.lineStart = lineStart
    }

    var path: String { buffer.source.path }

    /// `line L, column C` of the next unread byte.
    var position: String {
        let offset = buffer.baseOffset + Int64(i)
        return "line \(line), column \(offset - lineStart + 1)"
    }

    var currentLine: Int { line }

    /// Content offset of the next unread byte.
    var offset: Int64 { buffer.baseOffset + Int64(i) }

    func error(_ message: String) -> InputError {
        InputError(file: path, position: position, message: message)
    }

    /// Makes byte `i` available; false at the end of the input.
    @inline(__always)
    private func ensure() throws(InputError) -> Bool {
        if i < buffer.end { return true }
        return try refill()
    }

    private func refill() throws(InputError) -> Bool {
        buffer.release(upTo: i)
        let (more, shift) = try buffer.refill()
        i -= shift
        return more && i < buffer.end
    }

    /// The next byte that is not JSON whitespace, without consuming it; nil at the end.
    func peek() throws(InputError) -> UInt8? {
        while try ensure() {
            let b = buffer[i]
            switch b {
            case ASCII.space, ASCII.tab, ASCII.cr: i += 1
            case ASCII.lf:
                i += 1
                line += 1
                lineStart = buffer.baseOffset + Int64(i)
            default: return b
            }
        }
        return nil
    }

    /// Consumes the next significant byte, which must be `expected`.
    func expect(_ expected: UInt8, _ what: String) throws(InputError) {
        guard let b = try peek() else { throw error("the file ends where \(what) was expected (truncated JSON)") }
        guard b == expected else { throw error("expected \(what), found '\(printable(b))'") }
        i += 1
    }

    /// After a member or element: true when a `,` follows, false when `closing` does.
    func nextInContainer(closing: UInt8) throws(InputError) -> Bool {
        guard let b = try peek() else {
            throw error(
                "the file ends inside a JSON \(closing == ASCII.closeBrace ? "object" : "array") (truncated JSON)")
        }
        i += 1
        if b == ASCII.comma { return true }
        if b == closing { return false }
        i -= 1
        throw error("expected ',' or '\(printable(closing))', found '\(printable(b))'")
    }

    /// True (and consumed) when the container that was just opened is empty.
    func closesImmediately(_ closing: UInt8) throws(InputError) -> Bool {
        guard let b = try peek() else { throw error("the file ends inside a JSON value (truncated JSON)") }
        if b == closing {
            i += 1
            return true
        }
        return false
    }

    /// Reads a member name (a JSON string), decoding escapes exactly as record strings are
    /// decoded (`JSONTape.decodeEscapes`: an escaped surrogate pair is one character). A name
    /// longer than `maxBytes` is consumed all the same, but only its first `maxBytes` are kept
    /// and `whole` is false: memory does not grow with a hostile name.
    func readString(maxBytes: Int = 1 << 20) throws(InputError) -> (text: String, whole: Bool) {
        // The usual name: no escape, no newline, whole in the buffer, short: one String made
        // straight from the buffer (the general path below builds it through two arrays).
        if !reference, try peek() == ASCII.quote {
            let p = buffer.storage, end = buffer.end
            var k = i + 1
            while k < end, p[k] != ASCII.quote, p[k] != ASCII.backslash, p[k] != ASCII.lf { k += 1 }
            if k < end, p[k] == ASCII.quote, k - (i + 1) <= maxBytes {
                let text = String(decoding: UnsafeBufferPointer(start: p + i + 1, count: k - (i + 1)), as: UTF8.self)
                i = k + 1
                return (text, true)
            }
        }
        try expect(ASCII.quote, "a string")
        var raw: [UInt8] = []
        var whole = true
        // Keeps whole units (a byte, or an escape) while they fit; after the first that does not,
        // nothing more: what is kept is a true prefix of the name.
        func keep(_ unit: [UInt8]) {
            if whole && raw.count + unit.count <= maxBytes { raw += unit } else { whole = false }
        }
        while true {
            guard try ensure() else { throw error("the file ends inside a string (truncated JSON)") }
            let b = buffer[i]
            i += 1
            if b == ASCII.quote { break }
            if b == ASCII.lf { throw error("newline inside a string") }
            guard b == ASCII.backslash else {
                if whole && raw.count < maxBytes { raw.append(b) } else { whole = false }
                continue
            }
            guard try ensure() else { throw error("the file ends inside a string (truncated JSON)") }
            let e = buffer[i]
            i += 1
            if e == UInt8(ascii: "u") {
                var hex: [UInt8] = []
                for _ in 0..<4 {
                    guard try ensure() else { throw error("the file ends inside a string (truncated JSON)") }
                    hex.append(buffer[i])
                    i += 1
                }
                guard JSONEscapes.hexValue(hex.span, at: 0) != nil else { throw error("invalid \\u escape") }
                keep([b, e] + hex)
            } else {
                guard JSONEscapes.simple(e) != nil else { throw error("invalid escape '\\\(printable(e))'") }
                keep([b, e])
            }
        }
        var decoded: [UInt8] = []
        JSONTape.decodeEscapes(raw.span, into: &decoded)
        return (String(decoding: decoded, as: UTF8.self), whole)
    }

    /// Copies the next value whole into `into` when it has at most `maxBytes` bytes; otherwise
    /// skips it and returns false. Either way the value is consumed.
    func captureValue(into out: ByteBuffer, maxBytes: Int) throws(InputError) -> Bool {
        out.removeAll()
        guard try peek() != nil else { throw error("the file ends where a value was expected (truncated JSON)") }
        var keeping = maxBytes >= 0
        var from = i
        func flush() {
            if keeping { out.append(buffer.slice(from, i).span) }
        }
        var depth = 0
        var inString = false
        var escaped = false
        let startLine = line
        while true {
            if i >= buffer.end {
                flush()
                if keeping && out.count > maxBytes {
                    keeping = false
                    out.removeAll()
                }
                guard try refill() else {
                    if depth == 0 && !inString { return finishCapture(out, keeping: keeping, maxBytes: maxBytes) }
                    throw InputError(
                        file: path, position: position,
                        message: "the file ends inside a JSON value that starts at line \(startLine) (truncated JSON)")
                }
                from = i
                continue
            }
            let b = buffer[i]
            if inString {
                if JSONStringBody.pass(b, inString: &inString, escaped: &escaped) {
                    // Invalid JSON, but only this value's problem: the record parser rejects it.
                    line += 1
                    lineStart = buffer.baseOffset + Int64(i) + 1
                } else if !inString && depth == 0 {
                    i += 1
                    flush()
                    return finishCapture(out, keeping: keeping, maxBytes: maxBytes)
                }
                i += 1
                continue
            }
            switch b {
            case ASCII.quote: inString = true
            case ASCII.openBrace, ASCII.openBracket: depth += 1
            case ASCII.closeBrace, ASCII.closeBracket:
                if depth == 0 {
                    flush()
                    return finishCapture(out, keeping: keeping, maxBytes: maxBytes)
                }
                depth -= 1
                if depth == 0 {
                    i += 1
                    flush()
                    return finishCapture(out, keeping: keeping, maxBytes: maxBytes)
                }
            case ASCII.comma:
                if depth == 0 {
                    flush()
                    return finishCapture(out, keeping: keeping, maxBytes: maxBytes)
                }
            case ASCII.lf:
                line += 1
                lineStart = buffer.baseOffset + Int64(i) + 1
            case ASCII.space, ASCII.tab, ASCII.cr:
                break
            default:
                break
            }
            i += 1
        }
    }

    /// Parses the next value onto `tape` where it lies in the buffer when it is an object that is
    /// valid, lies whole in the buffer and has at most `maxBytes` bytes, consumes it and returns
    /// its bytes (valid until the stream reads on). Otherwise consumes nothing and returns nil:
    /// the caller captures the value (`captureValue`), which handles every other case.
    func parseObjectInPlace(_ tape: JSONTape, maxBytes: Int, maxDepth: Int) throws(InputError) -> UnsafeBufferPointer<
        UInt8
    >? {
        guard !reference, try peek() == ASCII.openBrace else { return nil }
        // At most the record limit is parsed, so the tape holds no more than it does for a
        // captured record (a longer one fails here and is rejected by the capture).
        let rest = buffer.slice(i, min(buffer.end, i + max(0, maxBytes)))
        guard tape.parse(rest, maxDepth: maxDepth, prefix: true) == nil, tape.valueEnd <= maxBytes else { return nil }
        if tape.newlines > 0 {
            line += tape.newlines
            lineStart = buffer.baseOffset + Int64(i + tape.lastNewline + 1)
        }
        i += tape.valueEnd
        return UnsafeBufferPointer(rebasing: rest[0..<tape.valueEnd])
    }

    private func finishCapture(_ out: ByteBuffer, keeping: Bool, maxBytes: Int) -> Bool {
        if !keeping || out.count > maxBytes {
            out.removeAll()
            return false
        }
        return true
    }

    /// Skips the next value of any size and depth.
    func skipValue() throws(InputError) {
        guard let b = try peek() else { throw error("the file ends where a value was expected (truncated JSON)") }
        guard !reference, b == ASCII.openBrace || b == ASCII.openBracket else {
            _ = try captureValue(into: skipped, maxBytes: -1)
            return
        }
        try skipContainer()
    }

    /// Skips an object or array at `i` exactly as `captureValue` would delimit it (strings and
    /// escapes respected, nothing else checked; a newline counts as a line wherever it is), eight
    /// bytes a step: with no backslash in a block, the in-string lanes are the prefix XOR of its
    /// quotes, and a block whose closers cannot bring the depth to zero is passed whole.
    private func skipContainer() throws(InputError) {
        let startLine = line
        i += 1
        var s = ContainerSkip(
            p: buffer.storage, end: buffer.end, base: buffer.baseOffset, k: i, line: line, lineStart: lineStart)
        while true {
            let done = s.run()
            i = s.k
            line = s.line
            lineStart = s.lineStart
            if done { return }
            guard try refill() else {
                throw InputError(
                    file: path, position: position,
                    message: "the file ends inside a JSON value that starts at line \(startLine) (truncated JSON)")
            }
            s.p = buffer.storage
            s.end = buffer.end
            s.base = buffer.baseOffset
            s.k = i
        }
    }

    /// `skipContainer`'s state: where it is in the bytes read so far, the depth and string state
    /// that carry across refills, and the line count. Its steps are inlined into one loop on a
    /// local copy, so the fields live in registers across the loop as plain locals would.
    private struct ContainerSkip {
        var p: UnsafeMutablePointer<UInt8>
        var end: Int
        /// Content offset of the buffer's first byte (for `lineStart`).
        var base: Int64
        var k: Int
        var line: Int
        var lineStart: Int64
        var depth = 1
        var inString = false
        var escaped = false

        /// True when the value ended (`k` just after its closer); false at the end of the bytes.
        @inline(__always)
        mutating func run() -> Bool {
            while k < end {
                if !escaped && k + 8 <= end && passBlock() { continue }
                if passBytes() { return true }
            }
            return false
        }

        /// Passes the eight bytes at `k` whole when they hold no backslash and their closers
        /// cannot bring the depth to zero; false (nothing passed) otherwise.
        @inline(__always)
        mutating func passBlock() -> Bool {
            let x = JSONSWAR.load(p + k)
            guard JSONSWAR.equal(x, ASCII.backslash) == 0 else { return false }
            let quotes = JSONSWAR.equal(x, ASCII.quote)
            let strings = JSONSWAR.prefixXor(quotes) ^ (inString ? JSONSWAR.high : 0)
            let folded = x | (JSONSWAR.ones &* 0x20)
            // `{` 0x7B and `[` 0x5B (`}` 0x7D and `]` 0x5D) differ only in bit 0x20.
            let opens = JSONSWAR.equal(folded, ASCII.openBrace) & ~strings
            let closes = JSONSWAR.equal(folded, ASCII.closeBrace) & ~strings
            let closing = JSONSWAR.count(closes)
            guard closing < depth else { return false }
            depth += JSONSWAR.count(opens) - closing
            inString = strings >> 63 != 0
            let lfs = JSONSWAR.equal(x, ASCII.lf)
            if lfs != 0 {
                line += JSONSWAR.count(lfs)
                lineStart = base + Int64(k + JSONSWAR.last(lfs) + 1)
            }
            k += 8
            return true
        }

        /// One byte at a time, up to eight (a backslash, a block that may close the value, the
        /// tail); true when the value ended.
        @inline(__always)
        mutating func passBytes() -> Bool {
            let stop = min(k + 8, end)
            while k < stop {
                let b = p[k]
                k += 1
                if inString {
                    if JSONStringBody.pass(b, inString: &inString, escaped: &escaped) {
                        line += 1
                        lineStart = base + Int64(k)
                    }
                    continue
                }
                switch b {
                case ASCII.lf:
                    line += 1
                    lineStart = base + Int64(k)
                case ASCII.quote: inString = true
                case ASCII.openBrace, ASCII.openBracket: depth += 1
                case ASCII.closeBrace, ASCII.closeBracket:
                    depth -= 1
                    if depth == 0 { return true }
                default: break
                }
            }
            return false
        }
    }

    private let skipped = ByteBuffer(capacity: 16)

    /// Reads the next value when it is a short string (e.g. `"type"`); skips it otherwise.
    func readShortString() throws(InputError) -> String? {
        let bytes = ByteBuffer(capacity: 256)
        guard try captureValue(into: bytes, maxBytes: 256), bytes.bytes.first == ASCII.quote else { return nil }
        return JSONTape.decodeStringLiteral(bytes.bytes.span)
    }

    /// True when only whitespace is left.
    func atEnd() throws(InputError) -> Bool { try peek() == nil }

    private func printable(_ b: UInt8) -> String {
        (b >= 32 && b < 127) ? String(UnicodeScalar(b)) : String(format: b)
    }
}

/// JSON's in-string state machine, shared by every byte-at-a-time loop over JSON text.
enum JSONStringBody {
    /// Passes one byte inside a string: a backslash escapes the next byte, an unescaped quote
    /// ends the string (`inString` false). True when the byte is an unescaped line feed, which
    /// the caller counts as a line (invalid JSON, rejected later, but the line count stays right).
    @inline(__always)
    static func pass(_ b: UInt8, inString: inout Bool, escaped: inout Bool) -> Bool {
        if escaped {
            escaped = false
        } else if b == ASCII.backslash {
            escaped = true
        } else if b == ASCII.quote {
            inString = false
        } else if b == ASCII.lf {
            return true
        }
        return false
    }
}

private extension String {
    init(format b: UInt8) {
        let hex = Array("0123456789abcdef")
        self = "\\x" + String(hex[Int(b >> 4)]) + String(hex[Int(b & 15)])
    }
}
