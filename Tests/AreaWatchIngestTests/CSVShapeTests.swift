import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchIngest

/// SPEC §2.2: RFC 4180 CSV — quoting, line ends, BOM, delimiters, blank lines, quoting errors.
@Suite("CSV input")
struct CSVShapeTests {
    /// What `quoted.csv` and its CRLF + BOM twin must give.
    private func checkQuoted(_ result: IngestResult, newline: String) {
        #expect(result.report.format == "csv")
        #expect(result.report.records == 9, "9 records on 15 lines: 2 multi-line, 3 blank lines")
        #expect(result.incidents.map(\.key) == ["q1", "q2", "q3", "q5", "q8", "q9"])
        #expect(result.incident("q1")?.description == "has, comma")
        #expect(result.incident("q2")?.description == "says \"hi\"")
        #expect(result.incident("q3")?.description == "two\(newline)lines")
        #expect(result.incident("q5")?.description == "plain")
        #expect(result.incident("q8")?.description == nil, "\"\" is an empty field")
        #expect(result.incident("q8")?.lat == 53.7, "quoted numbers are numbers")
        #expect(result.incident("q9")?.category == "b", "a quoted last field before the line end")
        #expect(result.reasons == ["7": "missing_coordinates", "10": "malformed_record", "11": "malformed_record"])
    }

    @Test("quoted fields with commas, doubled quotes and newlines; blank lines; quoting errors")
    func quotedLF() throws {
        checkQuoted(try ingest(try fixture("quoted.csv")), newline: "\n")
    }

    @Test("the same file with CRLF line ends and a UTF-8 BOM")
    func quotedCRLFBOM() throws {
        let result = try ingest(try fixture("quoted-crlf-bom.csv"))
        checkQuoted(result, newline: "\r\n")
        // The BOM is not part of the first column's name: `id` still matched.
        #expect(result.incidents.allSatisfy { $0.attributes == nil })
    }

    @Test("the CSV and the CRLF twin give identical incidents apart from the embedded newline")
    func crlfEqualsLF() throws {
        let lf = try ingest(try fixture("quoted.csv"))
        let crlf = try ingest(try fixture("quoted-crlf-bom.csv"))
        let strip: (Incident) -> Incident = {
            var i = $0
            i.description = i.description?.replacingOccurrences(of: "\r\n", with: "\n")
            return i
        }
        #expect(lf.incidents == crlf.incidents.map(strip))
    }

    @Test("semicolon delimiter detected from the header")
    func semicolon() throws {
        let result = try ingest(try fixture("semicolon.csv"))
        #expect(result.incidents.map(\.key) == ["s1", "s2"])
        #expect(result.incident("s1")?.attributes == #"{"note":"a, b, c"}"#)
        #expect(result.incident("s2")?.attributes == #"{"note":"quoted; with semicolon"}"#)
        #expect(result.incident("s2")?.lat == 53.71)
    }

    @Test("tab delimiter detected from the header")
    func tab() throws {
        let result = try ingest(try fixture("tab.tsv"))
        #expect(result.incidents.map(\.key) == ["t1", "t2"])
        #expect(result.incident("t1")?.attributes == #"{"note":"a, b; c"}"#)
        #expect(result.incident("t2")?.attributes == #"{"note":"tab\tinside"}"#)
    }

    @Test("--delimiter overrides detection")
    func delimiterOverride() throws {
        // `|` is never detected: the header is one field, which is no incident file; the message
        // points to --delimiter (and does not quote a line that may be any file's content).
        let pipe = try fixture("pipe.csv")
        let error = inputError(pipe)
        #expect(error?.message.contains("its first line is one field when split at ','") == true)
        #expect(error?.message.contains("--delimiter") == true)
        var options = IngestOptions()
        options.reader.delimiter = UInt8(ascii: "|")
        let result = try ingest(pipe, options: options)
        #expect(result.incidents.map(\.key) == ["p1"])
        #expect(result.incident("p1")?.attributes == #"{"note":"a, b; c"}"#)

        // More `;` than `,` in the header: detection picks `;`, the override reads it as `,`.
        let misleading = try fixture("misleading-header.csv")
        #expect(inputError(misleading) != nil)
        options.reader.delimiter = UInt8(ascii: ",")
        let forced = try ingest(misleading, options: options)
        #expect(forced.incidents.count == 1)
        #expect(forced.incidents.first?.attributes == #"{"a;b;c;d;e":"x;y"}"#)
    }

    @Test("delimiters inside quotes in the header do not count for detection")
    func detectionIgnoresQuoted() throws {
        let dir = try TempDir()
        let path = try dir.file("q.csv", "\"a;b;c;d;e\",latitude,longitude,timestamp\nv,53.7,-1.8,1530000000\n")
        let result = try ingest(path)
        #expect(result.incidents.first?.attributes == #"{"a;b;c;d;e":"v"}"#)
    }

