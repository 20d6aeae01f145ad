import AreaWatchCore
import Glibc

/// Options of one ingest (SPEC §2–§4).
public struct IngestOptions: Sendable {
    public var reader = ReaderOptions()
    /// `--source`: namespaces the keys of the file.
    public var source: String?
    public var idless = IdlessMode.snapshot
    /// Parse on other threads while the calling thread writes (same results either way).
    public var pipelined = Concurrency.processorCount > 1
    /// Threads parsing blocks of a CSV file at once when `pipelined` (SPEC §4 keys, ordinals,
    /// rejects and order are those of one thread; see `ParallelCSVIngest`). 1: one parsing thread.
    public var parseThreads = Concurrency.processorCount
    /// Target size of one block of a parallel CSV parse (tests make it small to cut files into
    /// many blocks).
    public var parallelBlockBytes = 1 << 20
    /// A file whose every record is rejected is an input error (SPEC §2.5). The fuzz models,
    /// which check one record's reject at a time, turn it off.
    public var allRejectedIsError = true

    static let batchSize = 4096
    /// A batch is handed over early once its text reaches this size, so that the batches in
    /// flight stay small when records are wide (thousands of attribute columns).
    static let batchBytes = 4 << 20

    public init(reader: ReaderOptions = ReaderOptions(), source: String? = nil, idless: IdlessMode = .snapshot) {
        self.reader = reader
        self.source = source
        self.idless = idless
    }
}

/// What ingesting one file did (one row of the `ingests` log).
public struct FileIngestReport: Sendable, Equatable {
    public var file: String
    public var sha256: String
    public var bytes: Int64
    public var format: String = ""
    public var records = 0
    /// Records that passed validation: inserted + updated + duplicates.
    public var accepted = 0
    public var inserted = 0
    public var updated = 0
    public var duplicates = 0
    public var rejected = 0
    public var rejectsByReason: [RejectReason: Int] = [:]
    /// True when the file's SHA-256 was already ingested and it was not read again.
    public var skipped = false

    public init(file: String, sha256: String, bytes: Int64) {
        self.file = file
        self.sha256 = sha256
        self.bytes = bytes
    }

    public var rejectRate: Double { records == 0 ? 0 : Double(rejected) / Double(records) }
}

/// Progress of a long ingest: bytes of the file that hold the records counted so far (not the
/// bytes read ahead of them), the file's size, records so far. The last call has the file's size
/// and every record of the file.
public typealias IngestProgress = (_ bytesRead: Int64, _ totalBytes: Int64, _ records: Int) -> Void

/// Reads one file, keys its records and hands them to a sink; rejects go to the rejects file.
public enum FileIngester {
    public static func ingest<Sink: IncidentSink>(
        path: String, sha256: String, bytes: Int64, options: IngestOptions,
        into sink: inout Sink, rejects: (any RejectRecorder)?, progress: IngestProgress? = nil
    ) throws -> FileIngestReport {
        let (records, detected, byteSource) = try InputReader.open(path: path, options: options.reader)
        return try ingest(
            records: records, detected: detected, byteSource: byteSource, path: path, sha256: sha256,
            bytes: bytes, options: options, into: &sink, rejects: rejects, progress: progress)
    }

    /// Whether the `--column` mappings of `options` fit the CSV header of `path`: the usage error
    /// (`InputError.isUsage`) an ingest of the file would stop at, found before anything is
    /// stored. Any other problem of the file is left for the ingest to report.
    public static func checkColumnMappings(path: String, options: ReaderOptions) throws(InputError) {
        do {
            try InputReader.checkHeader(path: path, options: options)
        } catch let error where error.isUsage {
            throw error
        } catch {
            return
        }
    }

    /// Ingests bytes held in memory as if they were the file `name` (fuzzing and tests); every
    /// read returns at most `readLimit` bytes.
    public static func ingest<Sink: IncidentSink>(
        bytes data: [UInt8], name: String, options: IngestOptions, into sink: inout Sink,
        rejects: (any RejectRecorder)?,
        readLimit: Int = .max
    ) throws -> FileIngestReport {
        let (records, detected, byteSource) = try InputReader.open(options: options.reader) { () throws(InputError) in
            ByteSource(bytes: data, name: name, readLimit: readLimit)
        }
        return try ingest(
            records: records, detected: detected, byteSource: byteSource, path: name, sha256: "",
            bytes: Int64(data.count), options: options, into: &sink, rejects: rejects, progress: nil)
    }

