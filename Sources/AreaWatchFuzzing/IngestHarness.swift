import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery
import Glibc
import Synchronization

/// A sink that applies the ad-hoc path's key semantics (`IncidentColumnsBuilder`) and remembers
/// every incident and outcome, in order.
struct RecordingSink: IncidentSink {
    var table: IncidentColumnsBuilder
    var incidents: [Incident] = []
    var outcomes: [WriteOutcome] = []

    mutating func write(_ batch: borrowing IncidentBatch, outcome: (WriteOutcome) -> Void) {
        batch.forEach { incidents.append($0) }
        table.write(batch) { written in
            outcomes.append(written)
            outcome(written)
        }
    }
}

/// Everything one in-memory ingest produced.
struct IngestRun {
    /// The `InputError`'s one-line text, when the file was an input error.
    var inputError: String?
    /// Set when anything else than an `InputError` was thrown (always a failure).
    var otherError: String?
    var report: FileIngestReport?
    var incidents: [Incident] = []
    var outcomes: [WriteOutcome] = []
    /// The rejects file as written (header included), empty after an error.
    var rejectsText: [UInt8] = []
    /// Its rows after the header, read back by an independent CSV reader.
    var rejects: [[String]] = []

    /// Rejects of one reason, as (record locator, id) pairs in file order.
    func rejects(reason: String) -> [(record: String, id: String)] {
        rejects.filter { $0.count == 5 && $0[3] == reason }.map { ($0[1], $0[2]) }
    }
}

/// How one run reads its input.
struct RunSettings {
    var options: IngestOptions
    var readLimit: Int = .max
}

enum IngestHarness {
    static let reasons: Set<String> = Set(RejectReason.allCases.map(\.rawValue))

    /// Where rejects files go: shared memory when available, so fuzzing does not wait on a disk.
    /// Each file is removed right after it is read.
    static let scratch: String = {
        for base in ["/dev/shm", String(cString: getenv("TMPDIR") ?? strdup("/tmp")), "/tmp"]
        where access(base, W_OK) == 0 {
            return base
        }
        return "."
    }()
    /// Numbers the rejects files: the regression tests run the targets in parallel in one process.
    static let runCounter = Atomic<Int>(0)

    /// Ingests `data` as the file `name` into `table`, with a rejects file read back afterwards.
    static func ingest(
        _ data: [UInt8], name: String, settings: RunSettings,
        table: inout IncidentColumnsBuilder
    ) -> IngestRun {
        let runNumber = runCounter.add(1, ordering: .relaxed).newValue
        let rejectsPath = scratch + "/areawatch-fuzz-rejects-\(getpid())-\(runNumber).csv"
        var run = IngestRun()
        var sink = RecordingSink(table: table)
        do {
            let writer = try RejectsWriter(path: rejectsPath)
            do {
                // The models check every record's own outcome; the file-level rule that a file of
                // rejects only is an input error has its own tests.
                var options = settings.options
                options.allRejectedIsError = false
                run.report = try FileIngester.ingest(
                    bytes: data, name: name, options: options, into: &sink,
                    rejects: writer, readLimit: settings.readLimit)
                try writer.endFile()
                try writer.commit()
                run.rejectsText = DirectFile.read(rejectsPath) ?? []
                unlink(rejectsPath)
                let rows = SimpleCSVReader.rows(run.rejectsText)
                run.rejects = Array(rows.dropFirst())
                if rows.first != ["source", "record", "id", "reason", "excerpt"] {
                    run.otherError = "the rejects file does not start with its header: \(rows.first ?? [])"
                }
            } catch let error as InputError {
                writer.discardFile()
                run.inputError = error.description
            } catch {
                writer.discardFile()
                run.otherError = "not an InputError: \(error)"
            }
        } catch {
            run.otherError = "cannot create a rejects file in \(scratch): \(error)"
        }
        table = sink.table
        run.incidents = sink.incidents
        run.outcomes = sink.outcomes
        return run
    }

