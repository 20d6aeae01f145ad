import AreaWatchCore

/// An RFC 4180 record scanner over a `ChunkBuffer` (SPEC §2.2).
///
/// A resumable state machine: when a record runs past the bytes read so far it keeps its state,
/// refills and goes on, so a record is scanned once however it falls across chunks. Field bounds
/// are kept relative to the record's first byte, which stays valid when the buffer slides.
/// A record longer than `maxRecordBytes` is skipped to its end without being kept (it becomes a
/// `malformed_record` reject), so one 2 GB line costs no more memory than a short one.
final class CSVScanner {
    enum State { case fieldStart, unquoted, quoted, quoteInQuoted, afterClose }

    let buffer: ChunkBuffer
    let delimiter: UInt8
    /// The bytes that end a run of an unquoted field: delimiter, LF, quote.
    private let stops: ByteStops
    let maxRecordBytes: Int

    /// 1-based line where the current record starts.
    private(set) var recordLine = 1
    private(set) var fieldCount = 0
    /// A quote in the middle of an unquoted field, or text after a closing quote.
    private(set) var quotingError = false
    private(set) var oversized = false
    /// The record's first bytes, for reject excerpts of oversized records.
    private let oversizedHead = ByteBuffer(capacity: 1024)

    /// 1-based line of the byte after the current record (every LF scanned so far counted once).
    private(set) var nextLine = 1
    private var firstFieldQuoted = false
    private var recordStart = 0
    private var scan = 0
    private var state = State.fieldStart
    /// Field bounds, relative to the record start, in owned buffers written in place: the
    /// scanning loop writes them per field without Array's uniqueness or exclusivity checks.
    /// Every element is initialized (`count` is the room for fields, `fieldCapacity`).
    /// Unchecked exclusivity: a scanner belongs to one reader, and a class's stored property
    /// is otherwise checked at run time on every access (a call per field).
    @exclusivity(unchecked) private var fieldStarts = CSVScanner.fieldBuffer(of: 0)
    @exclusivity(unchecked) private var fieldEnds = CSVScanner.fieldBuffer(of: 0)
    @exclusivity(unchecked) private var fieldEscaped = CSVScanner.fieldBuffer(of: false)
    private var fieldCapacity: Int { fieldStarts.count }
    private var recordLength = 0
    /// Unescaped copies of quoted fields with `""`, one arena per record so that every field
    /// handed out stays valid until the next record.
    @exclusivity(unchecked) private var arena = GrowableBuffer<UInt8>(capacity: 4096)
    private var unescapedAt: [Int] = []
    private var unescapedLength: [Int] = []

    init(buffer: ChunkBuffer, delimiter: UInt8, maxRecordBytes: Int, firstLine: Int = 1) {
        self.buffer = buffer
        self.delimiter = delimiter
        stops = ByteStops(delimiter)
        self.maxRecordBytes = maxRecordBytes
        nextLine = firstLine
        recordLine = firstLine
        recordStart = buffer.start
    }

    private static func fieldBuffer<T>(of value: T) -> GrowableBuffer<T> {
        var fields = GrowableBuffer<T>(capacity: 64)
        fields.append(repeating: value, count: 64)
        return fields
    }

    /// Advances to the next non-blank record; false at the end of the input.
    func next() throws(InputError) -> Bool {
        while true {
            recordStart += recordLength
            buffer.release(upTo: recordStart)
            recordLength = 0
            scan = 0
            state = .fieldStart
            fieldCount = 0
            quotingError = false
            oversized = false
            oversizedHead.removeAll()
            arena.removeAll()
            try skipEmptyLines()
            recordLine = nextLine
            guard try scanRecord() else { return false }
            if fieldCount == 1 && !firstFieldQuoted && !oversized && fieldEnds[0] == fieldStarts[0] {
                continue // a blank line is not a record
            }
            return true
        }
    }

