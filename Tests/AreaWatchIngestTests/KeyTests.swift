import AreaWatchCore
import AreaWatchQuery
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchIngest

/// SPEC §4: keys — source ids, `--source` prefixes, derived keys of id-less records with their
/// per-file ordinals, `--idless append`, and duplicate/update detection.
@Suite("Keys, duplicates and updates")
struct KeyTests {
    private func hex16(_ content: String) -> String { String(sha256Hex(content).prefix(16)) }

    /// data.police.uk style rows: `Crime ID,Month,Longitude,Latitude,Crime type`.
    private static let header = "Crime ID,Month,Falls within,Longitude,Latitude,Crime type\n"

    @Test("a source id is the key; --source prefixes it")
    func sourceIDs() throws {
        let dir = try TempDir()
        let path = try dir.file("ids.csv", Self.header + "abc123,2018-07,WY,-1.550626,53.5974,Burglary\n")
        #expect(try ingest(path).incidents.map(\.key) == ["abc123"])
        var options = IngestOptions()
        options.source = "wy"
        #expect(try ingest(path, options: options).incidents.map(\.key) == ["wy:abc123"])
    }

    @Test("an id-less key is h:<first 16 hex of SHA-256 over time|lat|lon|category>:<n>")
    func derivedKey() throws {
        let dir = try TempDir()
        let path = try dir.file("asb.csv", Self.header + ",2018-07,WY,-1.550626,53.5974,Anti-social behaviour\n")
        let key = try #require(try ingest(path).incidents.first?.key)
        // Computed here: time as epoch seconds, lat/lon as their shortest text, the category.
        let content = "\(epoch(2018, 7, 1))|53.5974|-1.550626|Anti-social behaviour"
        #expect(content == "1530403200|53.5974|-1.550626|Anti-social behaviour")
        #expect(sha256Hex(content) == "54a9ccf0703064f43f41798e6f7d13a25bffc3bd1aa02400836a40fc0e6eb38f")
        #expect(key == "h:\(hex16(content)):1")
        #expect(key == "h:54a9ccf0703064f4:1")
    }

    @Test("the derived key uses the Double's shortest text, not the input's spelling")
    func shortestText() throws {
        let dir = try TempDir()
        // The same numbers spelled differently, and no category (an empty field in the content).
        let path = try dir.file(
            "spell.csv",
            "latitude,longitude,timestamp\n"
                + "53.5974,-1.550626,1530403200\n"
                + "53.59740,-1.5506260,2018-07-01T00:00:00Z\n"
                + "5.35974e1,-1.5506260000,2018-07-01T01:00:00+01:00\n")
        let keys = try ingest(path).incidents.map(\.key)
        let hex = hex16("1530403200|53.5974|-1.550626|")
        #expect(keys == ["h:\(hex):1", "h:\(hex):2", "h:\(hex):3"])
    }

    @Test("the key content follows the precision-free time, lat, lon and category only")
    func keyContent() throws {
        let dir = try TempDir()
        // Different description, handled and attributes: still the same content for the key.
        let path = try dir.file(
            "content.csv",
            "latitude,longitude,timestamp,category,description,handled,note\n"
                + "53.7,-1.8,1530000000,theft,a,yes,x\n"
                + "53.7,-1.8,1530000000,theft,b,no,y\n"
                + "53.7,-1.8,1530000000,Theft,a,yes,x\n"
                + "53.7,-1.8,1530000001,theft,a,yes,x\n")
        let keys = try ingest(path).incidents.map(\.key)
        let theft = hex16("1530000000|53.7|-1.8|theft")
        let capital = hex16("1530000000|53.7|-1.8|Theft")
        let later = hex16("1530000001|53.7|-1.8|theft")
        #expect(keys == ["h:\(theft):1", "h:\(theft):2", "h:\(capital):1", "h:\(later):1"])
    }

