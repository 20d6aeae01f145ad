import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchIngest

/// SPEC §3: the rejects file `source,record,id,reason,excerpt` — RFC 4180 quoting, excerpts of
/// at most 200 characters, and the `record` locator of every input shape.
@Suite("Rejects file")
struct RejectsFileTests {
    @Test("header, one row per reject, RFC 4180 quoting read back by an independent reader")
    func formatAndQuoting() throws {
        let result = try ingest(try fixture("quoted.csv"))
        let lines = result.rejectsText.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "source,record,id,reason,excerpt")
        #expect(result.rejectsText.hasSuffix("\n"))
        #expect(result.rejects.count == 3)

        // q4 starts on line 7 and its quoted description runs onto line 8.
        let q4 = try #require(result.reject(at: "7"))
        #expect(q4.id == "q4")
        #expect(q4.reason == "missing_coordinates")
        #expect(q4.excerpt == "q4,,-1.8,2018-07-01T10:00:00Z,\"spans\ntwo, lines\",a")
        // The excerpt holds a quote, a comma and a newline: the field must be quoted, quotes doubled.
        #expect(result.rejectsText.contains("\"q4,,-1.8,2018-07-01T10:00:00Z,\"\"spans\ntwo, lines\"\",a\""))

        let q6 = try #require(result.reject(at: "10"))
        #expect(q6.reason == "malformed_record")
        #expect(q6.excerpt == "q6,53.7,-1.8,2018-07-01T10:00:00Z,bad\"quote,a")
        let q7 = try #require(result.reject(at: "11"))
        #expect(q7.reason == "malformed_record")
        #expect(q7.excerpt == "q7,53.7,-1.8,2018-07-01T10:00:00Z,\"closed\"text,a")
    }

    @Test("a source path with a comma is quoted")
    func sourceWithComma() throws {
        let dir = try TempDir()
        let path = try dir.file("a, b.csv", "id,latitude,longitude,timestamp\nx,,1,1530000000\n")
        let result = try ingest(path)
        #expect(result.rejects.map(\.source) == [path])
        #expect(result.rejectsText.contains("\"\(path)\",2,x,missing_coordinates,"))
    }

    @Test("excerpts are at most 200 characters, counted as characters not bytes")
    func excerptLength() throws {
        let dir = try TempDir()
        let ascii = String(repeating: "a", count: 500)
        let accented = String(repeating: "é", count: 300) // 2 bytes each
        let emoji = String(repeating: "🚨", count: 250) // 4 bytes each
        let text =
            "id,latitude,longitude,timestamp,description\n"
            + "r1,,-1.8,1530000000,\(ascii)\n"
            + "r2,,-1.8,1530000000,\(accented)\n"
            + "r3,,-1.8,1530000000,\(emoji)\n"
            + "r4,,-1.8,1530000000,short\r\n"
        let result = try ingest(try dir.file("long.csv", text))
        #expect(result.rejects.count == 4)
        for row in result.rejects.prefix(3) {
            #expect(row.excerpt.count == 200, "record \(row.record)")
        }
        #expect(result.rejects[0].excerpt == String(("r1,,-1.8,1530000000," + ascii).prefix(200)))
        #expect(result.rejects[1].excerpt == String(("r2,,-1.8,1530000000," + accented).prefix(200)))
        #expect(result.rejects[2].excerpt == String(("r3,,-1.8,1530000000," + emoji).prefix(200)))
        #expect(result.rejects[3].excerpt == "r4,,-1.8,1530000000,short", "no line terminator in the excerpt")
    }

    @Test("JSON excerpts are at most 200 characters of the record's text")
    func jsonExcerpt() throws {
        let dir = try TempDir()
        let long = String(repeating: "ü", count: 400)
        let record =
            #"{"id": "j1", "latitude": 91, "longitude": 1, "timestamp": 1530000000, "description": "\#(long)"}"#
        let result = try ingest(try dir.file("long.json", "[" + record + "]"))
        let row = try #require(result.reject(at: "[0]"))
        #expect(row.reason == "invalid_coordinates")
        #expect(row.excerpt == String(record.prefix(200)))
    }

    // MARK: Locators

    @Test("CSV: the 1-based line where the record starts, counting blank lines and multi-line records")
    func csvLineLocators() throws {
        let dir = try TempDir()
        let text =
            "id,latitude,longitude,timestamp,description\n"
            + "\n" // 2 blank
            + "a,,1,1530000000,\"one\ntwo\nthree\"\n" // 3-5
            + "b,,1,1530000000,x\n" // 6
            + "\n\n" // 7-8
            + "c,1,1,1530000000,\"x\r\ny\"\r\n" // 9-10
            + "d,,1,1530000000,x" // 11, no final newline
        let result = try ingest(try dir.file("lines.csv", text))
        #expect(result.rejects.map(\.record) == ["3", "6", "11"])
        #expect(result.rejects.map(\.id) == ["a", "b", "d"])
        #expect(result.incident("c")?.description == "x\r\ny")
    }

    @Test("the same lines with CRLF line ends and a BOM")
    func crlfLineLocators() throws {
        let result = try ingest(try fixture("quoted-crlf-bom.csv"))
        #expect(result.rejects.map(\.record) == ["7", "10", "11"])
        #expect(result.reject(at: "7")?.excerpt == "q4,,-1.8,2018-07-01T10:00:00Z,\"spans\r\ntwo, lines\",a")
    }

    @Test("NDJSON: the 1-based line, blank lines counted")
    func ndjsonLocators() throws {
        let result = try ingest(try fixture("incidents.ndjson"))
        #expect(result.reasons == ["4": "malformed_record", "6": "malformed_record"])
        #expect(result.reject(at: "6")?.excerpt == "[1, 2, 3]")
    }

    @Test("WatchMe export: posts.<id>")
    func watchMeLocators() throws {
        let result = try ingest(try fixture("watchme-whole.json"))
        #expect(
            result.reasons == [
                "posts.-Lpost0000000000003": "null_island",
                "posts.-Lpost0000000000004": "malformed_record"
            ])
        // Ids beginning with "-" are written spreadsheet-safe (SPEC §8); the locator begins with "posts.".
        #expect(result.reject(at: "posts.-Lpost0000000000003")?.id == "'-Lpost0000000000003")
        #expect(result.reject(at: "posts.-Lpost0000000000004")?.id == "'-Lpost0000000000004")
        #expect(result.reject(at: "posts.-Lpost0000000000004")?.excerpt == "\"not a post\"")
    }

    @Test("bare id → post map: <id>")
    func idMapLocators() throws {
        let result = try ingest(try fixture("id-map.json"))
        // The locator is the id, which begins with "-": written with a leading "'" (SPEC §8).
        #expect(result.reasons == ["'-Kid00000000000002": "null_island"])
        #expect(result.reject(at: "'-Kid00000000000002")?.id == "'-Kid00000000000002")
    }

    @Test("posts as an array: posts[i]")
    func postsArrayLocators() throws {
        let result = try ingest(try fixture("posts-array.json"))
        #expect(result.reasons == ["posts[1]": "missing_coordinates"])
        #expect(result.reject(at: "posts[1]")?.id == "a2")
    }

    @Test("GeoJSON: features[i], 0-based")
    func featureLocators() throws {
        let result = try ingest(try fixture("features.geojson"))
        #expect(
            result.reasons == [
                "features[1]": "invalid_coordinates", "features[2]": "missing_coordinates",
                "features[6]": "null_island", "features[7]": "invalid_coordinates"
            ])
        #expect(result.reject(at: "features[1]")?.id == "f-1")
        #expect(result.reject(at: "features[2]")?.id == "f-2")
    }

    // MARK: Writer life cycle

    @Test("the rejects file appears only on commit; a failed file's rejects are discarded")
    func writerLifeCycle() throws {
        let dir = try TempDir()
        let good = try dir.file("good.csv", "id,latitude,longitude,timestamp\ng1,,1,1530000000\ng2,1,1,1530000000\n")
        let broken = try dir.file("broken.csv", "id,latitude,longitude,timestamp\nb1,,1,1530000000\nb2,1,1,\"open\n")
        let rejectsPath = dir.path + "/out-rejects.csv"
        let writer = try RejectsWriter(path: rejectsPath)

        for path in [good, broken] {
            var sink = CollectingSink()
            let digest = try FileDigest.sha256(path: path)
            do {
                _ = try FileIngester.ingest(
                    path: path, sha256: digest.hex, bytes: digest.bytes, options: IngestOptions(),
                    into: &sink, rejects: writer)
                try writer.endFile()
            } catch is InputError {
                writer.discardFile()
            }
        }
        #expect(!FileManager.default.fileExists(atPath: rejectsPath), "nothing at the final name before commit")
        #expect(writer.count == 1)
        try writer.commit()
        let rows = SimpleCSV.rows(try String(contentsOfFile: rejectsPath, encoding: .utf8))
        #expect(
            rows.map(\.fields) == [
                ["source", "record", "id", "reason", "excerpt"],
                [good, "2", "g1", "missing_coordinates", "g1,,1,1530000000"]
            ])
    }
}