    /// Invariants every ingest must keep, whatever the input.
    static func checkRun(_ run: IngestRun, name: String, label: String, into findings: inout Findings) {
        if let other = run.otherError { findings.fail("\(label): \(other)") }
        if let error = run.inputError {
            findings.check(
                !error.contains("\n") && !error.contains("\r"),
                "\(label): input error is not one line: \(error.debugDescription)")
            findings.check(error.hasPrefix(name + ": "), "\(label): input error does not name the file: \(error)")
            findings.check(
                error.count <= 1000, "\(label): input error of \(error.count) characters: \(error.prefix(300))…")
            return
        }
        guard let report = run.report else { return }
        findings.check(
            report.records == report.accepted + report.rejected,
            "\(label): records \(report.records) ≠ accepted \(report.accepted) + rejected \(report.rejected)")
        findings.check(
            report.accepted == report.inserted + report.updated + report.duplicates,
            "\(label): accepted \(report.accepted) ≠ inserted + updated + duplicates (\(report.inserted)+\(report.updated)+\(report.duplicates))"
        )
        findings.check(
            report.rejectsByReason.values.reduce(0, +) == report.rejected,
            "\(label): rejects by reason \(report.rejectsByReason) do not add up to \(report.rejected)")
        findings.check(
            run.incidents.count == report.accepted,
            "\(label): \(run.incidents.count) incidents reached the sink, the report says \(report.accepted) accepted")
        findings.check(
            run.outcomes.filter { $0 == .inserted }.count == report.inserted
                && run.outcomes.filter { $0 == .updated }.count == report.updated
                && run.outcomes.filter { $0 == .duplicate }.count == report.duplicates,
            "\(label): the report's inserted/updated/duplicates differ from the sink's outcomes")
        for (n, incident) in run.incidents.enumerated() {
            checkIncident(incident, label: label, attributes: n < 16, into: &findings)
        }
        // The rejects file: one row per reject, six reasons only, the file named, short excerpts.
        findings.check(
            run.rejects.count == report.rejected,
            "\(label): the rejects file has \(run.rejects.count) rows for \(report.rejected) rejects")
        var byReason: [String: Int] = [:]
        for row in run.rejects {
            guard row.count == 5 else {
                findings.fail("\(label): a rejects row has \(row.count) fields: \(row)")
                continue
            }
            findings.check(row[0] == name, "\(label): rejects row names source \(row[0].debugDescription)")
            findings.check(reasons.contains(row[3]), "\(label): unknown reject reason \(row[3].debugDescription)")
            // 200 characters, plus the `'` that makes an excerpt starting like a formula
            // spreadsheet-safe (docs/FORMATS.md).
            let guarded = row[4].hasPrefix("'") && CSVText.spreadsheetSafe(String(row[4].dropFirst())) == row[4]
            findings.check(row[4].count <= (guarded ? 201 : 200), "\(label): excerpt of \(row[4].count) characters")
            byReason[row[3], default: 0] += 1
        }
        let expectedByReason = Dictionary(
            uniqueKeysWithValues: report.rejectsByReason.map { ($0.key.rawValue, $0.value) })
        findings.check(
            byReason == expectedByReason, "\(label): rejects file reasons \(byReason) ≠ summary \(expectedByReason)")
        checkLocators(run, format: report.format, label: label, into: &findings)
    }

    /// Record locators follow SPEC §3 for the shape the file was read as.
    private static func checkLocators(_ run: IngestRun, format: String, label: String, into findings: inout Findings) {
        let locators = run.rejects.compactMap { $0.count == 5 ? $0[1] : nil }
        func indices(prefix: String) -> [Int]? {
            var out: [Int] = []
            for l in locators {
                guard l.hasPrefix(prefix + "["), l.hasSuffix("]"),
                    let n = Int(l.dropFirst(prefix.count + 1).dropLast()), n >= 0
                else { return nil }
                out.append(n)
            }
            return out
        }
        switch format.split(separator: "+").first.map(String.init) ?? "" {
        case "csv", "json/ndjson":
            let lines = locators.map { Int($0) ?? -1 }
            findings.check(
                lines.allSatisfy { $0 >= 1 },
                "\(label): line locators that are not positive numbers: \(locators.prefix(5))")
            findings.check(
                zip(lines, lines.dropFirst()).allSatisfy { $0 < $1 },
                "\(label): line locators not increasing: \(locators.prefix(10))")
        case "json/array", "json/geojson":
            let prefix = format.hasPrefix("json/geojson") ? "features" : ""
            findings.check(
                indices(prefix: prefix) != nil, "\(label): locators not of the form \(prefix)[i]: \(locators.prefix(5))"
            )
        case "json/watchme-export":
            // Bytes, not Characters: an id starting with a combining mark joins the `.` into one
            // Character, and `hasPrefix("posts.")` is false for `posts.` + U+0335 + ….
            let stray = locators.filter { !$0.utf8.starts(with: "posts.".utf8) && !$0.utf8.starts(with: "posts[".utf8) }
            findings.check(
                stray.isEmpty,
                "\(label): WatchMe locators not posts.<id> or posts[i]: \(stray.prefix(5).map(\.debugDescription))")
        default:
            break
        }
    }