    private static func ingest<Sink: IncidentSink>(
        records: RecordSource, detected: DetectedInput, byteSource: ByteSource, path: String, sha256: String,
        bytes: Int64,
        options: IngestOptions, into sink: inout Sink, rejects: (any RejectRecorder)?, progress: IngestProgress?
    ) throws -> FileIngestReport {
        var report = FileIngestReport(file: path, sha256: sha256, bytes: bytes)
        report.format = detected.description
        guard options.pipelined else {
            var written = report
            try parse(
                records: records, byteSource: byteSource, path: path, options: options, report: &report,
                rejects: rejects, progress: progress
            ) { incident in
                written.count(try sink.write(incident))
            }
            report.takeOutcomes(of: written)
            return report
        }
        if options.parseThreads > 1, let csv = records as? CSVRecordSource {
            let hashing = sink.keyIdentity == .hash
            var accounting = RecordAccounting(
                path: path, options: options, fileSHA256: sha256, rejects: rejects,
                byteSource: byteSource, progress: progress, hashesKeys: hashing)
            var written = report
            try ParallelCSVIngest.ingest(
                csv: csv, byteSource: byteSource, threads: options.parseThreads, options: options,
                accounting: &accounting, report: &report
            ) { batch in
                try sink.write(batch) { written.count($0) }
            }
            try accounting.finish(&report)
            report.takeOutcomes(of: written)
            return report
        }
        // Parse on another thread while this one writes; batches keep file order.
        let channel = IncidentChannel()
        let task = ParsingTask(report: report) { task in
            defer { channel.finish() }
            var batch: [Incident] = []
            var batchBytes = 0
            batch.reserveCapacity(IngestOptions.batchSize)
            try parse(
                records: records, byteSource: byteSource, path: path, options: options, report: &task.report,
                rejects: rejects, progress: progress
            ) { incident in
                batch.append(incident)
                batchBytes +=
                    incident.key.utf8.count + (incident.attributes?.utf8.count ?? 0)
                    + (incident.description?.utf8.count ?? 0) + (incident.user?.utf8.count ?? 0)
                if batch.count == IngestOptions.batchSize || batchBytes >= IngestOptions.batchBytes {
                    guard channel.put(batch) else { throw PipelineCancelled() }
                    batch.removeAll(keepingCapacity: true)
                    batchBytes = 0
                }
            }
            if !batch.isEmpty { _ = channel.put(batch) }
        }
        task.start()
        var written = FileIngestReport(file: path, sha256: sha256, bytes: bytes)
        do {
            while let batch = channel.take() {
                try batch.withUnsafeBufferPointer { incidents in
                    try sink.write(IncidentBatch(incidents)) { written.count($0) }
                }
            }
        } catch {
            channel.cancel()
            task.wait()
            throw error
        }
        task.wait()
        if let error = task.error { throw error }
        report = task.report
        report.takeOutcomes(of: written)
        return report
    }

    /// Validates and keys every record in file order: accepted incidents go to `emit`, rejects
    /// to the rejects file; counts records, accepted and rejects in `report`.
    private static func parse(
        records: RecordSource, byteSource: ByteSource, path: String, options: IngestOptions,
        report: inout FileIngestReport, rejects: (any RejectRecorder)?, progress: IngestProgress?,
        emit: (consuming Incident) throws -> Void
    ) throws {
        var accounting = RecordAccounting(
            path: path, options: options, fileSHA256: report.sha256, rejects: rejects,
            byteSource: byteSource, progress: progress)
        try accounting.read(records, into: &report, emit: emit)
        try accounting.finish(&report)
    }
}

/// The file-order bookkeeping of an ingest, the same for every way of parsing: counts, SPEC §4
/// keys, reject lines and their first examples, progress.
struct RecordAccounting {
    let path: String
    let options: IngestOptions
    let rejects: (any RejectRecorder)?
    let byteSource: ByteSource
    let progress: IngestProgress?
    /// The sink tells keys apart by hash (`KeyIdentity.hash`): id-less keys are
    /// hashed here rather than built as text.
    let hashesKeys: Bool
    private var keyer: IncidentKeyer
    /// What every key of the file starts with (`--source`'s `SOURCE:`, or nothing).
    var keyPrefix: String { keyer.prefix }
    /// The first value of each reject reason while nothing is accepted: an all-rejected file's message.
    private var examples: [RejectReason: String] = [:]
    /// Content offset where the records `read` reads start (a parallel parse streams the rest
    /// of a file from a block's start); a parallel parse moves it block by block.
    var contentBase: Int64 = 0
    /// The records being read, for where they reach in the file (progress).
    private var reading: RecordSource?
    /// The record count at which a streaming read next reports progress (never, when no one
    /// listens or the parallel parse reports per block): one compare a record.
    private var nextProgressAt = Int.max
    static let progressRecords = 1 << 16