    /// Passes a run of empty lines (LF or CR LF) at the record start with one compare a byte:
    /// scanned as records, a gzip of blank lines (~1000:1) made the whole record machinery run per
    /// input byte, a denial of service. Any other line, a lone CR included, is left to `scanRecord`.
    private func skipEmptyLines() throws(InputError) {
        while true {
            let p = buffer.storage, end = buffer.end
            var i = recordStart
            var lines = 0
            while i < end {
                if p[i] == ASCII.lf {
                    i += 1
                } else if p[i] == ASCII.cr && i + 1 < end && p[i + 1] == ASCII.lf {
                    i += 2
                } else {
                    break
                }
                lines += 1
            }
            nextLine += lines
            recordStart = i
            buffer.release(upTo: i)
            guard i == end else { return }
            let (more, shift) = try buffer.refill()
            recordStart -= shift
            guard more else { return }
        }
    }

    /// Scans one record; false when the input ended before any byte of it.
    private func scanRecord() throws(InputError) -> Bool {
        firstFieldQuoted = false
        while true {
            // The loop works on a local copy of the state, written back before any return or refill.
            var s = ScanState(
                p: buffer.storage, base: recordStart, limit: buffer.end, delimiter: delimiter, stops: stops,
                skipping: oversized, i: recordStart + scan, state: state, fieldCount: fieldCount,
                nextLine: nextLine, quotingError: quotingError)
            let closed = scanBytes(&s)
            self.state = s.state
            self.fieldCount = s.fieldCount
            self.nextLine = s.nextLine
            self.quotingError = s.quotingError
            scan = s.i - s.base
            if closed {
                recordLength = scan
                // The whole record may have been in the buffer: its size (without the LF) counts too.
                if scan - 1 > maxRecordBytes && !oversized { beginSkipping() }
                return true
            }
            // Out of bytes: keep scanning after a refill, or finish at the end of the input.
            if scan > maxRecordBytes && !oversized { beginSkipping() }
            if oversized { dropScannedBytes() }
            let (more, shift) = try buffer.refill()
            recordStart -= shift
            if !more {
                return try finishAtEndOfInput()
            }
        }
    }

    /// The record scan's state between bytes. Its steps below are inlined into one loop on a
    /// local copy, so the fields live in registers across the loop as plain locals would.
    private struct ScanState {
        let p: UnsafeMutablePointer<UInt8>
        /// The record's first byte: field bounds are kept relative to it.
        let base: Int
        let limit: Int
        let delimiter: UInt8
        let stops: ByteStops
        /// A record being skipped keeps one placeholder field, so memory stays bounded.
        let skipping: Bool
        var i: Int
        var state: State
        var fieldCount: Int
        var nextLine: Int
        var quotingError: Bool
    }

    /// Scans the bytes read so far; true when the record's line end was passed (`s.i` after it),
    /// false when the bytes ran out first (`s.i` at the limit).
    @inline(__always)
    private func scanBytes(_ s: inout ScanState) -> Bool {
        while s.i < s.limit {
            switch s.state {
            case .fieldStart: startField(&s)
            case .unquoted: if unquotedRun(&s) { return true }
            case .quoted: quotedRun(&s)
            case .quoteInQuoted, .afterClose: if afterQuote(&s) { return true }
            }
        }
        return false
    }

    /// A field's first byte: an opening quote is passed; any other byte is left to be read again
    /// as part of the unquoted field.
    @inline(__always)
    private func startField(_ s: inout ScanState) {
        if s.skipping { s.fieldCount = 0 }
        if s.fieldCount == fieldCapacity { growFields() }
        let offset = s.i - s.base
        fieldEscaped[s.fieldCount] = false
        if s.p[s.i] == ASCII.quote {
            if s.fieldCount == 0 { firstFieldQuoted = true }
            fieldStarts[s.fieldCount] = offset + 1
            fieldEnds[s.fieldCount] = offset + 1
            s.fieldCount += 1
            s.state = .quoted
            s.i += 1
        } else {
            fieldStarts[s.fieldCount] = offset
            fieldEnds[s.fieldCount] = offset
            s.fieldCount += 1
            s.state = .unquoted
        }
    }

