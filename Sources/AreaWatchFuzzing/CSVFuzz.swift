import AreaWatchCore
import AreaWatchIngest

/// An independent model of the CSV records of SPEC §2.2, written byte by byte over the whole
/// input (no windows, no resumable state): where records start and end, their field counts and
/// quoting errors. Error recovery follows the engine's documented choices: a quote inside an
/// unquoted field flags the record and is kept as text; text after a closing quote flags it too.
struct CSVModel {
    struct Record {
        /// 1-based line where the record starts.
        var line: Int
        var fields: Int
        var quotingError: Bool
        /// Bytes of the record without its LF.
        var length: Int
        var hasNUL: Bool
    }

    /// Non-blank records in order, the header first.
    private(set) var records: [Record] = []
    private(set) var endsInsideQuotes = false
    let delimiter: UInt8

    init(_ input: [UInt8], delimiter given: UInt8?) {
        var i = input.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var line = 1
        // Lines of blanks before the first line with text are not records (the header is the
        // first line with text; its delimiter is detected there).
        let (firstLine, firstLineStart) = CSVModel.firstLineWithText(input, from: i)
        line = firstLine
        i = firstLineStart
        let delimiter = given ?? CSVModel.detectDelimiter(input, from: i)
        self.delimiter = delimiter
        let n = input.count
        while i < n {
            let start = i
            let startLine = line
            let scanned = CSVModel.scanRecord(input, from: &i, line: &line, delimiter: delimiter)
            var fields = scanned.fields
            let ended = scanned.ended
            if ended {
                line += 1
            } else {
                if scanned.state == .quoted {
                    endsInsideQuotes = true
                    return
                }
                if scanned.state == .fieldStart { fields += 1 } // the input ends right after a delimiter
            }
            let length = (ended ? i - 1 : i) - start
            let content = input[start..<(start + length)]
            let blank = fields == 1 && !scanned.firstQuoted && (content.isEmpty || content.elementsEqual([13]))
            if !blank {
                records.append(
                    Record(
                        line: startLine, fields: fields, quotingError: scanned.quotingError, length: length,
                        hasNUL: scanned.hasNUL))
            }
        }
    }

    enum State { case fieldStart, unquoted, quoted, quoteInQuoted, afterClose }

    /// One record's bytes from `i`, byte by byte: to the line feed that ends it (consumed, `ended`)
    /// or the input's end; `line` counts the line feeds inside quoted fields.
    static func scanRecord(_ input: [UInt8], from i: inout Int, line: inout Int, delimiter: UInt8) -> (
        state: State, fields: Int, firstQuoted: Bool, quotingError: Bool, hasNUL: Bool, ended: Bool
    ) {
        let n = input.count
        var state = State.fieldStart
        var fields = 0
        var firstQuoted = false
        var quotingError = false
        var hasNUL = false
        var ended = false
        while i < n && !ended {
            let b = input[i]
            if b == 0 { hasNUL = true }
            switch state {
            case .fieldStart:
                fields += 1
                if b == 34 {
                    if fields == 1 { firstQuoted = true }
                    state = .quoted
                } else {
                    state = .unquoted
                    continue // the byte belongs to the field
                }
            case .unquoted:
                if b == 34 {
                    quotingError = true
                } else if b == delimiter {
                    state = .fieldStart
                } else if b == 10 {
                    ended = true
                }
            case .quoted:
                if b == 34 { state = .quoteInQuoted } else if b == 10 { line += 1 }
            case .quoteInQuoted:
                if b == 34 {
                    state = .quoted
                } else if b == delimiter {
                    state = .fieldStart
                } else if b == 10 {
                    ended = true
                } else if b == 13 {
                    state = .afterClose
                } else {
                    quotingError = true
                    state = .afterClose
                }
            case .afterClose:
                if b == delimiter {
                    state = .fieldStart
                } else if b == 10 {
                    ended = true
                } else if b != 13 {
                    quotingError = true
                }
            }
            i += 1
        }
        return (state, fields, firstQuoted, quotingError, hasNUL, ended)
    }