    init(
        path: String, options: IngestOptions, fileSHA256: String, rejects: (any RejectRecorder)?,
        byteSource: ByteSource,
        progress: IngestProgress?, hashesKeys: Bool = false
    ) {
        self.path = path
        self.hashesKeys = hashesKeys
        self.options = options
        self.rejects = rejects
        self.byteSource = byteSource
        self.progress = progress
        keyer = IncidentKeyer(source: options.source, mode: options.idless, fileSHA256: fileSHA256)
    }

    /// Every record of `records`, in order.
    mutating func read(
        _ records: RecordSource, into report: inout FileIngestReport,
        emit: (consuming Incident) throws -> Void
    ) throws {
        reading = records
        if progress != nil { nextProgressAt = report.records + Self.progressRecords }
        defer {
            reading = nil
            nextProgressAt = .max
        }
        try records.forEachRecord { record in
            switch consume record {
            case .accepted(var incident):
                keyer.assignKey(&incident)
                try emit(consume incident)
                counted(report: &report)
            case .rejected(let reason, let location, let idHint):
                try reject(
                    reason, location: location, idHint: idHint, report: &report,
                    example: { records.currentValue(for: reason) ?? records.currentExcerpt() },
                    excerpt: { records.currentExcerpt() })
            }
        }
    }

    /// Starts loading what keying `key` will read (an id-less record's ordinal slot).
    @inline(__always)
    func prefetch(_ key: ParsedKey) {
        if case .idless(let digest) = key { keyer.prefetchOrdinal(digest: digest) }
    }

    /// An accepted incident as the thread that parsed it left it, keyed in place.
    @inline(__always)
    mutating func accept(_ incident: inout Incident, key: ParsedKey, report: inout FileIngestReport) {
        switch key {
        case .id: keyer.assignKey(&incident, digest: 0)
        case .idless(let digest): keyer.assignKey(&incident, digest: digest)
        case .hashed: preconditionFailure("a hashed key where the sink reads key text")
        }
        counted(report: &report)
    }

    /// The hash of an accepted incident's key, when keys are hashed (`hashesKeys`).
    @inline(__always)
    mutating func acceptHashed(_ incident: inout Incident, key: ParsedKey, report: inout FileIngestReport) -> KeyHash {
        let hash: KeyHash
        switch key {
        case .hashed(let h): hash = h
        case .idless(let digest): hash = keyer.idlessKeyHash(digest: digest)
        case .id:
            keyer.assignKey(&incident, digest: 0)
            hash = KeyHash(incident.key)
        }
        counted(report: &report)
        return hash
    }

    /// One more record, accepted.
    @inline(__always)
    private mutating func counted(report: inout FileIngestReport) {
        report.records += 1
        report.accepted += 1
        if report.records >= nextProgressAt { reportStreamedProgress(report) }
    }

    mutating func reject(
        _ reason: RejectReason, location: RecordLocation, idHint: String?, report: inout FileIngestReport,
        example: () -> String, excerpt: () -> String
    ) throws {
        report.records += 1
        report.rejected += 1
        report.rejectsByReason[reason, default: 0] += 1
        if report.accepted == 0 && examples[reason] == nil { examples[reason] = example() }
        try rejects?.add(source: path, record: location.description, id: idHint, reason: reason, excerpt: excerpt())
        if report.records >= nextProgressAt { reportStreamedProgress(report) }
    }

    /// Progress of a streaming read, every `progressRecords` records: the bytes up to the record
    /// just counted, not those read ahead of it.
    @inline(never)
    private mutating func reportStreamedProgress(_ report: FileIngestReport) {
        nextProgressAt = report.records + Self.progressRecords
        guard let progress, let reading else { return }
        progress(
            byteSource.fileBytes(coveringContent: contentBase + reading.contentOffset), byteSource.fileSize,
            report.records)
    }

    /// A parallel parse has counted every record of a block of `bytes` content bytes.
    mutating func finishedBlock(bytes: Int, report: FileIngestReport) {
        contentBase += Int64(bytes)
        progress?(byteSource.fileBytes(coveringContent: contentBase), byteSource.fileSize, report.records)
    }

    /// The end of the file: the last progress, and the error of a file without one accepted record.
    func finish(_ report: inout FileIngestReport) throws {
        progress?(byteSource.fileSize, byteSource.fileSize, report.records)
        if options.allRejectedIsError && report.records > 0 && report.accepted == 0 {
            throw AllRejected.error(file: path, report: report, examples: examples, options: options.reader)
        }
    }
}

extension FileIngestReport {
    /// The sink's outcomes, counted on the writing side (`count`), into the parsing side's report.
    mutating func takeOutcomes(of written: FileIngestReport) {
        inserted = written.inserted
        updated = written.updated
        duplicates = written.duplicates
    }

    mutating func count(_ outcome: WriteOutcome) {
        switch outcome {
        case .inserted: inserted += 1
        case .updated: updated += 1
        case .duplicate: duplicates += 1
        }
    }
}