    @Test("a row with a different field count is malformed_record, more or fewer")
    func fieldCount() throws {
        let dir = try TempDir()
        let text =
            "id,latitude,longitude,timestamp\n"
            + "a,53.7,-1.8,1530000000\n"
            + "b,53.7,-1.8\n"
            + "c,53.7,-1.8,1530000000,extra\n"
            + "d,53.7,-1.8,1530000000,\n"
            + "e\n"
            + "f,53.7,-1.8,1530000000"
        let result = try ingest(try dir.file("count.csv", text))
        #expect(
            result.reasons == [
                "3": "malformed_record", "4": "malformed_record", "5": "malformed_record",
                "6": "malformed_record"
            ])
        #expect(result.incidents.map(\.key) == ["a", "f"])
    }

    @Test("quote in the middle of an unquoted field, text after a closing quote")
    func quotingErrors() throws {
        let dir = try TempDir()
        let text =
            "id,latitude,longitude,timestamp,note\n"
            + "a,53.7,-1.8,1530000000,ab\"cd\n" // 2
            + "b,53.7,-1.8,1530000000,\"ab\"cd\n" // 3
            + "c,53.7,-1.8,1530000000,\"ab\" \n" // 4: a space after the closing quote
            + "d,53.7,-1.8,1530000000,\"ab\"\"\"\n" // 5: fine, value ab"
            + "e,5\"3.7,-1.8,1530000000,x\n" // 6
            + "f,53.7,-1.8,1530000000,\"a\"\"b\"\"\"\"\"\n" // 7: fine, value a"b""
            + "g,\"53.7\"x,-1.8,1530000000,x\n" // 8
            + "h,53.7,-1.8,1530000000,ok\n" // 9
        let result = try ingest(try dir.file("quotes.csv", text))
        #expect(
            result.reasons == [
                "2": "malformed_record", "3": "malformed_record", "4": "malformed_record",
                "6": "malformed_record", "8": "malformed_record"
            ])
        #expect(result.incidents.map(\.key) == ["d", "f", "h"])
        #expect(result.incident("d")?.attributes == #"{"note":"ab\""}"#)
        #expect(result.incident("f")?.attributes == #"{"note":"a\"b\"\""}"#)
    }

    @Test("a row with a NUL byte is malformed_record; the rows around it are read")
    func nulByte() throws {
        let dir = try TempDir()
        let text =
            "id,latitude,longitude,timestamp,note\na,53.7,-1.8,1530000000,x\nb,53.7,-1.8,1530000000,x\u{0}y\nc,53.7,-1.8,1530000000,z\n"
        let result = try ingest(try dir.file("nul.csv", text))
        #expect(result.reasons == ["3": "malformed_record"])
        #expect(result.incidents.map(\.key) == ["a", "c"])
    }

    @Test("the last record without a final newline, with a trailing CR, and a quoted last field")
    func lastRecord() throws {
        let dir = try TempDir()
        for (name, tail) in [
            ("plain", "z,53.7,-1.8,1530000000,end"), ("cr", "z,53.7,-1.8,1530000000,end\r"),
            ("quoted", "z,53.7,-1.8,1530000000,\"end\"")
        ] {
            let result = try ingest(try dir.file(name + ".csv", "id,latitude,longitude,timestamp,note\n" + tail))
            #expect(result.incidents.map(\.key) == ["z"], "\(name)")
            #expect(result.incidents.first?.attributes == #"{"note":"end"}"#, "\(name)")
        }
    }

    @Test("empty trailing fields with LF and CRLF line ends")
    func emptyTrailingFields() throws {
        let dir = try TempDir()
        let text = "id,latitude,longitude,timestamp,category\r\na,53.7,-1.8,1530000000,\r\nb,53.7,-1.8,1530000000,x\r\n"
        let result = try ingest(try dir.file("trailing.csv", text))
        #expect(result.incidents.map(\.key) == ["a", "b"])
        #expect(result.incident("a")?.category == nil)
        #expect(result.incident("b")?.category == "x")
    }

    @Test("a header without data rows has no records")
    func headerOnly() throws {
        let dir = try TempDir()
        let result = try ingest(try dir.file("h.csv", "id,latitude,longitude,timestamp\r\n\r\n"))
        #expect(result.report.records == 0)
    }

    /// Records are scanned across read-chunk boundaries (1 MiB): a long file of records of random
    /// length, with quoted newlines, must give exactly the records an independent reader sees.
    @Test("random CSV across chunk boundaries equals an independent reader")
    func randomAcrossChunks() throws {
        let dir = try TempDir()
        var rng = SplitMix64(seed: 2024)
        var text = "id,latitude,longitude,timestamp,description\r\n"
        var expected: [(key: String, description: String?)] = []
        var expectedRejectLines: [String] = []
        var line = 2
        var records = 0
        while text.utf8.count < 3_300_000 {
            let key = "k\(records)"
            records += 1
            let length = Int(rng.next() % 3000)
            var description = ""
            for _ in 0..<length {
                switch rng.next() % 40 {
                case 0: description += "\""
                case 1: description += ","
                case 2: description += "\n"
                case 3: description += "é"
                default: description.unicodeScalars.append(Unicode.Scalar(UInt8(97 + rng.next() % 26)))
                }
            }
            let quoted = "\"" + description.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            // Every 7th record or so has no latitude: its reject names the line it starts on.
            let latitude = rng.next() % 7 == 0 ? "" : "53.\(rng.next() % 10000)"
            text +=
                "\(key),\(latitude),-1.\(rng.next() % 10000),\(1_500_000_000 + rng.next() % 100_000_000),\(quoted)\r\n"
            if latitude.isEmpty {
                expectedRejectLines.append(String(line))
            } else {
                expected.append((key, description.isEmpty ? nil : description))
            }
            line += 1 + description.filter { $0 == "\n" }.count
            if rng.next() % 10 == 0 {
                text += "\r\n"
                line += 1
            }
        }
        let result = try ingest(try dir.file("random.csv", text))
        #expect(result.report.records == records)
        #expect(expectedRejectLines.count > 50)
        #expect(result.incidents.map(\.key) == expected.map(\.key))
        #expect(result.incidents.map(\.description) == expected.map(\.description))
        #expect(result.rejects.map(\.record) == expectedRejectLines)
        #expect(Set(result.rejects.map(\.reason)) == ["missing_coordinates"])
    }
}
