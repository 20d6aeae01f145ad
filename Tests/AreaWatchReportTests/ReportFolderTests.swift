import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchReport

/// SPEC §8: which entries are a report's, and which paths publishing DIR replaces or removes.
@Suite("report folder rules")
struct ReportFolderTests {
    @Test("report files and folders by name: top files, tilejson, Z/X/Y tiles; nothing else")
    func names() {
        for name in [
            "grid.csv", "summary.json", ".areawatch-report", "tiles/tilejson.json", "tiles/14/8100/5300.json",
            "tiles/0/0/0.json", "grid.pmtiles", "ehsa.geojson", "grid.parquet", "areas.parquet",
            "ehsa.parquet", "grid.gpkg"
        ] {
            #expect(ReportFolder.isReportFile(name), "\(name)")
        }
        for name in [
            "notes.txt", "store.db", "grid.csv.bak", "tiles/notes.txt", "tiles/14/8100/5300.png",
            "tiles/14/x/1.json", "tiles/14/8100/.json", "tiles/14/8100/53/1.json", "a/grid.csv", "tiles", "",
            "tiles/-1/0/0.json"
        ] {
            #expect(!ReportFolder.isReportFile(name), "\(name)")
        }
        for name in ["tiles", "tiles/14", "tiles/14/8100"] { #expect(ReportFolder.isReportFolder(name), "\(name)") }
        for name in ["tiles/14/8100/5300", "tiles/x", "photos", "tiles/14/8100/5300.json"] {
            #expect(!ReportFolder.isReportFolder(name), "\(name)")
        }
    }

    @Test("a protected path inside DIR, .DIR.spare or any .DIR.tmp-* is refused; beside them it is not")
    func protectedZones() throws {
        let dir = try TempDir()
        let out = dir.path + "/reports/latest"
        for inside in [
            "reports/latest/x.db", "reports/latest", "reports/.latest.spare/x.db", "reports/.latest.spare",
            "reports/.latest.tmp-123/in.csv", "reports/.latest.tmp-anything"
        ] {
            #expect(throws: ReportFolderRefused.self, "\(inside)") {
                try ReportFolder.checkReplaceable(out, protecting: [dir.path + "/" + inside])
            }
        }
        for beside in [
            "reports/x.db", "reports/latest2/x.db", "reports/.latest.sparex/x.db",
            "reports/.other.spare/x.db", "reports/latest.tmp-1/x.db"
        ] {
            #expect(throws: Never.self, "\(beside)") {
                try ReportFolder.checkReplaceable(out, protecting: [dir.path + "/" + beside])
            }
        }
        // Through a link to the parent folder, and with a trailing slash.
        try FileManager.default.createDirectory(atPath: dir.path + "/reports", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: dir.path + "/alias",
            withDestinationPath: dir.path + "/reports")
        #expect(throws: ReportFolderRefused.self) {
            try ReportFolder.checkReplaceable(out + "/", protecting: [dir.path + "/alias/.latest.spare/x.db"])
        }
    }
}
