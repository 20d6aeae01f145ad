import AreaWatchCore

/// A zone's rules as the system's tzdata writes them: a TZif file (RFC 8536, versions 1 to 4).
/// The transitions of the file's table give the offset up to its last one; after it the
/// footer's POSIX TZ string does (a "slim" file lists few transitions and relies on it, a "fat"
/// one lists them to 2037). Before the first transition the offset is that of local time type 0
/// (RFC 8536 §3.2: tzdata's local mean time).
struct ZoneRules: Sendable, Equatable {
    /// UTC instants of the changes of offset, ascending.
    let transitions: [Int64]
    /// The offset (seconds east of UTC) from each transition on.
    let offsets: [Int64]
    let initialOffset: Int64
    let footer: PosixZoneRule?

    /// RFC 8536 §3.2: a UT offset must lie within −25:59:59 … +25:59:59 (so must footer offsets).
    static let maxOffset: Int64 = 93_599

    /// The offset in force at instant `t`.
    func offset(at t: Int64) -> Int64 {
        guard let last = transitions.last else { return footer?.offset(at: t) ?? initialOffset }
        if t > last { return footer?.offset(at: t) ?? offsets[offsets.count - 1] }
        // The last transition at or before t.
        var lo = 0, hi = transitions.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if transitions[mid] <= t { lo = mid + 1 } else { hi = mid }
        }
        return lo == 0 ? initialOffset : offsets[lo - 1]
    }

    /// The changes of offset at instants within `lo…hi`, in order, each with the offsets before
    /// and after it (a change that keeps the offset, as of abbreviation only, is left out).
    func changes(from lo: Int64, through hi: Int64) -> [(instant: Int64, before: Int64, after: Int64)] {
        var found: [(instant: Int64, before: Int64, after: Int64)] = []
        var k = firstTransition(atOrAfter: lo)
        while k < transitions.count && transitions[k] <= hi {
            let before = k == 0 ? initialOffset : offsets[k - 1]
            if before != offsets[k] { found.append((transitions[k], before, offsets[k])) }
            k += 1
        }
        guard let footer, footer.daylight != nil else { return found }
        // After the table, the footer's changes of the years around the range.
        let tableEnd = transitions.last ?? Int64.min
        let first = UTCTime.civil(max(lo, UTCTime.earliest) - 2 * 86_400).year
        let last = UTCTime.civil(min(hi, UTCTime.latest) + 2 * 86_400).year
        guard hi > tableEnd, first <= last else { return found }
        var ruled: [(instant: Int64, offset: Int64)] = []
        for year in first...last { ruled += footer.changes(year: year) }
        for change in ruled.sorted(by: { $0.instant < $1.instant })
        where change.instant > tableEnd && change.instant >= lo && change.instant <= hi {
            let before = offset(at: change.instant - 1), after = offset(at: change.instant)
            if before != after { found.append((change.instant, before, after)) }
        }
        return found
    }

    private func firstTransition(atOrAfter t: Int64) -> Int {
        var lo = 0, hi = transitions.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if transitions[mid] < t { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    static func == (a: ZoneRules, b: ZoneRules) -> Bool {
        a.transitions == b.transitions && a.offsets == b.offsets && a.initialOffset == b.initialOffset
            && a.footer == b.footer
    }

    // MARK: - Reading TZif

    /// Reads a TZif file's bytes; the message says what is wrong with a file that is not one.
    init(tzif bytes: [UInt8]) throws(ZoneFileError) {
        var reader = TZifReader(bytes: bytes)
        let first = try reader.header()
        let version = first.version
        var block = try reader.block(first, timeBytes: 4)
        var footerText: String?
        if version >= 2 {
            // Version 2+: the same data again with 64-bit times, then the footer.
            let second = try reader.header()
            block = try reader.block(second, timeBytes: 8)
            footerText = try reader.footer()
        }
        guard block.leapCount == 0 else {
            throw ZoneFileError("it counts leap seconds (a right/ zone): its times are not POSIX times")
        }
        transitions = block.times
        offsets = block.typeIndices.map { block.typeOffsets[Int($0)] }
        initialOffset = block.typeOffsets[0]
        if let footerText, !footerText.isEmpty {
            guard let rule = PosixZoneRule(footerText), abs(rule.standardOffset) <= ZoneRules.maxOffset,
                abs(rule.daylight?.offset ?? 0) <= ZoneRules.maxOffset
            else {
                throw ZoneFileError("its footer rule \"\(footerText.prefix(60))\" is not a POSIX TZ string")
            }
            footer = rule
        } else {
            footer = nil
        }
    }
}

/// Why a zone file could not be read.
struct ZoneFileError: Error, Sendable {
    let message: String
    init(_ message: String) { self.message = message }
}

/// The byte layout of RFC 8536: a header, a data block, and for version 2+ a second header, a
/// data block with 64-bit times and a footer.
private struct TZifReader {
    let bytes: [UInt8]
    var position = 0

    struct Header {
        var version: Int
        var utIndicators, standardIndicators, leaps, times, types, characters: Int
    }

    struct Block {
        var times: [Int64] = []
        var typeIndices: [UInt8] = []
        var typeOffsets: [Int64] = []
        var leapCount = 0
    }

    mutating func header() throws(ZoneFileError) -> Header {
        guard bytes.count - position >= 44, bytes[position..<(position + 4)].elementsEqual("TZif".utf8) else {
            throw ZoneFileError("not a TZif file")
        }
        let v = bytes[position + 4]
        let version = v == 0 ? 1 : Int(v) - 48
        guard (1...9).contains(version) else { throw ZoneFileError("not a TZif file (version byte \(v))") }
        position += 20
        var counts: [Int] = []
        for _ in 0..<6 { counts.append(Int(try uint32())) }
        let header = Header(
            version: version, utIndicators: counts[0], standardIndicators: counts[1], leaps: counts[2],
            times: counts[3], types: counts[4], characters: counts[5])
        // RFC 8536 §3.1: at least one type; the indicator counts are 0 or the type count.
        guard header.types >= 1, header.types <= 256, header.characters >= 1,
            header.utIndicators == 0 || header.utIndicators == header.types,
            header.standardIndicators == 0 || header.standardIndicators == header.types
        else {
            throw ZoneFileError("its header counts are inconsistent")
        }
        return header
    }

    mutating func block(_ h: Header, timeBytes: Int) throws(ZoneFileError) -> Block {
        let size =
            h.times * timeBytes + h.times + h.types * 6 + h.characters + h.leaps * (timeBytes + 4)
            + h.standardIndicators + h.utIndicators
        guard size >= 0, bytes.count - position >= size else { throw ZoneFileError("it is cut short") }
        var block = Block()
        for _ in 0..<h.times {
            if timeBytes == 4 {
                block.times.append(Int64(Int32(bitPattern: try uint32())))
            } else {
                block.times.append(try int64())
            }
        }
        guard zip(block.times, block.times.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw ZoneFileError("its transition times are not in ascending order")
        }
        block.typeIndices = Array(bytes[position..<(position + h.times)])
        position += h.times
        guard block.typeIndices.allSatisfy({ Int($0) < h.types }) else {
            throw ZoneFileError("a transition names a missing type")
        }
        for _ in 0..<h.types {
            let offset = Int64(Int32(bitPattern: try uint32()))
            guard abs(offset) <= ZoneRules.maxOffset else {
                throw ZoneFileError("a UT offset of \(offset) s is out of range")
            }
            block.typeOffsets.append(offset)
            position += 2 // isdst, abbreviation index
        }
        position += h.characters + h.leaps * (timeBytes + 4) + h.standardIndicators + h.utIndicators
        block.leapCount = h.leaps
        return block
    }

    /// The footer: a line feed, the TZ string, a line feed.
    mutating func footer() throws(ZoneFileError) -> String {
        guard position < bytes.count, bytes[position] == 10 else { throw ZoneFileError("its footer is missing") }
        guard let end = bytes[(position + 1)...].firstIndex(of: 10) else {
            throw ZoneFileError("its footer is not closed")
        }
        defer { position = end + 1 }
        return String(decoding: bytes[(position + 1)..<end], as: UTF8.self)
    }

    private mutating func uint32() throws(ZoneFileError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw ZoneFileError("it is cut short") }
        defer { position += 4 }
        return bytes[position..<(position + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private mutating func int64() throws(ZoneFileError) -> Int64 {
        guard bytes.count - position >= 8 else { throw ZoneFileError("it is cut short") }
        defer { position += 8 }
        return Int64(bitPattern: bytes[position..<(position + 8)].reduce(0) { $0 << 8 | UInt64($1) })
    }
}
