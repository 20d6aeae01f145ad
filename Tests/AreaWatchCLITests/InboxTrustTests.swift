import AreaWatchTestSupport
import Foundation
import Glibc
import Testing

/// The hardening review: the inbox is where other parties drop files, so the nightly job must
/// not trust what it finds there — links out of it, link loops, dangling links, FIFOs — and must
/// say what it skipped. Each test runs `areawatch run` on a real folder tree.
@Suite("the inbox as a trust boundary", .timeLimit(.minutes(60)))
struct InboxTrustTests {
    static func incidents(_ ids: [String], lat: Double = 53.72) -> String {
        "id,lat,lon,time,category\n"
            + ids.enumerated().map { k, id in
                "\(id),\(lat + Double(k) * 0.001),-1.86,2018-05-0\(k % 9 + 1),Burglary\n"
            }.joined()
    }

    /// A job over `inbox/` with the given `[inbox]` lines; the store is `s.db`, the report `out`.
    static func job(_ tmp: TempDir, inbox: String = "") throws -> String {
        try tmp.file(
            "job.toml",
            """
            store = "s.db"
            out = "out"
            [inbox]
            folder = "inbox"
            \(inbox)
            [query]
            as_of = "\(Datasets.asOf)"
            [report]
            tile_zooms = "none"
            """)
    }

    static func symlink(_ target: String, _ link: String) throws {
        let made = Glibc.symlink(target, link) == 0
        let reason = String(cString: strerror(errno))
        try #require(made, "symlink \(link) -> \(target): \(reason)")
    }

    /// Before: `ln -s . inbox/loop` made the walk follow loop/loop/loop/… (every folder below it
    /// again, through each link: exponential) with the store's lock held and `s.db.new` created.
    @Test("a link loop in the inbox ends its branch with a line on stderr; the run finishes at once")
    func linkLoop() throws {
        let tmp = try TempDir()
        try tmp.file("inbox/a.csv", Self.incidents(["a1", "a2"]))
        try tmp.file("inbox/sub/b.csv", Self.incidents(["b1"], lat: 53.73))
        try Self.symlink(".", tmp.sub("inbox/loop"))
        try Self.symlink("..", tmp.sub("inbox/sub/up"))
        try Self.symlink("../sub", tmp.sub("inbox/sub/again"))
        let config = try Self.job(tmp, inbox: "include = [\"**/*.csv\"]")
        let r = try areawatch(["run", "--config", config], timeout: 60)
        #expect(r.status == 0, "\(r)")
        #expect(r.seconds < 30, "the walk took \(r.seconds) s")
        let loop = "inbox/loop: skipped: a loop: it leads back to the inbox folder itself"
        #expect(r.stderrLines.contains { $0.contains(loop) }, "\(r)")
        #expect(r.stderrLines.contains { $0.contains("inbox/sub/up: skipped: a loop") }, "\(r)")
        #expect(r.stderrLines.contains { $0.contains("inbox/sub/again: skipped: a loop") }, "\(r)")
        let stored = try StoreProbe.snapshot(tmp.sub("s.db"))
        #expect(stored.ingestedFiles == [tmp.sub("inbox/a.csv"), tmp.sub("inbox/sub/b.csv")], "\(stored)")
        #expect(stored.count == 3)
        #expect(!exists(tmp.sub("s.db.new")))
    }

    @Test("a walk that fails leaves neither the store nor s.db.new behind")
    func failedWalkLeavesNoStore() throws {
        let tmp = try TempDir()
        let config = try Self.job(tmp)
        let r = try areawatch(["run", "--config", config])
        #expect(r.status == 2 && r.stderr.contains("inbox: the inbox folder does not exist"), "\(r)")
        #expect(!exists(tmp.sub("s.db")) && !exists(tmp.sub("s.db.new")), "\(listFolder(tmp.path))")
    }