    /// The 1-based number and start of the first line holding a byte other than space, tab, CR.
    static func firstLineWithText(_ input: [UInt8], from: Int) -> (line: Int, start: Int) {
        var line = 1, start = from, i = from
        while i < input.count {
            switch input[i] {
            case 10:
                line += 1
                start = i + 1
            case 32, 9, 13:
                break
            default:
                return (line, start)
            }
            i += 1
        }
        return (line, input.count)
    }

    /// The most frequent of `,` `;` and tab outside quotes in the first line; `,` on a tie or
    /// when none occurs (SPEC §2.2, the engine's tie rule).
    static func detectDelimiter(_ input: [UInt8], from: Int) -> UInt8 {
        var comma = 0, semicolon = 0, tab = 0
        var inQuotes = false
        for b in input[from...] {
            if b == 34 { inQuotes.toggle() }
            if inQuotes { continue }
            if b == 10 { break }
            if b == 44 { comma += 1 } else if b == 59 { semicolon += 1 } else if b == 9 { tab += 1 }
        }
        if comma >= semicolon && comma >= tab { return 44 }
        return semicolon >= tab ? 59 : 9
    }
}

/// The CSV fuzz target: any bytes read as CSV (`--format csv`).
enum CSVFuzz {
    static func check(_ data: [UInt8]) -> [String] {
        var findings = Findings()
        let name = "fuzz.csv"
        let (plain, small, smallOptions) = IngestHarness.standardRuns(data, name: name, format: .csv, into: &findings)
        // The model applies to plain text; gzip content is only checked for the general invariants.
        if !(data.count >= 2 && data[0] == 0x1F && data[1] == 0x8B) && data.count < (1 << 20) {
            let model = CSVModel(data, delimiter: nil)
            compare(
                plain, model: model, maxRecordBytes: ReaderOptions().maxRecordBytes, label: "defaults", into: &findings)
            compare(
                small, model: model, maxRecordBytes: smallOptions.maxRecordBytes, label: "small limits", into: &findings
            )
            // Inputs without quotes: the record count is a plain count of non-blank lines.
            if !data.contains(34), let report = plain.report {
                let lines = naiveLineCount(data)
                findings.check(
                    report.records == lines - 1,
                    "defaults: \(report.records) records, a naive count of non-blank lines says \(lines) with the header"
                )
            }
        }
        return findings.messages
    }

    /// Lines that are neither empty nor a lone CR, after a leading BOM and after the lines of
    /// blanks that come before the first line with text.
    static func naiveLineCount(_ data: [UInt8]) -> Int {
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(data.dropFirst(3)) : data
        let lines = body.split(separator: 10, omittingEmptySubsequences: false)
        let firstText = lines.firstIndex { $0.contains { $0 != 32 && $0 != 9 && $0 != 13 } } ?? lines.endIndex
        return lines[firstText...].filter { !$0.isEmpty && !$0.elementsEqual([13]) }.count
    }

    static func compare(
        _ run: IngestRun, model: CSVModel, maxRecordBytes: Int, label: String, into findings: inout Findings
    ) {
        if let error = run.inputError {
            // An input error is a quote left open, an unusable header, or nothing at all.
            if model.endsInsideQuotes { return }
            guard let header = model.records.first else {
                findings.check(error.contains("empty"), "\(label): no records in the model, but the error is: \(error)")
                return
            }
            if header.length > maxRecordBytes || header.hasNUL || header.quotingError { return }
            findings.check(
                error.contains(": line \(header.line): "),
                "\(label): input error \(error) is not about the header at line \(header.line)")
            return
        }
        guard let report = run.report else { return }
        findings.check(
            !model.endsInsideQuotes, "\(label): the input ends inside a quoted field, but it was not an input error")
        guard let header = model.records.first else {
            findings.fail("\(label): the model finds no header, the engine read \(report.records) records")
            return
        }
        let body = model.records.dropFirst()
        findings.check(report.records == body.count, "\(label): \(report.records) records, the model has \(body.count)")
        let malformed = body.filter {
            $0.length > maxRecordBytes || $0.quotingError || $0.fields != header.fields || $0.hasNUL
        }.map { String($0.line) }
        let engineMalformed = run.rejects(reason: "malformed_record").map(\.record)
        findings.check(
            engineMalformed == malformed,
            "\(label): malformed_record at lines \(engineMalformed.prefix(12)), the model says \(malformed.prefix(12))")
    }
}
