import AreaWatchCore
import Testing

@testable import AreaWatchIngest

/// The JSON reader's fast paths (records parsed where they lie in the read buffer, the
/// eight-bytes-a-step skip of unread nodes, member names made straight from the buffer) against
/// the same reader without them (`reference`: capture every value byte by byte, then parse the
/// copy). Seeded random documents of every SPEC §2.1 shape, valid and broken, read through
/// small windows so that records fall across refills: every record's outcome, locator, id,
/// excerpt and value, and every input error with its position, must be identical.
@Suite("JSON fast paths against the reference reader")
struct JSONFastPathPropertyTests {
    private static let names = [
        "latitude", "lat", "longitude", "lon", "timestamp", "time", "id", "description",
        "policeArrived", "user", "category", "Crime type", "x", "", "a\\\"b", "\\u00e9t\\u00E9",
        "{[,]}", "line\\nfeed", "\\ud83d\\ude00", "month"
    ]
    private static let strings = [
        "", "Leeds", "2017-03-04T21:15:09Z", "2016-07", "53.8", "-1.55", "true", "Y",
        "a \\\"quoted\\\" word", "back\\\\slash", "\\u0041\\u00e9\\ud83d\\ude00", "\\ud800 lone",
        "{\\\"not\\\": [a, record]}", "é€", "\\/\\b\\f\\n\\r\\t", "}]},{["
    ]
    private static let numbers = [
        "0", "-0", "53.81047836801728", "-1.5744912902155028", "1522114068", "1.5e3",
        "-2E-2", "1e11", "91.5", "1522114068000", "0.0", "12345678901234567890"
    ]

    private static func pick<T>(_ list: [T], _ rng: inout SplitMix64) -> T {
        list[Int(rng.next() % UInt64(list.count))]
    }

    /// Whitespace between tokens: mostly none, sometimes blanks, newlines or CRLF.
    private static func space(_ rng: inout SplitMix64) -> String {
        switch rng.next() % 10 {
        case 0: return " "
        case 1: return "\n"
        case 2: return "\r\n  "
        case 3: return "\t \n\n"
        default: return ""
        }
    }

    private static func value(_ rng: inout SplitMix64, depth: Int) -> String {
        switch rng.next() % (depth > 3 ? 6 : 9) {
        case 0, 1: return "\"" + pick(strings, &rng) + "\""
        case 2, 3: return pick(numbers, &rng)
        case 4: return pick(["true", "false", "null"], &rng)
        case 5: return "\"" + pick(strings, &rng) + pick(strings, &rng) + "\""
        case 6: return object(&rng, depth: depth + 1)
        case 7:
            let n = Int(rng.next() % 4)
            let s = space(&rng)
            return "[" + s + (0..<n).map { _ in value(&rng, depth: depth + 1) }.joined(separator: "," + s) + s + "]"
        default:
            // Deep nesting, past a small --max-json-depth now and then.
            let d = 1 + Int(rng.next() % 9)
            return String(repeating: "[", count: d) + "1" + String(repeating: "]", count: d)
        }
    }

    private static func object(_ rng: inout SplitMix64, depth: Int) -> String {
        let n = Int(rng.next() % 7)
        let s = space(&rng)
        let members = (0..<n).map { _ in
            "\"" + pick(names, &rng) + "\"" + space(&rng) + ":" + space(&rng) + value(&rng, depth: depth)
        }
        return "{" + s + members.joined(separator: "," + s) + s + "}"
    }

    /// A record: mostly an incident object, sometimes something else.
    private static func record(_ rng: inout SplitMix64, feature: Bool) -> String {
        switch rng.next() % 12 {
        case 0: return value(&rng, depth: 0)
        case 1: return "[" + object(&rng, depth: 1) + "]"
        default:
            var members = [
                "\"latitude\":" + pick(numbers + ["\"53.8\"", "null", "\"\""], &rng),
                "\"longitude\":" + pick(numbers + ["\"-1.5\"", "null"], &rng),
                "\"timestamp\":"
                    + pick(["1522114068", "\"2017-03-04T21:15:09Z\"", "\"2016-07\"", "\"junk\"", "1522114068000"], &rng),
                "\"description\":\"" + pick(strings, &rng) + "\"",
                "\"policeArrived\":" + pick(["true", "false", "\"Y\"", "1"], &rng),
                "\"user\":\"" + pick(strings, &rng) + "\""
            ]
            if rng.next() % 3 == 0 { members.append("\"" + pick(names, &rng) + "\":" + value(&rng, depth: 1)) }
            if rng.next() % 4 == 0 { members.removeLast(Int(rng.next() % 3)) }
            for k in members.indices.reversed() where rng.next() % 3 == 0 {
                members.swapAt(k, Int(rng.next() % UInt64(k + 1)))
            }
            let s = space(&rng)
            guard feature else { return "{" + s + members.joined(separator: "," + s) + s + "}" }
            let geometry = pick(
                [
                    "{\"type\":\"Point\",\"coordinates\":[-1.55,53.8]}", "null",
                    "{\"type\":\"Point\",\"coordinates\":[\"-1.5\",\"53.7\"]}",
                    "{\"type\":\"LineString\",\"coordinates\":[[0,0],[1,1]]}", "{\"type\":\"Point\",\"coordinates\":[]}"
                ], &rng)
            return "{\"type\":\"Feature\"," + s + "\"id\":" + pick(["\"f1\"", "7", "null", "\"\""], &rng) + "," + s
                + "\"geometry\":" + geometry + ",\"properties\":{" + members.joined(separator: ",") + "}}"
        }
    }

