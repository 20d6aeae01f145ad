import Glibc
import Dispatch
import AreaWatchCore

/// A CSV file parsed on several threads with exactly the results of one thread (SPEC §4 keys and
/// ordinals, reject lines, order).
///
/// The calling thread cuts the bytes after the header into blocks that end after a line feed
/// outside quotes (by quote parity), hands each block to a worker, and takes the parsed blocks
/// back in file order: keys, counts and rejects are assigned there, and the sink is written
/// there. A cut is only a guess; it is proven by the worker: a block that starts on a record
/// boundary and whose own scan ends with a record closed by the block's last line feed ends on a
/// record boundary too, so by induction from the header every accepted block is parsed exactly as
/// one scan of the file would parse it. A block whose scan does not close (the line feed was
/// inside a quoted field, say) and everything after it are read by one streaming reader instead,
/// from the block's start, as is the rest of a file when no cut is found within
/// `IngestOptions.parallelBlockBytes` × `maxGrowth` bytes (one enormous quoted field): memory
/// stays bounded by the blocks in flight.
enum ParallelCSVIngest {
    /// How many times a block may double while looking for a cut before the rest is streamed.
    static let maxGrowth = 2

    /// With `accounting.hashesKeys` each incident reaches `emit` with its key empty and the key's
    /// hash, else with its key and nil.
    static func ingest(
        csv: CSVRecordSource, byteSource: ByteSource, threads: Int, options: IngestOptions,
        accounting: inout RecordAccounting, report: inout FileIngestReport,
        emit: (consuming Incident, KeyHash?) throws -> Void
    ) throws {
        let layout = csv.layout
        var cutter = BlockCutter(buffer: csv.scanner.buffer, start: csv.scanner.endOfRecord,
                                 target: options.parallelBlockBytes, growth: maxGrowth)
        let workers = WorkerState(layout: layout, keepExcerpts: accounting.rejects != nil,
                                  keyHashPrefix: accounting.hashesKeys ? Array(accounting.keyPrefix.utf8) : nil)
        var inFlight: [ParsedBlock] = []
        var head = 0
        var line = csv.scanner.nextLine
        var cutterDone = false
        defer { for block in inFlight[head...] { block.waitUntilParsed() } }
        while true {
            // Up to 2 × threads + 1 blocks: with malloc reusing freed blocks, more in flight keep
            // the parsers busy while this thread writes (ingest 0.336 -> 0.306 s at 1M; with
            // threads + 1 blocks both sides waited on each other; 3 × threads was no better).
            while !cutterDone && inFlight.count - head <= 2 * threads {
                guard let bytes = try cutter.next() else {
                    cutterDone = true
                    break
                }
                let block = ParsedBlock(bytes: bytes)
                inFlight.append(block)
                DispatchQueue.global().async { workers.parse(block) }
            }
            guard head < inFlight.count else { break }
            let block = inFlight[head]
            block.waitUntilParsed()
            guard !block.failed else { break }
            while let item = block.takeNext() {
                switch consume item {
                case .accepted(let incident, let key):
                    try accounting.accept(incident, key: key, report: &report, emit: emit)
                case .rejected(let reject):
                    try accounting.reject(reject.reason, location: .line(line + reject.line - 1), idHint: reject.idHint,
                                          report: &report, example: { reject.example ?? "" },
                                          excerpt: { reject.excerpt ?? "" })
                }
            }
            line += block.lineFeeds
            block.release()
            head += 1
        }
        // Streamed from the first block not accepted (or where no cut was found) to the end.
        guard head < inFlight.count || cutter.gaveUp else { return }
        var prefix: [UInt8] = []
        for block in inFlight[head...] {
            block.waitUntilParsed()
            prefix.append(contentsOf: block.bytes)
            block.release()
        }
        prefix.append(contentsOf: cutter.remainingBytes)
        let rest = ByteSource(prefix: prefix, then: byteSource)
        prefix = []
        let buffer = ChunkBuffer(source: rest, chunkSize: options.reader.readWindowBytes)
        try accounting.read(CSVRecordSource(layout: layout, buffer: buffer, firstLine: line), into: &report) {
            try emit($0, nil)
        }
    }
}

