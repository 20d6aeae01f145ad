import AreaWatchTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SPEC §8: outputs are deterministic (byte-identical except `timings_s`) and published
/// atomically (a crash never leaves a half report under the final name; DECISIONS.md: leftover
/// work folders are removed by the next run).
@Suite("determinism and atomic publishing", .timeLimit(.minutes(60)))
struct DeterminismAtomicityTests {
    @Test(
        "report over the nightly job's store and parameters, on one thread: byte-identical to the job's report (except timings_s)"
    )
    func reportEqualsJob() throws {
        let run = try BundledRun.get()
        let tmp = try TempDir()
        // The bundled job's parameters (areawatch.toml), given as options; the job's own report
        // was written twice already (BundledRun), with all threads.
        try areawatchOK([
            "report", "--out", tmp.sub("a"), "--threads", "1", "--db", run.store, "--as-of", Datasets.asOf,
            "--radius", "1000", "--thresholds", "5,10", "--precision", "7", "--tile-zooms", "10-14",
            "--min-cell-count", "1", "--areas", Datasets.areas, "--area-id", "name",
            "--area-population", "population", "--poi", Datasets.poi,
            "--group-by", "category", "--near-repeat", "--attribution", ReportFormatTests.attribution,
            "--quiet"
        ])
        let a = try readTree(tmp.sub("a"))
        #expect(a.count > 10)
        let differences = reportDifferences(a, run.report)
        #expect(differences.isEmpty, "\(differences)")
    }

    @Test(
        "a report killed at random moments leaves the final folder absent, previous or complete; never half; leftovers go with the next run; two clean runs are byte-identical"
    )
    func reportKilled() throws {
        let tmp = try TempDir()
        let db = tmp.sub("store.db")
        try areawatchOK(["ingest", Datasets.police[2], "--db", db, "--quiet"])
        let parent = tmp.sub("reports"), out = parent + "/latest"
        func report(radius: String, to folder: String) -> [String] {
            [
                "report", "--db", db, "--out", folder, "--as-of", Datasets.asOf, "--precision", "7", "--radius", radius,
                "--tile-zooms", "12-14",
                "--group-by", "category", "--poi", Datasets.poi, "--quiet"
            ]
        }
        // The previous report (another radius) and the new one, each from an uninterrupted run.
        try areawatchOK(report(radius: "200", to: tmp.sub("previous")))
        let previous = try readTree(tmp.sub("previous"))
        let clean = try areawatchOK(report(radius: "100", to: out))
        let duration = clean.seconds
        let new = try readTree(out)
        #expect(!reportDifferences(previous, new).isEmpty)

        let fractions = killFractions(trials: 20, seed: 1_975)
        var outcomes: [String: Int] = [:]
        var leftoversSeen = 0
        for trial in 0..<20 {
            // Even trials publish into nothing, odd ones over the previous report.
            removeItem(out)
            let hadPrevious = trial % 2 == 1
            if hadPrevious { try copyItem(tmp.sub("previous"), out) }
            let delay = fractions[trial] * duration * 1.2
            let child = try Spawned(report(radius: "100", to: out))
            sleepSeconds(delay)
            child.kill()
            let killed = child.wait()
            #expect(killed.killed || killed.status == 0, "trial \(trial): \(killed)")

            let at =
                "trial \(trial) (killed after \(String(format: "%.3f", delay)) s of \(String(format: "%.3f", duration)))"
            if !exists(out) {
                #expect(!hadPrevious, "\(at): the previous report is gone")
                outcomes["absent", default: 0] += 1
            } else {
                let folder = try readTree(out)
                if hadPrevious && reportDifferences(folder, previous).isEmpty {
                    outcomes["previous", default: 0] += 1
                } else if reportDifferences(folder, new).isEmpty {
                    outcomes["new", default: 0] += 1
                } else {
                    Issue.record(
                        "\(at): a half report under the final name: \(reportDifferences(folder, hadPrevious ? previous : new).prefix(5))"
                    )
                }
            }
            leftoversSeen += listFolder(parent).filter { $0.hasPrefix(".latest.tmp-") }.count
        }
        #expect(
            outcomes["absent", default: 0] > 0 && outcomes["previous", default: 0] > 0,
            "the kills did not cover the run: \(outcomes)")
        #expect(leftoversSeen > 0, "no kill landed while the report was being written: \(outcomes)")

        // The next run removes every leftover work folder and publishes the complete report:
        // two uninterrupted report runs, byte-identical folders (except timings_s).
        let next = try areawatchOK(report(radius: "100", to: out))
        // The replaced report stays beside it as the spare the next run writes over.
        #expect(listFolder(parent) == [".latest.spare", "latest"], "\(listFolder(parent)) after \(next)")
        let again = reportDifferences(try readTree(out), new)
        #expect(again.isEmpty, "\(again)")
    }

    @Test("leftover work folders of dead processes are removed; a live process's and other names are kept")
    func leftovers() throws {
        let tmp = try TempDir()
        let parent = tmp.sub("reports")
        let dead = parent + "/.latest.tmp-99999999", live = parent + "/.latest.tmp-\(getpid())",
            other = parent + "/.other.tmp-99999999"
        for folder in [dead, live, other] {
            try tmp.file(String(folder.dropFirst(tmp.path.count + 1)) + "/grid.csv", "half,a,report\n")
        }
        // A report folder areawatch wrote (its marker, only report files) is replaced whole: an
        // output of an earlier report that this one does not write goes too.
        try tmp.file("reports/latest/.areawatch-report", "areawatch\n")
        try tmp.file("reports/latest/areas.csv", "the previous report\n")
        try areawatchOK([
            "report", "--input", Datasets.police[2], "--out", parent + "/latest", "--as-of", Datasets.asOf,
            "--precision", "5",
            "--tile-zooms", "none", "--quiet"
        ])
        #expect(!exists(dead), "the dead run's work folder was not removed")
        #expect(exists(live) && exists(other), "\(listFolder(parent))")
        #expect(!exists(parent + "/latest/areas.csv"), "the report folder is replaced whole")
        #expect(
            Set(listFolder(parent)) == ["latest", ".latest.spare", ".latest.tmp-\(getpid())", ".other.tmp-99999999"],
            "\(listFolder(parent))")
    }
}