    /// An accepted incident is a valid SPEC §1 incident.
    static func checkIncident(
        _ i: Incident, label: String, attributes checkAttributes: Bool = true, into findings: inout Findings
    ) {
        findings.check(
            i.lat.isFinite && i.lon.isFinite && (-90...90).contains(i.lat) && (-180...180).contains(i.lon),
            "\(label): accepted incident \(i.key) has coordinates \(i.lat), \(i.lon)")
        findings.check(!(i.lat == 0 && i.lon == 0), "\(label): accepted incident \(i.key) is at null island")
        findings.check(i.lat.sign == .plus || i.lat != 0, "\(label): accepted incident \(i.key) has latitude -0")
        findings.check(i.lon.sign == .plus || i.lon != 0, "\(label): accepted incident \(i.key) has longitude -0")
        findings.check(
            i.time >= UTCTime.earliest && i.time <= UTCTime.latest,
            "\(label): accepted incident \(i.key) has time \(i.time)")
        switch i.precision {
        case .second: break
        case .day:
            findings.check(
                UTCTime.floorDivide(i.time, 86_400) * 86_400 == i.time,
                "\(label): day-precision time \(i.time) is not midnight")
        case .month:
            findings.check(
                UTCTime.floorDivide(i.time, 86_400) * 86_400 == i.time && UTCTime.civil(i.time).day == 1,
                "\(label): month-precision time \(i.time) is not the 1st at midnight")
        }
        findings.check(!i.key.isEmpty, "\(label): an incident with an empty key")
        // (A key of the form h:… is not necessarily derived: a source id may be written that way.)
        if checkAttributes, let attributes = i.attributes {
            var parser = StrictJSON(Array(attributes.utf8))
            let value = parser.document()
            let allStrings = value?.members.allSatisfy { $0.value.kind == .string } ?? false
            findings.check(
                value?.kind == .object && allStrings,
                "\(label): attributes of \(i.key) are not a JSON object of strings: \(attributes.prefix(200))")
        }
    }

    /// SPEC §4 outcomes, from a model of the table: a new key is inserted, a known key with the
    /// same content a duplicate, with other content an update.
    static func checkOutcomes(_ runs: [IngestRun], label: String, into findings: inout Findings) {
        var model: [String: Incident] = [:]
        for (n, run) in runs.enumerated() {
            for (incident, outcome) in zip(run.incidents, run.outcomes) {
                let expected: WriteOutcome
                if let known = model[incident.key] {
                    expected = known.hasSameContent(as: incident) ? .duplicate : .updated
                } else {
                    expected = .inserted
                }
                model[incident.key] = incident
                if expected != outcome {
                    findings.fail(
                        "\(label): ingest \(n + 1), key \(incident.key.debugDescription): \(outcome), expected \(expected)"
                    )
                    return
                }
            }
        }
    }

    /// Ingesting the same bytes again into the same table adds nothing; when no key carries two
    /// contents in the file, every record is a duplicate.
    static func checkSecondIngest(first: IngestRun, second: IngestRun, label: String, into findings: inout Findings) {
        guard let a = first.report, let b = second.report else {
            findings.check(
                first.inputError == second.inputError,
                "\(label): the second ingest's error differs: \(first.inputError ?? "none") / \(second.inputError ?? "none")"
            )
            return
        }
        findings.check(
            b.inserted == 0, "\(label): the second ingest of the same bytes inserted \(b.inserted) incidents")
        findings.check(
            a.records == b.records && a.accepted == b.accepted && a.rejected == b.rejected,
            "\(label): the second ingest counted differently: \(a.records)/\(a.accepted)/\(a.rejected) then \(b.records)/\(b.accepted)/\(b.rejected)"
        )
        var contents: [String: Incident] = [:]
        var conflicting = false
        for i in first.incidents {
            if let known = contents[i.key], !known.hasSameContent(as: i) { conflicting = true }
            contents[i.key] = i
        }
        if !conflicting {
            findings.check(
                b.duplicates == b.accepted && b.updated == 0,
                "\(label): the second ingest gave \(b.updated) updates and \(b.duplicates) duplicates of \(b.accepted)")
        }
    }

    /// Two readings of the same bytes that must agree exactly (read sizes, window, threads).
    static func checkSame(_ a: IngestRun, _ b: IngestRun, label: String, into findings: inout Findings) {
        guard a.inputError == b.inputError else {
            findings.fail("\(label): input error differs: \(a.inputError ?? "none") / \(b.inputError ?? "none")")
            return
        }
        guard let ra = a.report, let rb = b.report else { return }
        findings.check(ra == rb, "\(label): reports differ: \(summary(ra)) / \(summary(rb))")
        findings.check(
            a.incidents.count == b.incidents.count, "\(label): \(a.incidents.count) / \(b.incidents.count) incidents")
        for (x, y) in zip(a.incidents, b.incidents) where x.key != y.key || !x.hasSameContent(as: y) {
            findings.fail("\(label): incidents differ: \(x) / \(y)")
            break
        }
        findings.check(
            a.rejectsText == b.rejectsText,
            "\(label): rejects files differ:\n\(String(decoding: a.rejectsText.prefix(600), as: UTF8.self))\n---\n\(String(decoding: b.rejectsText.prefix(600), as: UTF8.self))"
        )
    }