    /// Before: `ln -s /etc/shadow inbox/leak.csv` was ingested as a CSV and its first line came
    /// back in the error ("CSV header has no latitude/longitude columns (columns: root:…)").
    @Test("links out of the inbox are not followed, and a file of other content is never echoed")
    func linksOutside() throws {
        let tmp = try TempDir()
        let secret = try tmp.file("private/shadow", "root:SECRET-HASH-1234:19000:0:99999:7:::\ndaemon:*:19000::::::\n")
        let outsideCSV = try tmp.file("private/other.csv", Self.incidents(["o1"], lat: 53.74))
        try tmp.file("inbox/a.csv", Self.incidents(["a1"]))
        try Self.symlink(secret, tmp.sub("inbox/leak.csv"))
        try Self.symlink("../private/other.csv", tmp.sub("inbox/other.csv"))
        try Self.symlink(tmp.sub("private"), tmp.sub("inbox/folder"))
        let config = try Self.job(tmp, inbox: "include = [\"*.csv\", \"folder/*\"]")
        let r = try areawatch(["run", "--config", config])
        #expect(r.status == 0, "\(r)")
        for link in ["leak.csv", "other.csv", "folder"] {
            let line = "inbox/\(link): skipped: a link to outside the inbox (not followed"
            #expect(r.stderrLines.contains { $0.contains(line) }, "\(r)")
        }
        #expect(!r.stderr.contains("SECRET") && !r.stdout.contains("SECRET"), "\(r)")
        #expect(try StoreProbe.snapshot(tmp.sub("s.db")).ingestedFiles == [tmp.sub("inbox/a.csv")])

        // Allowed by the config: followed; the shadow file is an input error that does not quote it.
        let allowing = try Self.job(tmp, inbox: "include = [\"*.csv\"]\nfollow_links_outside = true")
        let followed = try areawatch(["run", "--config", allowing])
        #expect(followed.status == 2, "\(followed)")
        #expect(
            followed.stderrLines.contains { $0.contains("inbox/leak.csv: line 1: not a CSV file of incidents") },
            "\(followed)")
        #expect(!followed.stderr.contains("SECRET") && !followed.stdout.contains("SECRET"), "\(followed)")
        let afterwards = try StoreProbe.snapshot(tmp.sub("s.db")).ingestedFiles
        #expect(afterwards == [tmp.sub("inbox/a.csv"), tmp.sub("inbox/other.csv")])
        #expect(exists(outsideCSV))