/// One block of the file and, once a worker is done, its records.
final class ParsedBlock: @unchecked Sendable {
    enum Record {
        case accepted(Incident, key: ParsedKey)
        case rejected(Reject)
    }

    /// A reject as the one-thread path would record it: `line` counts from the block's first line.
    struct Reject {
        var reason: RejectReason
        var line: Int
        var idHint: String?
        var excerpt: String?
        /// The value for an all-rejected file's message (the first of its reason while the block
        /// has accepted nothing).
        var example: String?
    }

    private(set) var bytes: UnsafeMutableBufferPointer<UInt8>
    /// The records, appended by the worker and moved out one by one by the reading thread: an
    /// array would copy each out (retaining its strings, the categories shared with the workers)
    /// and release them all again when dropped.
    private var records: UnsafeMutablePointer<Record>?
    private var recordCount = 0
    private var recordCapacity = 0
    private var taken = 0
    /// Line feeds in the block: the next block starts this many lines further.
    var lineFeeds = 0
    /// The scan did not end on a record boundary: the block is read again by the streaming reader.
    var failed = false
    private let parsed = DispatchSemaphore(value: 0)
    private var waited = false

    init(bytes: UnsafeMutableBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    deinit {
        bytes.deallocate()  // a no-op once released
        dropRecords()
    }

    /// Worker side: one more record.
    func append(_ record: consuming Record) {
        if recordCount == recordCapacity {
            let capacity = max(1024, bytes.count / 60, recordCapacity * 2)  // rows of 60+ bytes: no regrowth
            let grown = UnsafeMutablePointer<Record>.allocate(capacity: capacity)
            if let records {
                grown.moveInitialize(from: records, count: recordCount)
                records.deallocate()
            }
            records = grown
            recordCapacity = capacity
        }
        (records! + recordCount).initialize(to: record)
        recordCount += 1
    }

    /// Reading side: the next record, moved out; nil after the last.
    func takeNext() -> Record? {
        guard taken < recordCount, let records else { return nil }
        taken += 1
        return (records + taken - 1).move()
    }

    /// The records not taken are destroyed, the storage freed.
    func dropRecords() {
        if let records {
            (records + taken).deinitialize(count: recordCount - taken)
            records.deallocate()
        }
        records = nil
        recordCount = 0
        recordCapacity = 0
        taken = 0
    }
    func markParsed() { parsed.signal() }

    /// Waits for the worker; only the thread that made the block calls it (any number of times).
    func waitUntilParsed() {
        guard !waited else { return }
        parsed.wait()
        waited = true
    }

    /// Frees the bytes and records once consumed.
    func release() {
        dropRecords()
        bytes.deallocate()
        bytes = UnsafeMutableBufferPointer(start: nil, count: 0)
    }
}

/// What the workers share: the layout, and time readers whose zone caches stay warm (one in use
/// per worker at a time).
private final class WorkerState: @unchecked Sendable {
    let layout: CSVLayout
    let keepExcerpts: Bool
    let keyHashPrefix: [UInt8]?
    private let name: ByteSource
    private var idle: [TimeReader] = []
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init(layout: CSVLayout, keepExcerpts: Bool, keyHashPrefix: [UInt8]?) {
        self.layout = layout
        self.keepExcerpts = keepExcerpts
        self.keyHashPrefix = keyHashPrefix
        name = ByteSource(bytes: [], name: layout.path, decompress: false)
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    private func takeTimes() -> TimeReader {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return idle.popLast() ?? TimeReader(options: layout.options)
    }

    private func giveBack(_ times: TimeReader) {
        pthread_mutex_lock(lock)
        idle.append(times)
        pthread_mutex_unlock(lock)
    }

    /// Parses one block (on a worker thread) and signals it.
    func parse(_ block: ParsedBlock) {
        defer { block.markParsed() }
        let times = takeTimes()
        defer { giveBack(times) }
        let source = CSVRecordSource(layout: layout, buffer: ChunkBuffer(borrowing: block.bytes, source: name),
                                     firstLine: 1, times: times)
        source.keyHashPrefix = keyHashPrefix
        var scratch: [UInt8] = []
        var accepted = 0
        var exampled = Set<RejectReason>()
        do {
            try source.forEachRecord { record in
                switch consume record {
                case .accepted(let incident):
                    let key: ParsedKey
                    if let hash = source.hashedKey {
                        key = .hashed(hash)
                    } else if incident.key.isEmpty {
                        key = .idless(digest: IncidentKeyer.contentDigest(incident, scratch: &scratch))
                    } else {
                        key = .id
                    }
                    block.append(.accepted(incident, key: key))
                    accepted += 1
                case .rejected(let reason, let location, let idHint):
                    guard case .line(let line) = location else { preconditionFailure("a CSV reject is located by line") }
                    var example: String?
                    if accepted == 0 && exampled.insert(reason).inserted {
                        example = source.currentValue(for: reason) ?? source.currentExcerpt()
                    }
                    block.append(.rejected(ParsedBlock.Reject(
                        reason: reason, line: line, idHint: idHint,
                        excerpt: keepExcerpts ? source.currentExcerpt() : nil, example: example)))
                }
            }
            block.lineFeeds = source.scanner.nextLine - 1
        } catch {
            block.dropRecords()
            block.failed = true
        }
    }
}

/// Cuts the bytes of a `ChunkBuffer` into blocks that end after a line feed outside quotes.
struct BlockCutter {
    let buffer: ChunkBuffer
    let target: Int
    let growth: Int
    private var atEOF = false
    /// No cut was found within `target` × 2^`growth` bytes: the rest is left in the buffer.
    private(set) var gaveUp = false