    private static func memberName(_ rng: inout SplitMix64, _ i: Int) -> String {
        rng.next() % 5 == 0 ? pick(names, &rng) : "-K\(i)x" + pick(["", "_a", "\\u0041", "\\\"q", "  "], &rng)
    }

    /// A document of one of the shapes, and the shape the reader is given.
    private static func document(_ rng: inout SplitMix64) -> (String, JSONShape) {
        let count = Int(rng.next() % 12)
        let s = space(&rng)
        switch rng.next() % 6 {
        case 0:
            let posts =
                "{"
                + (0..<count).map { "\"" + memberName(&rng, $0) + "\":" + s + record(&rng, feature: false) }.joined(
                    separator: "," + s) + "}"
            let noise = (0..<Int(rng.next() % 3)).map { _ in
                "\"" + pick(["timeline", "users", "users-posts"], &rng) + "\":" + s + object(&rng, depth: 0)
            }
            var members = noise + ["\"posts\":" + s + posts]
            members.swapAt(members.count - 1, Int(rng.next() % UInt64(members.count)))
            return ("{" + s + members.joined(separator: "," + s) + s + "}\n", .watchMeExport)
        case 1:
            return (
                "{" + s
                    + (0..<count).map { "\"" + memberName(&rng, $0) + "\":" + s + record(&rng, feature: false) }.joined(
                        separator: "," + s) + "}", .idMap
            )
        case 2:
            return (
                "[" + s + (0..<count).map { _ in record(&rng, feature: false) }.joined(separator: "," + s) + s + "]",
                .array
            )
        case 3:
            return (
                (0..<count).map { _ in record(&rng, feature: false) }.joined(
                    separator: pick(["\n", "\r\n", "\n\n"], &rng)), .ndjson
            )
        case 4:
            let features = "[" + (0..<count).map { _ in record(&rng, feature: true) }.joined(separator: "," + s) + "]"
            return ("{\"type\":\"FeatureCollection\"," + s + "\"features\":" + s + features + "}", .featureCollection)
        default:
            return (record(&rng, feature: false), .singleIncident)
        }
    }

    /// Breaks a document now and then: a byte dropped, a structural byte put in, a cut.
    private static func damage(_ text: String, _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = Array(text.utf8)
        for _ in 0..<Int(rng.next() % 3) where !bytes.isEmpty {
            let at = Int(rng.next() % UInt64(bytes.count))
            switch rng.next() % 3 {
            case 0: bytes.remove(at: at)
            case 1: bytes.insert(pick(Array("{}[],:\"\\ \na0".utf8), &rng), at: at)
            default: bytes.removeSubrange(at...)
            }
        }
        return bytes
    }

    /// Everything the reader tells about a document, as text.
    private static func transcript(
        _ bytes: [UInt8], shape: JSONShape, options: ReaderOptions, window: Int, reads: Int,
        reference: Bool
    ) -> [String] {
        func buffer() -> ChunkBuffer {
            ChunkBuffer(source: ByteSource(bytes: bytes, name: "doc.json", readLimit: reads), chunkSize: window)
        }
        var lines: [String] = []
        if bytes.first == ASCII.openBrace {
            do {
                lines.append(
                    "detected \(try JSONRecordSource.detectObjectShape(JSONStream(buffer: buffer(), reference: reference)))"
                )
            } catch {
                lines.append("detection: \(error)")
            }
        }
        let source = JSONRecordSource(buffer: buffer(), shape: shape, options: options, reference: reference)
        do {
            try source.forEachRecord { record in
                switch record {
                case .accepted(let incident):
                    lines.append("accepted \(incident) «\(source.currentExcerpt())»")
                case .rejected(let reason, let location, let id):
                    lines.append(
                        "rejected \(reason) at \(location) id \(id ?? "-") «\(source.currentExcerpt())» value \(source.currentValue(for: reason) ?? "-")"
                    )
                }
            }
            lines.append("end")
        } catch {
            lines.append("error: \(error)")
        }
        return lines
    }