        // The same file named on the command line: the same message, nothing of it shown.
        let direct = try areawatch(["ingest", secret, "--db", tmp.sub("direct.db")])
        #expect(direct.status == 2, "\(direct)")
        #expect(!direct.stderr.contains("SECRET") && !direct.stdout.contains("SECRET"), "\(direct)")
        #expect(direct.stderr.contains("its first line is one field when split at ',' (not shown)"), "\(direct)")
    }

    @Test("links inside the inbox are followed; dangling links and FIFOs are listed with their reason")
    func skippedEntriesAreListed() throws {
        let tmp = try TempDir()
        try tmp.file("inbox/2018/may.csv", Self.incidents(["m1", "m2"]))
        try tmp.file("inbox/notes.txt", "not matched, not mentioned\n")
        try Self.symlink("2018/may.csv", tmp.sub("inbox/latest.csv"))
        try Self.symlink("2018", tmp.sub("inbox/current"))
        try Self.symlink("gone.csv", tmp.sub("inbox/dangling.csv"))
        try Self.symlink("gone.txt", tmp.sub("inbox/dangling.txt"))
        #expect(mkfifo(tmp.sub("inbox/pipe.csv"), 0o600) == 0)
        let config = try Self.job(tmp, inbox: "include = [\"*.csv\", \"current/*.csv\"]")
        let r = try areawatch(["run", "--config", config], timeout: 60)
        #expect(r.status == 0, "\(r)")
        let dangling = "inbox/dangling.csv: skipped: a dangling link (its target does not exist)"
        #expect(r.stderrLines.contains { $0.hasSuffix(dangling) }, "\(r)")
        #expect(r.stderrLines.contains { $0.hasSuffix("inbox/pipe.csv: skipped: not a regular file (a FIFO)") }, "\(r)")
        #expect(
            !r.stderr.contains("dangling.txt") && !r.stderr.contains("notes.txt"),
            "an entry no pattern names is not news: \(r)")
        let stored = try StoreProbe.snapshot(tmp.sub("s.db"))
        // current/may.csv is read first (path order); latest.csv then has the same SHA-256 and is skipped.
        #expect(stored.ingestedFiles == [tmp.sub("inbox/current/may.csv")], "\(stored)")
        #expect(stored.count == 2)
        #expect(r.stderr.contains("inbox/latest.csv: already ingested"), "\(r)")
    }

    @Test("a folder reached through a second link is walked once; the walk stops 32 folders down")
    func secondLinkAndDepth() throws {
        let tmp = try TempDir()
        try tmp.file("inbox/a/x.csv", Self.incidents(["x"]))
        try Self.symlink("a", tmp.sub("inbox/b1"))
        try Self.symlink("a", tmp.sub("inbox/b2"))
        let deep = (1...33).map { "d\($0)" }.joined(separator: "/")
        let deepest = (1...32).map { "d\($0)" }.joined(separator: "/")
        try tmp.file("inbox/" + deep + "/y.csv", Self.incidents(["y"], lat: 53.73))
        try tmp.file("inbox/" + deepest + "/z.csv", Self.incidents(["z"], lat: 53.74))
        let r = try areawatch(["run", "--config", try Self.job(tmp, inbox: "include = [\"*/*.csv\", \"d1/**/*.csv\"]")])
        #expect(r.status == 0, "\(r)")
        #expect(
            r.stderrLines.contains {
                $0.hasSuffix(
                    "inbox/b2: skipped: a link to a folder already walked through "
                        + tmp.sub("inbox/b1"))
            }, "\(r)")
        #expect(r.stderrLines.contains { $0.hasSuffix("/d33: skipped: more than 32 folders below the inbox") }, "\(r)")
        let stored = try StoreProbe.snapshot(tmp.sub("s.db")).ingestedFiles
        let files = stored.map { String($0.dropFirst(tmp.sub("inbox/").count)) }
        // b1/x.csv is the same file as a/x.csv (same SHA-256: skipped); y.csv is 34 names down.
        #expect(files == ["a/x.csv", deepest + "/z.csv"], "\(files)")
    }

    @Test("`**` matches any number of folders, none included; `*` stays within one")
    func doubleStar() throws {
        let tmp = try TempDir()
        try tmp.file("inbox/a.csv", Self.incidents(["a"]))
        try tmp.file("inbox/x/b.csv", Self.incidents(["b"], lat: 53.73))
        try tmp.file("inbox/x/y/c.csv", Self.incidents(["c"], lat: 53.74))
        try tmp.file("inbox/x/y/z/d.json", #"[{"id": "d", "lat": 53.75, "lon": -1.86, "time": "2018-05-01"}]"#)
        func ingested(_ include: String) throws -> [String] {
            removeItem(tmp.sub("s.db"))
            removeItem(tmp.sub("s-rejects.csv"))
            let r = try areawatch(["run", "--config", try Self.job(tmp, inbox: "include = \(include)"), "--quiet"])
            #expect(r.status == 0, "\(r)")
            let files = try StoreProbe.snapshot(tmp.sub("s.db")).ingestedFiles
            return files.map { String($0.dropFirst(tmp.sub("inbox/").count)) }
        }
        #expect(try ingested(#"["**/*.csv"]"#) == ["a.csv", "x/b.csv", "x/y/c.csv"])
        #expect(try ingested(#"["x/**"]"#) == ["x/b.csv", "x/y/c.csv", "x/y/z/d.json"])
        #expect(try ingested(#"["x/**/c.csv", "*/*.csv"]"#) == ["x/b.csv", "x/y/c.csv"])
        #expect(try ingested(#"["*.csv"]"#) == ["a.csv"])
    }

    /// Before: each of these was accepted and matched nothing, silently.
    @Test(
        "patterns that can never match are usage errors naming the pattern",
        arguments: [
            (#"include = ["/etc/*"]"#, "/etc/*", "absolute"),
            (#"include = ["../*"]"#, "../*", "out of the inbox"),
            (#"include = ["["]"#, "[", "never closed"),
            (#"include = [""]"#, "\"\"", "empty"),
            (#"include = ["a//b.csv"]"#, "a//b.csv", "empty name"),
            (#"include = ["x\\"]"#, "x\\", "escapes nothing"),
            (#"include = ["[[:alhpa:]].csv"]"#, "[[:alhpa:]].csv", "unknown character class"),
            ("include = []", "include", "empty"),
            (
                "[[inbox.files]]\npattern = \"../nyc/*.csv\"\ntimezone = \"America/New_York\"",
                "../nyc/*.csv", "out of the inbox"
            )
        ])
    func impossiblePatterns(_ inbox: String, _ named: String, _ reason: String) throws {
        let tmp = try TempDir()
        try tmp.file("inbox/a.csv", Self.incidents(["a"]))
        let r = try areawatch(["run", "--config", try Self.job(tmp, inbox: inbox)])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderrLines.contains { $0.contains("job.toml") && $0.contains(named) && $0.contains(reason) }, "\(r)")
        #expect(!exists(tmp.sub("s.db")) && !exists(tmp.sub("out")), "\(listFolder(tmp.path))")
    }

    @Test("run --config naming a folder or a FIFO says so (exit 1), without hanging")
    func configThatIsNoFile() throws {
        let tmp = try TempDir()
        let folder = try tmp.folder("jobs")
        let r = try areawatch(["run", "--config", folder])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("jobs: a folder, not a config file"), "\(r)")
        #expect(!r.stderr.contains("missing \"store\""), "\(r)")
        #expect(mkfifo(tmp.sub("job.fifo"), 0o600) == 0)
        let fifo = try areawatch(["run", "--config", tmp.sub("job.fifo")], timeout: 20)
        #expect(fifo.status == 1 && fifo.stderr.contains("not a regular file"), "\(fifo)")
    }
}
