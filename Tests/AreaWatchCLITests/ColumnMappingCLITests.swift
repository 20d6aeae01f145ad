import AreaWatchTestSupport
import Foundation
import Testing

/// Silent wrong answers of the hardening review: a `--column` to a column the file lacks, the
/// portals' category columns, and `--group-by` on a field no incident has.
@Suite("column mappings and field names", .timeLimit(.minutes(60)))
struct ColumnMappingCLITests {
    static let export = """
        IncidentID,lat,lon,time,category
        A,53.7200,-1.8600,2018-05-01T10:00:00Z,Burglary
        B,53.7210,-1.8610,2018-05-02T11:00:00Z,Robbery

        """
    /// The next day's export: A edited (its category), nothing new.
    static let edits = """
        IncidentID,lat,lon,time,category
        A,53.7200,-1.8600,2018-05-01T10:00:00Z,Theft

        """

    /// Before: the misspelt mapping was accepted, the ids ignored, and A's edit stored as a new
    /// incident (3 stored instead of 2).
    @Test("--column id=IncidentID_typo is a usage error naming the column and the closest one; nothing is stored")
    func misspeltIdColumn() throws {
        let tmp = try TempDir()
        let db = tmp.sub("s.db")
        let day1 = try tmp.file("day1.csv", Self.export), day2 = try tmp.file("day2.csv", Self.edits)
        try areawatchOK(["ingest", day1, "--db", db, "--column", "id=IncidentID", "--quiet"])
        let r = try areawatch(["ingest", day2, "--db", db, "--column", "id=IncidentID_typo"])
        #expect(r.status == 1, "\(r)")
        #expect(
            r.stderrLines.contains {
                $0.contains(
                    "day2.csv: line 1: --column id=IncidentID_typo: the CSV header has no column "
                        + "'IncidentID_typo'; "
                        + "the closest is 'IncidentID' (columns: IncidentID, lat, lon, time, category)")
            }, "\(r)")
        #expect(try StoreProbe.snapshot(db).count == 2)
        #expect(try StoreProbe.snapshot(db).ingestedFiles == [day1])
        // The right mapping: the edit updates A.
        try areawatchOK(["ingest", day2, "--db", db, "--column", "id=IncidentID", "--quiet"])
        #expect(try StoreProbe.snapshot(db).count == 2)
        #expect(try StoreProbe.strings(db, "SELECT category FROM incidents ORDER BY key") == ["Theft", "Robbery"])
    }

    @Test("several files: a mapping one header lacks stops the ingest before anything is stored")
    func checkedBeforeAnythingIsStored() throws {
        let tmp = try TempDir()
        let good = try tmp.file("a.csv", Self.export)
        let other = try tmp.file("b.csv", Self.export.replacingOccurrences(of: "IncidentID", with: "Ref"))
        let r = try areawatch(["ingest", good, other, "--db", tmp.sub("s.db"), "--column", "id=IncidentID"])
        #expect(r.status == 1, "\(r)")
        #expect(
            r.stderr.contains(
                "b.csv: line 1: --column id=IncidentID: the CSV header has no column 'IncidentID'; "
                    + "the closest is '"),
            "\(r)")
        #expect(r.stderr.contains("(columns: Ref, lat, lon, time, category)"), "\(r)")
        #expect(!exists(tmp.sub("s.db")) && !exists(tmp.sub("s.db.new")), "\(listFolder(tmp.path))")
    }

    @Test("--column category=Nope no longer drops every category")
    func missingCategoryColumn() throws {
        let tmp = try TempDir()
        let file = try tmp.file("a.csv", Self.export)
        let r = try areawatch([
            "report", "--input", file, "--out", tmp.sub("out"), "--as-of", Datasets.asOf,
            "--column", "category=Nope"
        ])
        #expect(r.status == 1, "\(r)")
        #expect(
            r.stderr.contains("--column category=Nope: the CSV header has no column 'Nope'; the closest is '"),
            "\(r)")
        #expect(!exists(tmp.sub("out")))
    }

    @Test("JSON: a mapping no record has a member for is a usage error once the file is read; nothing of it is kept")
    func jsonMapping() throws {
        let tmp = try TempDir()
        let json = try tmp.file(
            "a.json",
            """
            [{"IncidentID": "A", "lat": 53.72, "lon": -1.86, "time": "2018-05-01T10:00:00Z"},
             {"IncidentID": "B", "lat": 53.721, "lon": -1.861, "time": "2018-05-02T11:00:00Z", "Ward": "Park"}]
            """)
        let db = tmp.sub("s.db")
        let r = try areawatch(["ingest", json, "--db", db, "--column", "id=IncidentID_typo"])
        #expect(r.status == 1, "\(r)")
        #expect(
            r.stderr.contains(
                "a.json: --column id=IncidentID_typo: no record of the file (2 read) has a member "
                    + "'IncidentID_typo'; the closest is 'IncidentID'"), "\(r)")
        #expect(try StoreProbe.snapshot(db).count == 0)
        // A member only some records have is a member of the file.
        try areawatchOK(["ingest", json, "--db", db, "--column", "category=Ward", "--quiet"])
        let categories = try StoreProbe.strings(db, "SELECT coalesce(category, '-') FROM incidents ORDER BY key")
        #expect(categories == ["-", "Park"])
    }

    @Test("[[inbox.files]] columns are checked the same way: the file is not ingested and the run exits 1")
    func inboxFileMapping() throws {
        let tmp = try TempDir()
        try tmp.file("inbox/a.csv", Self.export)
        try tmp.file("inbox/nyc/b.csv", Self.export.replacingOccurrences(of: "IncidentID", with: "CMPLNT_NUM"))
        let config = try tmp.file(
            "job.toml",
            """
            store = "s.db"
            out = "out"
            [inbox]
            include = ["*.csv", "nyc/*.csv"]
            [[inbox.files]]
            pattern = "nyc/*.csv"
            columns = ["id=CMPLNT_NUMBER"]
            [query]
            as_of = "\(Datasets.asOf)"
            """)
        let r = try areawatch(["run", "--config", config])
        #expect(r.status == 1, "\(r)")
        #expect(
            r.stderr.contains(
                "nyc/b.csv: line 1: --column id=CMPLNT_NUMBER: the CSV header has no column "
                    + "'CMPLNT_NUMBER'; "
                    + "the closest is 'CMPLNT_NUM'"), "\(r)")
        #expect(try StoreProbe.snapshot(tmp.sub("s.db")).ingestedFiles == [tmp.sub("inbox/a.csv")])
    }

    /// Before: `time=+` looked for a column named `+`, every record was missing_time, and the
    /// message blamed the file ("every record was rejected").
    @Test(
        "--column time=+, time=Date+ and time=+Time are usage errors",
        arguments: ["time=+", "time=Date+", "time=+Time", "time= + "])
    func emptyTimeParts(_ mapping: String) throws {
        let tmp = try TempDir()
        let file = try tmp.file("a.csv", "id,Date,Time,lat,lon\na,2018-05-01,10:00,53.72,-1.86\n")
        let r = try areawatch(["ingest", file, "--db", tmp.sub("s.db"), "--column", mapping])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("time=DATE+TIME needs two column names"), "\(r)")
        #expect(!r.stderr.contains("every record"), "\(r)")
        #expect(!exists(tmp.sub("s.db")))
    }

    @Test("two mappings to one column are a usage error")
    func oneColumnTwoFields() throws {
        let tmp = try TempDir()
        let file = try tmp.file("a.csv", Self.export)
        let r = try areawatch([
            "ingest", file, "--db", tmp.sub("s.db"), "--column", "id=IncidentID",
            "--column", "category=incident_id"
        ])
        #expect(r.status == 1 && r.stderr.contains("name the same column"), "\(r)")
    }

    /// First hour: Chicago's `Primary Type`, New York's `OFNS_DESC`, `offense`/`offence` and
    /// `incident_type` are the category without any option (SPEC §2.3).
    @Test(
        "the portals' category columns are read as the category",
        arguments: [
            "Primary Type", "OFNS_DESC", "offense", "Offence", "incident_type", "Crime type"
        ])
    func portalCategoryNames(_ header: String) throws {
        let tmp = try TempDir()
        let rows = "a,53.72,-1.86,2018-05-01,THEFT\nb,53.72,-1.86,2018-05-02,ROBBERY\n"
        let file = try tmp.file("a.csv", "id,lat,lon,time,\(header)\n" + rows)
        let db = tmp.sub("s.db")
        try areawatchOK(["ingest", file, "--db", db, "--quiet"])
        #expect(try StoreProbe.strings(db, "SELECT category FROM incidents ORDER BY key") == ["THEFT", "ROBBERY"])
        #expect(try StoreProbe.strings(db, "SELECT coalesce(attrs, '') FROM incidents ORDER BY key") == ["", ""])
    }

    @Test("a file with both `type` and `Primary Type` takes `type` (the older name ranks first)")
    func aliasOrder() throws {
        let tmp = try TempDir()
        let file = try tmp.file("a.csv", "id,lat,lon,time,Primary Type,type\na,53.72,-1.86,2018-05-01,THEFT,street\n")
        let db = tmp.sub("s.db")
        try areawatchOK(["ingest", file, "--db", db, "--quiet"])
        let stored = try StoreProbe.strings(db, "SELECT category || ' ' || attrs FROM incidents")
        #expect(stored == [#"street {"Primary Type":"THEFT"}"#])
    }

    @Test("--group-by a field no incident has is a usage error, for files and for a store")
    func groupByMissingField() throws {
        let tmp = try TempDir()
        let file = try tmp.file("a.csv", "id,lat,lon,time,Primary Type,Ward\na,53.72,-1.86,2018-05-01,THEFT,Park\n")
        let out = tmp.sub("out")
        func report(_ source: [String], _ field: String) throws -> CommandResult {
            try areawatch(
                ["report"] + source + [
                    "--out", out, "--as-of", Datasets.asOf, "--tile-zooms", "none",
                    "--group-by", field
                ])
        }
        let typo = try report(["--input", file], "Wrad")
        #expect(typo.status == 1, "\(typo)")
        #expect(typo.stderr.contains("--group-by Wrad: no incident has a column of that name (1 incidents)"), "\(typo)")
        let renamed = try report(["--input", file], "Primary Type")
        #expect(renamed.status == 1 && renamed.stderr.contains("read as the category field (SPEC §2.3)"), "\(renamed)")
        #expect(renamed.stderr.contains("group by category"), "\(renamed)")
        #expect(!exists(out))
        try areawatchOK([
            "report", "--input", file, "--out", out, "--as-of", Datasets.asOf, "--tile-zooms", "none",
            "--group-by", "Ward", "--quiet"
        ])
        #expect(try readText(out + "/breakdown.csv").contains("Park"))

        let db = tmp.sub("s.db")
        try areawatchOK(["ingest", file, "--db", db, "--quiet"])
        let stored = try report(["--db", db], "Wrad")
        #expect(stored.status == 1 && stored.stderr.contains("no incident has a column of that name"), "\(stored)")
        let watchme = try tmp.file(
            "w.json",
            #"[{"id": "p", "latitude": 53.72, "longitude": -1.86, "timestamp": 1525168800}]"#)
        let noCategory = try report(["--input", watchme], "category")
        #expect(noCategory.status == 1 && noCategory.stderr.contains("no incident has a category"), "\(noCategory)")
    }
}