    @Test("identical id-less rows get ordinals 1, 2, 3 in file order; interleaved content counts separately")
    func ordinals() throws {
        let dir = try TempDir()
        let asb = ",2018-07,WY,-1.550626,53.5974,Anti-social behaviour\n"
        let other = ",2018-07,WY,-1.55,53.59,Anti-social behaviour\n"
        let path = try dir.file(
            "dups.csv",
            Self.header + asb + other + asb + "x1,2018-07,WY,-1.550626,53.5974,Anti-social behaviour\n" + asb + other)
        let keys = try ingest(path).incidents.map(\.key)
        let a = hex16("1530403200|53.5974|-1.550626|Anti-social behaviour")
        let b = hex16("1530403200|53.59|-1.55|Anti-social behaviour")
        #expect(keys == ["h:\(a):1", "h:\(b):1", "h:\(a):2", "x1", "h:\(a):3", "h:\(b):2"])

        // Ordinals restart with every file: ingesting it again gives the same keys.
        #expect(try ingest(path).incidents.map(\.key) == keys)
        // A rejected record does not take an ordinal.
        let withReject = try dir.file(
            "dups2.csv", Self.header + asb + ",2018-07,WY,,53.5974,Anti-social behaviour\n" + asb)
        #expect(try ingest(withReject).incidents.map(\.key) == ["h:\(a):1", "h:\(a):2"])
    }

    @Test("--source prefixes derived keys too")
    func sourcePrefixDerived() throws {
        let dir = try TempDir()
        let path = try dir.file("asb.csv", Self.header + ",2018-07,WY,-1.550626,53.5974,Anti-social behaviour\n")
        var options = IngestOptions()
        options.source = "police"
        #expect(try ingest(path, options: options).incidents.map(\.key) == ["police:h:54a9ccf0703064f4:1"])
    }

    @Test("--idless append: keys carry the file's SHA-256, so the same row in two files gives two keys")
    func appendMode() throws {
        let dir = try TempDir()
        let asb = ",2018-07,WY,-1.550626,53.5974,Anti-social behaviour\n"
        let monday = try dir.file("monday.csv", Self.header + asb + asb)
        let tuesday = try dir.file("tuesday.csv", Self.header + asb + "id-7,2018-07,WY,-1.5,53.5,Burglary\n")
        var options = IngestOptions()
        options.idless = .append
        let m = try ingest(monday, options: options)
        let t = try ingest(tuesday, options: options)
        let mSHA = try FileDigest.sha256(path: monday).hex
        let tSHA = try FileDigest.sha256(path: tuesday).hex
        #expect(
            m.incidents.map(\.key) == [
                "h:54a9ccf0703064f4:1:\(mSHA.prefix(16))", "h:54a9ccf0703064f4:2:\(mSHA.prefix(16))"
            ])
        #expect(t.incidents.map(\.key) == ["h:54a9ccf0703064f4:1:\(tSHA.prefix(16))", "id-7"])

        // Into one table: the same-looking row of Tuesday is a new incident, not a duplicate.
        var builder = IncidentColumnsBuilder()
        let first = try ingest(monday, options: options, into: &builder)
        let second = try ingest(tuesday, options: options, into: &builder)
        #expect(first.report.inserted == 2)
        #expect(second.report.inserted == 2 && second.report.duplicates == 0)
        #expect(builder.columns.count == 4)