    /// Inside an unquoted field: runs to the next delimiter, LF or quote, eight bytes at a time
    /// (the hot path), and takes that byte. True when it was the record's LF.
    @inline(__always)
    private func unquotedRun(_ s: inout ScanState) -> Bool {
        let p = s.p, limit = s.limit
        var j = s.i
        var found = false
        while j &+ 8 <= limit {
            let hits = s.stops.matches(UInt64(littleEndian: UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self)))
            if hits != 0 {
                j &+= hits.trailingZeroBitCount &>> 3
                found = true
                break
            }
            j &+= 8
        }
        if !found {
            while j < limit && !s.stops.contains(p[j]) { j += 1 }
        }
        s.i = j
        if j == limit { return false }
        let c = p[j]
        s.i += 1
        if c == ASCII.quote {
            s.quotingError = true
        } else if c == s.delimiter {
            fieldEnds[s.fieldCount - 1] = j - s.base
            s.state = .fieldStart
        } else { // newline; a CR before it belongs to the line end
            let crlf = j > s.base && p[j - 1] == ASCII.cr && j - 1 - s.base >= fieldStarts[s.fieldCount - 1]
            fieldEnds[s.fieldCount - 1] = (crlf ? j - 1 : j) - s.base
            s.nextLine += 1
            return true
        }
        return false
    }

    /// Inside a quoted field: runs to the next quote, counting the newlines inside the field,
    /// and passes it (it closes the field or starts a doubled quote).
    @inline(__always)
    private func quotedRun(_ s: inout ScanState) {
        let p = s.p, limit = s.limit
        var j = s.i
        var lines = s.nextLine
        while j < limit {
            let c = p[j]
            if c == ASCII.quote { break }
            if c == ASCII.lf { lines += 1 }
            j += 1
        }
        s.nextLine = lines
        s.i = j
        if j == limit { return }
        s.state = .quoteInQuoted
        fieldEnds[s.fieldCount - 1] = j - s.base
        s.i += 1
    }

    /// The byte after a quote in a quoted field, or after the field's closing quote. True when
    /// it was the record's LF.
    @inline(__always)
    private func afterQuote(_ s: inout ScanState) -> Bool {
        let b = s.p[s.i]
        s.i += 1
        if s.state == .quoteInQuoted {
            if b == ASCII.quote { // a doubled quote: the field goes on
                fieldEscaped[s.fieldCount - 1] = true
                s.state = .quoted
                return false
            }
            s.state = .afterClose // the quote closed the field; this byte follows it
        }
        if b == s.delimiter {
            s.state = .fieldStart
        } else if b == ASCII.lf {
            s.nextLine += 1
            return true
        } else if b != ASCII.cr {
            s.quotingError = true
        }
        return false
    }

    private func growFields() {
        let more = fieldCapacity
        fieldStarts.append(repeating: 0, count: more)
        fieldEnds.append(repeating: 0, count: more)
        fieldEscaped.append(repeating: false, count: more)
    }

    private func finishAtEndOfInput() throws(InputError) -> Bool {
        switch state {
        case .quoted:
            throw InputError(
                file: buffer.source.path, position: "line \(recordLine)",
                message: "the file ends inside a quoted field (no closing quote)")
        case .fieldStart:
            if fieldCount == 0 && scan == 0 { return false }
            beginField(scan)
            endField(scan)
        case .unquoted:
            let end = (scan > 0 && buffer[recordStart + scan - 1] == ASCII.cr) ? scan - 1 : scan
            endField(max(end, fieldStarts[fieldCount - 1]))
        case .quoteInQuoted, .afterClose:
            break
        }
        recordLength = scan
        return true
    }

    @inline(__always)
    private func beginField(_ offset: Int) {
        if oversized {
            // A skipped record keeps one placeholder field: its fields are never read.
            fieldCount = 1
            fieldStarts[0] = offset
            fieldEnds[0] = offset
            fieldEscaped[0] = false
            return
        }
        if fieldCount == fieldCapacity { growFields() }
        fieldStarts[fieldCount] = offset
        fieldEnds[fieldCount] = offset
        fieldEscaped[fieldCount] = false
        fieldCount += 1
    }

    @inline(__always)
    private func endField(_ offset: Int) {
        fieldEnds[fieldCount - 1] = offset
    }

    private func beginSkipping() {
        oversized = true
        let head = min(scan, 1024)
        oversizedHead.append(buffer.slice(recordStart, recordStart + head).span)
    }

    /// In skip mode the scanned bytes of the oversized record are dropped before each refill.
    private func dropScannedBytes() {
        recordStart += scan
        scan = 0
        buffer.release(upTo: recordStart)
        // Field offsets are relative to the dropped bytes: keep only a placeholder field, so the
        // state machine's field bookkeeping stays in bounds while the record is skipped.
        fieldCount = 1
        fieldStarts[0] = 0
        fieldEnds[0] = 0
        fieldEscaped[0] = false
    }

    /// The buffer position just after the current record: where the next record's bytes start.
    /// After this, the buffer may be read by someone else (the parallel parse takes it over).
    var endOfRecord: Int { recordStart + recordLength }

    /// The raw bytes of the record (its head only when oversized), for reject excerpts.
    var rawRecord: UnsafeBufferPointer<UInt8> {
        if oversized { return oversizedHead.bytes }
        return buffer.slice(recordStart, recordStart + recordLength)
    }

    /// Field `i`, with `""` unescaped. Valid until the next record.
    @inline(__always)
    func field(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        let raw = buffer.slice(recordStart + fieldStarts[i], recordStart + fieldEnds[i])
        return fieldEscaped[i] ? unescaped(i, raw) : raw
    }

    /// Field `i` without its doubled quotes, copied into the record's arena once.
    @inline(never)
    private func unescaped(_ i: Int, _ raw: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        if arena.isEmpty {
            // A record's unescaped fields together are never longer than the record, so the
            // arena never grows (and never moves) while the record's fields are handed out.
            arena.reserveCapacity(recordLength)
            unescapedAt.removeAll(keepingCapacity: true)
            unescapedAt.append(contentsOf: repeatElement(-1, count: fieldCount))
            unescapedLength.removeAll(keepingCapacity: true)
            unescapedLength.append(contentsOf: repeatElement(0, count: fieldCount))
        }
        if unescapedAt[i] >= 0 {
            return UnsafeBufferPointer(start: arena.unsafeBaseAddress + unescapedAt[i], count: unescapedLength[i])
        }
        let at = arena.count
        var k = 0
        while k < raw.count {
            arena.append(raw[k])
            k += (raw[k] == ASCII.quote && k + 1 < raw.count && raw[k + 1] == ASCII.quote) ? 2 : 1
        }
        unescapedAt[i] = at
        unescapedLength[i] = arena.count - at
        return UnsafeBufferPointer(start: arena.unsafeBaseAddress + at, count: arena.count - at)
    }
}