    init(buffer: ChunkBuffer, start: Int, target: Int, growth: Int) {
        self.buffer = buffer
        self.target = max(1, target)
        self.growth = growth
        buffer.release(upTo: start)
    }

    /// The next block (the caller owns and frees it), or nil at the end of the input or when no
    /// cut was found (`gaveUp`).
    mutating func next() throws(InputError) -> UnsafeMutableBufferPointer<UInt8>? {
        guard !gaveUp else { return nil }
        var want = target
        for _ in 0...growth {
            while buffer.end - buffer.start < want && !atEOF {
                if !(try buffer.refill().more) { atEOF = true }
            }
            let available = buffer.end - buffer.start
            if available == 0 { return nil }
            let cut: Int?
            if atEOF && available <= want {
                cut = available
            } else {
                cut = BlockCutter.lastLineEndOutsideQuotes(buffer.storage + buffer.start, count: min(available, want))
            }
            if let cut {
                let block = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: cut)
                block.baseAddress!.update(from: buffer.storage + buffer.start, count: cut)
                buffer.release(upTo: buffer.start + cut)
                return block
            }
            want *= 2
        }
        gaveUp = true
        return nil
    }

    /// What the cutter holds and has not handed out.
    var remainingBytes: UnsafeBufferPointer<UInt8> { buffer.slice(buffer.start, buffer.end) }

    /// The offset just after the last LF with an even number of quotes before it, if any.
    static func lastLineEndOutsideQuotes(_ p: UnsafePointer<UInt8>, count n: Int) -> Int? {
        var best: Int?
        var segment = 0
        var inQuotes = false
        while segment <= n {
            let quote = memchr(p + segment, Int32(ASCII.quote), n - segment).map { p.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? n
            if !inQuotes {
                // Backwards from the segment's end: the last LF is usually near it.
                var i = quote - 1
                while i >= segment && p[i] != ASCII.lf { i -= 1 }
                if i >= segment { best = i + 1 }
            }
            if quote == n { break }
            inQuotes.toggle()
            segment = quote + 1
        }
        return best
    }
}