        // In snapshot mode the same two files share the first row.
        var snapshot = IncidentColumnsBuilder()
        _ = try ingest(monday, into: &snapshot)
        let again = try ingest(tuesday, into: &snapshot)
        #expect(again.report.duplicates == 1 && again.report.inserted == 1)
        #expect(snapshot.columns.count == 3)
    }

    @Test("re-ingesting the same file: every record is a duplicate, identical id-less rows included")
    func reingestSnapshot() throws {
        let dir = try TempDir()
        let asb = ",2018-07,WY,-1.550626,53.5974,Anti-social behaviour\n"
        let path = try dir.file("snap.csv", Self.header + asb + asb + asb + "c1,2018-07,WY,-1.5,53.5,Burglary\n")
        var builder = IncidentColumnsBuilder(keepKeys: true)
        let first = try ingest(path, into: &builder)
        #expect(first.report.inserted == 4 && first.report.accepted == 4)
        let second = try ingest(path, into: &builder)
        #expect(second.report.inserted == 0 && second.report.duplicates == 4 && second.report.updated == 0)
        #expect(builder.columns.count == 4)
        #expect(builder.columns.keys == ["h:54a9ccf0703064f4:1", "h:54a9ccf0703064f4:2", "h:54a9ccf0703064f4:3", "c1"])
    }

    /// Every stored field counts as content (SPEC §4): a change to any one of them is an update,
    /// the same content is a duplicate, and the later record wins.
    @Test("duplicate vs update through IncidentColumnsBuilder, field by field")
    func duplicateVersusUpdate() throws {
        let dir = try TempDir()
        let base =
            #"{"id": "p1", "latitude": 53.7, "longitude": -1.8, "timestamp": 1529971200, "category": "c", "policeArrived": false, "description": "d", "user": "u", "note": "n"}"#
        let variants: [(String, String)] = [
            ("same", base),
            (
                "same, other member order",
                #"{"note": "n", "user": "u", "description": "d", "policeArrived": false, "category": "c", "timestamp": 1529971200, "longitude": -1.8, "latitude": 53.7, "id": "p1"}"#
            ),
            ("description", base.replacingOccurrences(of: #""description": "d""#, with: #""description": "edited""#)),
            ("handled", base.replacingOccurrences(of: "false", with: "true")),
            ("handled unknown", base.replacingOccurrences(of: #""policeArrived": false, "#, with: "")),
            ("time", base.replacingOccurrences(of: "1529971200", with: "1529971201")),
            // 2018-06-26 is 1529971200 too: only the precision differs (day instead of second).
            ("precision", base.replacingOccurrences(of: "1529971200", with: "\"2018-06-26\"")),
            ("lat", base.replacingOccurrences(of: "53.7", with: "53.70001")),
            ("lon", base.replacingOccurrences(of: "-1.8", with: "-1.80001")),
            ("category", base.replacingOccurrences(of: #""category": "c""#, with: #""category": "C""#)),
            ("user", base.replacingOccurrences(of: #""user": "u""#, with: #""user": "v""#)),
            ("attribute", base.replacingOccurrences(of: #""note": "n""#, with: #""note": "m""#)),
            ("attribute removed", base.replacingOccurrences(of: #", "note": "n""#, with: ""))
        ]
        for (name, variant) in variants {
            var builder = IncidentColumnsBuilder()
            let a = try dir.file("a.ndjson", base + "\n")
            let b = try dir.file("b.ndjson", variant + "\n")
            let first = try ingest(a, into: &builder)
            #expect(first.report.inserted == 1)
            let second = try ingest(b, into: &builder)
            let isSame = name.hasPrefix("same")
            #expect(second.report.duplicates == (isSame ? 1 : 0), "\(name)")
            #expect(second.report.updated == (isSame ? 0 : 1), "\(name)")
            #expect(second.report.inserted == 0, "\(name)")
            #expect(builder.columns.count == 1, "\(name)")
        }
    }

    @Test("an update replaces the stored values: the later export wins")
    func laterWins() throws {
        let dir = try TempDir()
        var builder = IncidentColumnsBuilder(groupBy: "ward")
        let a = try dir.file(
            "a.json",
            #"{"posts": {"p1": {"latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000, "policeArrived": false, "ward": "Town"}}}"#
        )
        let b = try dir.file(
            "b.json",
            #"{"posts": {"p1": {"latitude": 53.8, "longitude": -1.9, "timestamp": 1530000600, "policeArrived": true, "ward": "Park"}}}"#
        )
        _ = try ingest(a, into: &builder)
        #expect(builder.columns.groupValues[Int(builder.columns.group[0])] == "Town")
        let second = try ingest(b, into: &builder)
        #expect(second.report.updated == 1)
        let c = builder.columns
        #expect(c.count == 1)
        #expect(c.lat == [53.8] && c.lon == [-1.9] && c.time == [1_530_000_600] && c.handled == [1])
        #expect(c.groupValues[Int(c.group[0])] == "Park")
        // Back to the first content: an update again, not a duplicate of a forgotten state.
        let third = try ingest(a, into: &builder)
        #expect(third.report.updated == 1)
        #expect(builder.columns.lat == [53.7])
    }

    @Test("the same key twice in one file: the second is a duplicate or an update of the first")
    func sameKeyInOneFile() throws {
        let dir = try TempDir()
        let path = try dir.file(
            "twice.csv",
            "id,latitude,longitude,timestamp,description\n"
                + "k,53.7,-1.8,1530000000,a\nk,53.7,-1.8,1530000000,a\nk,53.7,-1.8,1530000000,b\n")
        var builder = IncidentColumnsBuilder()
        let result = try ingest(path, into: &builder)
        #expect(result.report.inserted == 1 && result.report.duplicates == 1 && result.report.updated == 1)
        #expect(result.report.accepted == 3)
    }

    @Test("a map id and an array id of the same text are the same key")
    func keyAcrossShapes() throws {
        let dir = try TempDir()
        let map = try dir.file(
            "map.json", #"{"posts": {"-Kx": {"latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000}}}"#)
        let array = try dir.file(
            "array.json", #"[{"postId": "-Kx", "latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000}]"#)
        var builder = IncidentColumnsBuilder()
        _ = try ingest(map, into: &builder)
        let second = try ingest(array, into: &builder)
        #expect(second.report.duplicates == 1)
    }
}
