import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchIngest

/// SPEC §2.3: field names matched ignoring case, spaces, `_` and `-`; earlier alias wins; the
/// first of equal names; `--column` overrides; unmatched columns kept as canonical attributes.
@Suite("Field names and attributes")
struct FieldNameTests {
    @Test("names are matched ignoring case, spaces, _ and -")
    func normalisation() throws {
        let dir = try TempDir()
        let text =
            "Crime ID,LATITUDE,Long-i_tude, Occurred At ,CRIME_TYPE,Police-Arrived,Description,USER\n"
            + "x1,53.7,-1.8,2018-07-01T10:00:00Z,Burglary,Y,went in,u9\n"
        let result = try ingest(try dir.file("names.csv", text))
        let incident = try #require(result.incident("x1"))
        #expect(incident.lat == 53.7 && incident.lon == -1.8)
        #expect(incident.time == epoch(2018, 7, 1, 10))
        #expect(incident.category == "Burglary")
        #expect(incident.handled == true)
        #expect(incident.description == "went in")
        #expect(incident.user == "u9")
        #expect(incident.attributes == nil)
    }

    /// One column per accepted name of §2.3, each alone in a file, fills its field.
    @Test(
        "every alias of the SPEC table",
        arguments: [
            ("lat", ["latitude", "lat", "y"]),
            ("lon", ["longitude", "lon", "lng", "long", "x"]),
            ("time", ["timestamp", "time", "datetime", "date", "occurredat", "occurrencedate", "reportedat", "month"]),
            ("id", ["id", "_id", "crimeid", "incidentid", "postid", "eventid"]),
            ("category", ["category", "type", "crimetype", "offense", "offence", "mci"]),
            ("handled", ["handled", "policearrived"])
        ])
    func aliases(field: String, names: [String]) throws {
        let dir = try TempDir()
        for name in names {
            var header = [
                "LAT": "53.5", "LON": "-1.5", "TIME": "1530000000", "ID": "the-id", "CAT": "the-cat", "HANDLED": "no"
            ]
            let slot = [
                "lat": "LAT", "lon": "LON", "time": "TIME", "id": "ID", "category": "CAT", "handled": "HANDLED"
            ][field]!
            let value = header.removeValue(forKey: slot)!
            // The other fields under their first alias; the tested field under `name`.
            let first = [
                "LAT": "latitude", "LON": "longitude", "TIME": "timestamp", "ID": "id", "CAT": "category",
                "HANDLED": "handled"
            ]
            let columns = header.keys.sorted().map { (first[$0]!, header[$0]!) } + [(name, value)]
            let text = columns.map(\.0).joined(separator: ",") + "\n" + columns.map(\.1).joined(separator: ",") + "\n"
            let result = try ingest(try dir.file("alias.csv", text))
            let incident = try #require(result.incidents.first, "\(name)")
            #expect(incident.attributes == nil, "\(name) matched no field")
            #expect(incident.key == "the-id" && incident.lat == 53.5 && incident.lon == -1.5, "\(name)")
            #expect(
                incident.time == 1_530_000_000 && incident.category == "the-cat" && incident.handled == false, "\(name)"
            )
        }
    }

    @Test("the earlier name of the table wins, wherever its column is")
    func earlierAliasWins() throws {
        let dir = try TempDir()
        // `date` comes first in the row, but `timestamp` is earlier in the table.
        let text =
            "date,latitude,longitude,Timestamp,type,Category,y,lng,x,long\n"
            + "2001-01-01,53.7,-1.8,2018-07-01T10:00:00Z,t,c,1,2,3,4\n"
        let result = try ingest(try dir.file("rank.csv", text))
        let incident = try #require(result.incidents.first)
        #expect(incident.time == epoch(2018, 7, 1, 10))
        #expect(incident.category == "c")
        #expect(incident.lat == 53.7 && incident.lon == -1.8)
        #expect(incident.attributes == #"{"date":"2001-01-01","lng":"2","long":"4","type":"t","x":"3","y":"1"}"#)

        // In JSON too, whatever the member order.
        let json = try dir.file(
            "rank.json",
            #"[{"date": "2001-01-01", "lat": 1, "latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000}]"#)
        let j = try #require(try ingest(json).incidents.first)
        #expect(j.time == 1_530_000_000 && j.lat == 53.7)
        #expect(j.attributes == #"{"date":"2001-01-01","lat":"1"}"#)
    }

    @Test("among columns with the same name, the first")
    func firstOfEqualNames() throws {
        let dir = try TempDir()
        let text = "latitude,longitude,timestamp,Latitude,note,note\n53.1,-1.8,1530000000,99,first,second\n"
        let incident = try #require(try ingest(try dir.file("dup.csv", text)).incidents.first)
        #expect(incident.lat == 53.1)
        #expect(incident.attributes == #"{"Latitude":"99","note":"first"}"#)

        let json = try dir.file(
            "dup.json",
            #"[{"latitude": 53.1, "longitude": -1.8, "timestamp": 1530000000, "latitude": 99, "note": "first", "note": "second"}]"#
        )
        let j = try #require(try ingest(json).incidents.first)
        #expect(j.lat == 53.1)
        #expect(j.attributes == #"{"latitude":"99","note":"first"}"#)
    }

    @Test("--column field=Header overrides the table")
    func columnOverride() throws {
        let dir = try TempDir()
        let text = "North,East,When,timestamp,Ref,Kind,latitude\n53.7,-1.8,2018-07-01,1530000000,R-1,k,10\n"
        let path = try dir.file("override.csv", text)
        var options = IngestOptions()
        options.reader.columns = ColumnOverrides([
            .lat: "north", .lon: "EAST", .time: "When", .id: "ref", .category: "kind"
        ])
        let incident = try #require(try ingest(path, options: options).incidents.first)
        #expect(incident.key == "R-1")
        #expect(incident.lat == 53.7 && incident.lon == -1.8)
        #expect(incident.time == epoch(2018, 7, 1) && incident.precision == .day, "When, not timestamp")
        #expect(incident.category == "k")
        #expect(incident.attributes == #"{"latitude":"10","timestamp":"1530000000"}"#)

        // JSON members too.
        let json = try dir.file(
            "override.json",
            #"[{"north": 53.7, "East": -1.8, "When": "2018-07-01", "#
                + #""timestamp": 1530000000, "Ref": "R-2", "kind": "k"}]"#)
        let j = try #require(try ingest(json, options: options).incidents.first)
        #expect(j.key == "R-2" && j.time == epoch(2018, 7, 1))
        #expect(j.attributes == #"{"timestamp":"1530000000"}"#)
    }

    @Test("--column parsing")
    func columnParsing() {
        let north = ColumnOverrides.parse("lat=North")
        #expect(north?.0 == .lat && north?.1 == "North")
        let date = ColumnOverrides.parse("TIME=Date of offence")
        #expect(date?.0 == .time && date?.1 == "Date of offence")
        let equals = ColumnOverrides.parse("handled=a=b")
        #expect(equals?.0 == .handled && equals?.1 == "a=b")
        #expect(ColumnOverrides.parse("lat=") == nil)
        #expect(ColumnOverrides.parse("colour=Red") == nil)
        #expect(ColumnOverrides.parse("lat") == nil)
        // A `+` with a blank side names no second column (and no column named `+`).
        for text in ["time=+", "time=Date+", "time=+Time", "time= + "] {
            #expect(ColumnOverrides.parse(text) == nil, "\(text)")
        }
        #expect(ColumnOverrides.parse("time=Date+Time")?.1 == "Date+Time")
        #expect(ColumnOverrides.parse("handled=+1")?.1 == "+1", "only the time joins two columns")
        do {
            _ = try ColumnOverrides.checked("colour=Red")
            Issue.record("an unknown field was accepted")
        } catch {
            #expect(error.description.contains("unknown field 'colour'"))
        }
        // Two fields from one column.
        #expect(ColumnOverrides([.id: "Ref", .category: "r-e-f"]).problem?.contains("name the same column") == true)
        #expect(ColumnOverrides([.time: "Date+Time", .id: "date"]).problem != nil)
        #expect(ColumnOverrides([.time: "Date+Time", .id: "Ref"]).problem == nil)
    }

    @Test("unmatched columns: canonical JSON, keys in byte order, empty values dropped, escapes")
    func attributes() throws {
        let dir = try TempDir()
        let text =
            "zeta,latitude,longitude,timestamp,Alpha,mid,empty,blank,b\n"
            + "z,53.7,-1.8,1530000000,A,\"q\"\"uote\\back\nline\",,   ,é\n"
            + "z,53.7,-1.8,1530000000,,,,,\n"
        let result = try ingest(try dir.file("attrs.csv", text))
        #expect(result.incidents.count == 2)
        #expect(result.incidents[0].attributes == #"{"Alpha":"A","b":"é","mid":"q\"uote\\back\nline","zeta":"z"}"#)
        #expect(result.incidents[1].attributes == #"{"zeta":"z"}"#)
        // The text is JSON: Foundation reads it back to the same strings.
        let data = Data(result.incidents[0].attributes!.utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: String])
        #expect(object == ["Alpha": "A", "b": "é", "mid": "q\"uote\\back\nline", "zeta": "z"])
    }

    @Test("JSON attributes: numbers, booleans and nested values as text, null dropped, sorted")
    func jsonAttributes() throws {
        let dir = try TempDir()
        let text =
            #"[{"zz": 1.50, "latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000, "flag": false, "none": null, "nested": {"a": [1,2]}, "Ward": "Town"}]"#
        let incident = try #require(try ingest(try dir.file("a.json", text)).incidents.first)
        #expect(incident.attributes == #"{"Ward":"Town","flag":"false","nested":"{\"a\": [1,2]}","zz":"1.50"}"#)
    }

    @Test("the same content gives the same attribute text whatever the column or member order")
    func canonicalOrder() throws {
        let dir = try TempDir()
        let a = try dir.file("a.csv", "latitude,longitude,timestamp,b,a,c\n53.7,-1.8,1530000000,2,1,3\n")
        let b = try dir.file("b.csv", "c,a,timestamp,b,longitude,latitude\n3,1,1530000000,2,-1.8,53.7\n")
        let c = try dir.file(
            "c.json", #"{"c": "3", "latitude": 53.7, "a": 1, "b": "2", "longitude": -1.8, "timestamp": 1530000000}"#)
        let texts = try [a, b, c].map { try ingest($0).incidents.first?.attributes }
        #expect(texts == [#"{"a":"1","b":"2","c":"3"}"#, #"{"a":"1","b":"2","c":"3"}"#, #"{"a":"1","b":"2","c":"3"}"#])
        // And the same key, since id-less keys do not depend on attributes.
        let keys = try [a, b, c].map { try ingest($0).incidents.first?.key }
        #expect(Set(keys).count == 1)
    }
}