    static func summary(_ r: FileIngestReport) -> String {
        "\(r.format) records \(r.records) accepted \(r.accepted) rejected \(r.rejected) \(r.rejectsByReason.map { "\($0.key.rawValue)=\($0.value)" }.sorted())"
    }

    /// The standard set of runs over one input: defaults; the same bytes again into the same
    /// table; defaults read in tiny pieces on two threads; small limits read in tiny pieces.
    /// Returns the default run and the small-limits run for the targets' model checks.
    static func standardRuns(_ data: [UInt8], name: String, format: InputFormat?, into findings: inout Findings)
        -> (plain: IngestRun, small: IngestRun, smallOptions: ReaderOptions)
    {
        let h = inputHash(data)
        var plain = IngestOptions()
        plain.reader.format = format
        plain.pipelined = false
        // A window larger than the input reads it whole at once, as the default 1 MiB window
        // reads any smaller file; sized to the input it spares AddressSanitizer 2 MiB per ingest.
        plain.reader.readWindowBytes = min(plain.reader.readWindowBytes, data.count + 64)

        var table = IncidentColumnsBuilder()
        let a = ingest(data, name: name, settings: RunSettings(options: plain), table: &table)
        checkRun(a, name: name, label: "defaults", into: &findings)
        let again = ingest(data, name: name, settings: RunSettings(options: plain), table: &table)
        checkRun(again, name: name, label: "second ingest", into: &findings)
        checkSecondIngest(first: a, second: again, label: "second ingest", into: &findings)
        checkOutcomes([a, again], label: "outcomes", into: &findings)

        // The same limits, read a few bytes at a time into a tiny window, parsed on a second thread.
        var pieces = plain
        pieces.pipelined = true
        pieces.reader.readWindowBytes = 1 + Int(h % 61)
        var table2 = IncidentColumnsBuilder()
        let b = ingest(
            data, name: name, settings: RunSettings(options: pieces, readLimit: 1 + Int((h >> 8) % 13)), table: &table2)
        checkRun(b, name: name, label: "short reads", into: &findings)
        checkSame(a, b, label: "short reads vs whole", into: &findings)

        // Small record and depth limits, so that oversized and too-deep records occur in small inputs.
        var small = plain
        small.reader.maxRecordBytes = 1 + Int((h >> 16) % 160)
        small.reader.maxJSONDepth = 1 + Int((h >> 24) % 4)
        small.reader.readWindowBytes = 1 + Int((h >> 32) % 37)
        var table3 = IncidentColumnsBuilder()
        let c = ingest(
            data, name: name, settings: RunSettings(options: small, readLimit: 1 + Int((h >> 40) % 29)), table: &table3)
        checkRun(c, name: name, label: "small limits", into: &findings)
        return (a, c, small.reader)
    }
}

/// Whole-file reads without Foundation.
enum DirectFile {
    static func read(_ path: String) -> [UInt8]? { FuzzDriver.readFile(path) }
}

/// A plain RFC 4180 reader for the rejects file (LF or CRLF, quoted fields with `""`).
enum SimpleCSVReader {
    static func rows(_ bytes: [UInt8]) -> [[String]] {
        var rows: [[String]] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var inQuotes = false
        var i = 0
        var any = false
        while i < bytes.count {
            let c = bytes[i]
            if inQuotes {
                if c == 34 {
                    if i + 1 < bytes.count && bytes[i + 1] == 34 {
                        field.append(34)
                        i += 2
                        continue
                    }
                    inQuotes = false
                } else {
                    field.append(c)
                }
            } else if c == 34 {
                inQuotes = true
                any = true
            } else if c == 44 {
                fields.append(String(decoding: field, as: UTF8.self))
                field.removeAll()
                any = true
            } else if c == 10 {
                fields.append(String(decoding: field, as: UTF8.self))
                rows.append(fields)
                fields.removeAll()
                field.removeAll()
                any = false
            } else {
                field.append(c)
                any = true
            }
            i += 1
        }
        if any || !field.isEmpty {
            fields.append(String(decoding: field, as: UTF8.self))
            rows.append(fields)
        }
        return rows
    }
}