    @Test("records, excerpts, locators and input errors identical: 3,000 random documents, small windows, small limits")
    func fastPathsAgainstReference() {
        var rng = SplitMix64(seed: 0x150_F457)
        var broken = 0, records = 0
        for round in 0..<3_000 {
            let (text, shape) = JSONFastPathPropertyTests.document(&rng)
            let bytes = round % 3 == 0 ? JSONFastPathPropertyTests.damage(text, &rng) : Array(text.utf8)
            var options = ReaderOptions()
            if round % 2 == 1 {
                options.maxRecordBytes = 20 + Int(rng.next() % 300)
                options.maxJSONDepth = 1 + Int(rng.next() % 6)
            }
            let window = round % 4 == 0 ? 1 << 20 : 8 + Int(rng.next() % 200)
            let reads = round % 5 == 0 ? .max : 1 + Int(rng.next() % 64)
            let fast = JSONFastPathPropertyTests.transcript(
                bytes, shape: shape, options: options, window: window, reads: reads, reference: false)
            let slow = JSONFastPathPropertyTests.transcript(
                bytes, shape: shape, options: options, window: window, reads: reads, reference: true)
            #expect(
                fast == slow,
                "round \(round), \(shape), window \(window), reads \(reads): \(String(decoding: bytes.prefix(400), as: UTF8.self))"
            )
            if slow.last?.hasPrefix("error") == true { broken += 1 }
            records += slow.filter { $0.hasPrefix("accepted") || $0.hasPrefix("rejected") }.count
        }
        // The generator must reach both outcomes, or the comparison proves little.
        #expect(broken > 300 && broken < 2_700, "\(broken) of 3,000 documents were input errors")
        #expect(records > 10_000, "\(records) records")
    }

    /// Everything a parse leaves on the tape, as text.
    private static func tapeTranscript(_ bytes: [UInt8], maxDepth: Int, prefix: Bool, reference: Bool) -> String {
        let tape = JSONTape(reference: reference)
        return bytes.withUnsafeBufferPointer { input in
            if let failure = tape.parse(input, maxDepth: maxDepth, prefix: prefix) { return "failure \(failure)" }
            var text = prefix ? "end \(tape.valueEnd) lines \(tape.newlines) last \(tape.lastNewline):" : ":"
            for k in 0..<tape.nodeCount {
                let n = tape.node(k)
                text += " \(n.kind)\(n.start)-\(n.end)>\(n.next)\(n.escaped ? "e" : "")"
                if n.kind == .string { text += "=" + String(decoding: tape.string(k), as: UTF8.self) }
            }
            return text
        }
    }

    @Test("the tape's one-pass parser against the general one: 20,000 random values and records, whole and as prefixes")
    func tapeFastPathAgainstGeneral() {
        var rng = SplitMix64(seed: 0x7A9E)
        var accepted = 0
        for round in 0..<20_000 {
            var rounds = SplitMix64(seed: rng.next())
            let text: String
            switch round % 4 {
            case 0: text = JSONFastPathPropertyTests.value(&rounds, depth: 0)
            case 1: text = JSONFastPathPropertyTests.object(&rounds, depth: 0)
            default: text = JSONFastPathPropertyTests.record(&rounds, feature: round % 4 == 3)
            }
            var bytes = round % 3 == 0 ? JSONFastPathPropertyTests.damage(text, &rounds) : Array(text.utf8)
            // A record followed by more input, as it lies in a read buffer.
            if round % 5 == 0 {
                bytes += Array(JSONFastPathPropertyTests.pick([",\n{\"a\":1}", " ]", "\n", "x", ""], &rounds).utf8)
            }
            let maxDepth = round % 7 == 0 ? 1 + Int(rounds.next() % 4) : 64
            for prefix in [false, true] {
                let fast = JSONFastPathPropertyTests.tapeTranscript(
                    bytes, maxDepth: maxDepth, prefix: prefix, reference: false)
                let general = JSONFastPathPropertyTests.tapeTranscript(
                    bytes, maxDepth: maxDepth, prefix: prefix, reference: true)
                #expect(
                    fast == general,
                    "round \(round), prefix \(prefix), depth \(maxDepth): \(String(decoding: bytes, as: UTF8.self))")
                if !general.hasPrefix("failure") { accepted += 1 }
            }
        }
        // Both outcomes must be common, or the comparison proves little.
        #expect(accepted > 10_000 && accepted < 38_000, "\(accepted) of 40,000 parses succeeded")
    }

    @Test("the eight-byte skip counts lines and columns like the byte-by-byte one: an error after a skipped node")
    func skipPositions() throws {
        // Newlines inside and outside strings, an escaped quote and an escaped newline in a skipped
        // node, then a structural error whose position must be the same.
        let doc =
            "{\"timeline\":{\"u1\":{\"a\":\"x\\\"}\\\n\",\n\"b\":[1,2,{\"c\":\"\n\"}]},\n \"u2\":{}},\n\"posts\":{\"p\":{\"lat\":1} \"q\":{}}}"
        var messages: [String] = []
        for reference in [false, true] {
            let lines = JSONFastPathPropertyTests.transcript(
                Array(doc.utf8), shape: .watchMeExport, options: ReaderOptions(),
                window: 1 << 20, reads: .max, reference: reference)
            messages.append(lines.last ?? "")
        }
        #expect(messages[0] == messages[1])
        #expect(messages[0].contains("line 5, column 24"), "\(messages[0])")
    }
}