/// Finds the first delimiter, LF or quote in eight bytes at once (SWAR): for each byte value,
/// XOR makes matching bytes zero and the classic zero-byte test marks them. The test can mark a
/// byte above a true match (borrow) but never below one, so the lowest mark is exact.
/// Why: a byte-by-byte table loop tests every byte of every field; short fields make that loop
/// a large share of a CSV's parse.
struct ByteStops {
    private let delimiterByte: UInt8
    private let delimiter: UInt64
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080
    private static let newline = UInt64(10) &* ones
    private static let quote = UInt64(34) &* ones

    init(_ delimiter: UInt8) {
        delimiterByte = delimiter
        self.delimiter = UInt64(delimiter) &* ByteStops.ones
    }

    /// Whether one byte is a stop (the last bytes of the buffer, fewer than eight).
    @inline(__always)
    func contains(_ b: UInt8) -> Bool {
        b == delimiterByte || b == ASCII.lf || b == ASCII.quote
    }

    /// One mark (bit 7 of the byte) per stop byte in `word` (little-endian: lowest = first),
    /// exact for the lowest; zero when the eight bytes hold none.
    @inline(__always)
    func matches(_ word: UInt64) -> UInt64 {
        ByteStops.zeroBytes(word ^ delimiter) | ByteStops.zeroBytes(word ^ ByteStops.newline)
            | ByteStops.zeroBytes(word ^ ByteStops.quote)
    }

    @inline(__always)
    private static func zeroBytes(_ v: UInt64) -> UInt64 {
        (v &- ones) & ~v & highs
    }
}
