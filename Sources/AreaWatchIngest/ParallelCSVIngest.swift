import AreaWatchCore
import Dispatch
import Glibc
import Synchronization

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
    /// Records between a key's prefetch and its keying.
    static let prefetchDistance = 16

    /// Blocks cut and not yet taken back at any moment (docs/RELIABILITY.md states the memory
    /// bound from it): twice the parsing threads and one, so that the parsers always find a block
    /// while this thread keys and writes the head one, and the bytes held stay a fixed multiple of
    /// the block size whatever the file's length.
    static func blocksInFlight(threads: Int) -> Int { 2 * max(1, threads) + 1 }

    /// The most bytes one block can hold: a cut is looked for up to `target` × 2^`maxGrowth`
    /// bytes, after which the rest of the file is streamed by one thread.
    static func largestBlockBytes(target: Int) -> Int { target << maxGrowth }

    /// The accepted incidents reach `emit` in batches, in file order, where the parsing thread left
    /// them, keyed: with `accounting.hashesKeys` their keys are empty and the keys' hashes come
    /// beside them, else each has its key and the hashes are nil.
    static func ingest(
        csv: CSVRecordSource, byteSource: ByteSource, threads: Int, options: IngestOptions,
        accounting: inout RecordAccounting, report: inout FileIngestReport,
        emit: (borrowing IncidentBatch) throws -> Void
    ) throws {
        let layout = csv.layout
        var cutter = BlockCutter(
            buffer: csv.scanner.buffer, start: csv.scanner.endOfRecord,
            target: options.parallelBlockBytes, growth: maxGrowth)
        let workers = WorkerState(
            layout: layout, keepExcerpts: accounting.rejects != nil,
            keyHashPrefix: accounting.hashesKeys ? Array(accounting.keyPrefix.utf8) : nil)
        var inFlight: [ParsedBlock] = []
        var head = 0
        var line = csv.scanner.nextLine
        var cutterDone = false
        var hashes: [KeyHash] = []
        accounting.contentBase = csv.contentOffset // the header's end
        defer { for block in inFlight[head...] { block.waitUntilParsed() } }
        while true {
            // Up to `blocksInFlight` blocks: with fewer, the parsers and this thread wait on each
            // other; with more, only memory grows (malloc reuses the freed blocks' memory).
            while !cutterDone && inFlight.count - head < blocksInFlight(threads: threads) {
                guard let bytes = try cutter.next() else {
                    cutterDone = true
                    break
                }
                let block = ParsedBlock(bytes: bytes)
                inFlight.append(block)
                DispatchQueue.global().async { if block.claim() { workers.parse(block) } }
            }
            guard head < inFlight.count else { break }
            let block = inFlight[head]
            // Rather than wait, this thread parses too: the head block if no worker has begun it,
            // else the next one none has, so no core idles while a parsed block is due (a block
            // is claimed once, atomically, so it is parsed by exactly one thread).
            while !block.isParsed {
                if block.claim() {
                    workers.parse(block)
                } else if let spare = inFlight[(head + 1)...].first(where: { $0.claim() }) {
                    workers.parse(spare)
                } else {
                    break
                }
            }
            block.waitUntilParsed()
            guard !block.failed else { break }
            try emitRecords(
                of: block, firstLine: line, hashes: &hashes, accounting: &accounting, report: &report,
                emit: emit)
            line += block.lineFeeds
            accounting.finishedBlock(bytes: block.bytes.count, report: report)
            // Freeing the incidents (their texts' releases) falls to a parsing thread: this one
            // sets the ingest's pace.
            DispatchQueue.global().async { block.release() }
            head += 1
        }
        // Streamed from the first block not accepted (or where no cut was found) to the end.
        guard head < inFlight.count || cutter.gaveUp else { return }
        try streamRest(
            of: inFlight[head...], cutter: cutter, byteSource: byteSource, layout: layout, firstLine: line,
            options: options, accounting: &accounting, report: &report, emit: emit)
    }

    /// The blocks from `blocks` on and the bytes the cutter has not cut, read by the one-thread
    /// reader from `firstLine` (after a block that did not end on a record boundary, or when no cut
    /// was found).
    private static func streamRest(
        of blocks: ArraySlice<ParsedBlock>, cutter: BlockCutter, byteSource: ByteSource, layout: CSVLayout,
        firstLine line: Int, options: IngestOptions, accounting: inout RecordAccounting,
        report: inout FileIngestReport,
        emit: (borrowing IncidentBatch) throws -> Void
    ) throws {
        var prefix: [UInt8] = []
        for block in blocks {
            block.waitUntilParsed()
            prefix.append(contentsOf: block.unsafeBytes)
            block.release()
        }
        prefix.append(contentsOf: cutter.remainingBytes)
        let rest = ByteSource(prefix: prefix, then: byteSource)
        prefix = []
        let buffer = ChunkBuffer(source: rest, chunkSize: options.reader.readWindowBytes)
        let hashing = accounting.hashesKeys
        try accounting.read(CSVRecordSource(layout: layout, buffer: buffer, firstLine: line), into: &report) {
            incident in
            let hash = hashing ? KeyHash(incident.key) : nil
            try withUnsafePointer(to: incident) { pointer in
                let one = UnsafeBufferPointer(start: pointer, count: 1)
                if let hash {
                    try withUnsafePointer(to: hash) {
                        try emit(IncidentBatch(one, keyHashes: .init(start: $0, count: 1)))
                    }
                } else {
                    try emit(IncidentBatch(one))
                }
            }
        }
    }

    /// A parsed block's records in file order, on the reading thread: runs of accepted incidents
    /// keyed in place and emitted, each reject recorded where it was read (`line` is the block's
    /// first line).
    private static func emitRecords(
        of block: ParsedBlock, firstLine line: Int, hashes: inout [KeyHash],
        accounting: inout RecordAccounting, report: inout FileIngestReport,
        emit: (borrowing IncidentBatch) throws -> Void
    ) throws {
        var done = 0
        for k in 0...block.rejects.count {
            let end = k < block.rejects.count ? block.rejects[k].acceptedBefore : block.acceptedCount
            if end > done {
                // Read and keyed in place: no other thread touches the block until release.
                let incidents = block.incidents.unsafeBaseAddress, keys = block.keys.unsafeBaseAddress
                // The ordinal table's slots are random reads over megabytes: each starts
                // loading `prefetchDistance` records ahead.
                for i in done..<min(end, done + prefetchDistance) { accounting.prefetch(keys[i]) }
                hashes.removeAll(keepingCapacity: true)
                for i in done..<end {
                    if i + prefetchDistance < end { accounting.prefetch(keys[i + prefetchDistance]) }
                    if accounting.hashesKeys {
                        hashes.append(accounting.acceptHashed(&incidents[i], key: keys[i], report: &report))
                    } else {
                        accounting.accept(&incidents[i], key: keys[i], report: &report)
                    }
                }
                let run = UnsafeBufferPointer(start: incidents + done, count: end - done)
                try hashes.withUnsafeBufferPointer {
                    try emit(IncidentBatch(run, keyHashes: accounting.hashesKeys ? $0 : nil))
                }
                done = end
            }
            guard k < block.rejects.count else { break }
            let reject = block.rejects[k]
            try accounting.reject(
                reject.reason, location: .line(line + reject.line - 1), idHint: reject.idHint,
                report: &report, example: { reject.example ?? "" },
                excerpt: { reject.excerpt ?? "" })
        }
    }
}

/// One block of the file and, once a worker is done, its records: the accepted incidents with
/// their parsed keys, and the rejects, each placed by how many incidents were accepted before it.
///
/// The incidents stay where the worker put them until the block is released: the reading thread
/// keys them in place and the sink reads them there. Moved out one by one and batched, each was
/// copied twice on the thread that sets the ingest's pace.
final class ParsedBlock: @unchecked Sendable {
    /// A reject as the one-thread path would record it: `line` counts from the block's first line.
    struct Reject {
        var reason: RejectReason
        var line: Int
        var idHint: String?
        var excerpt: String?
        /// The value for an all-rejected file's message (the first of its reason while the block
        /// has accepted nothing).
        var example: String?
        /// How many of the block's incidents were accepted before it.
        var acceptedBefore = 0
    }

    private(set) var bytes: GrowableBuffer<UInt8>
    // Unchecked: one thread at a time has the block (the worker until `markParsed`, then the
    // reading thread), so the per-append exclusivity bookkeeping would find nothing.
    @exclusivity(unchecked) private(set) var incidents = GrowableBuffer<Incident>(capacity: 1)
    @exclusivity(unchecked) private(set) var keys = GrowableBuffer<ParsedKey>(capacity: 1)
    var acceptedCount: Int { incidents.count }
    private(set) var rejects: [Reject] = []
    /// Line feeds in the block: the next block starts this many lines further.
    var lineFeeds = 0
    /// The scan did not end on a record boundary: the block is read again by the streaming reader.
    var failed = false
    private let parsed = DispatchSemaphore(value: 0)
    private var waited = false
    private let claimed = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)

    init(bytes: consuming GrowableBuffer<UInt8>) {
        self.bytes = bytes
    }

    /// The block's bytes, read in place by the worker's scanner while the block lives.
    var unsafeBytes: UnsafeMutableBufferPointer<UInt8> {
        UnsafeMutableBufferPointer(start: bytes.unsafeBaseAddress, count: bytes.count)
    }

    /// Worker side: one more accepted incident.
    func append(_ incident: consuming Incident, key: ParsedKey) {
        if incidents.count == incidents.capacity {
            let grown = max(1024, bytes.count / 60, incidents.capacity * 2) // rows of 60+ bytes: no regrowth
            incidents.reserveCapacity(grown)
            keys.reserveCapacity(grown)
        }
        incidents.append(consume incident)
        keys.append(key)
    }

    /// Worker side: one more reject, after the incidents accepted so far.
    func append(_ reject: Reject) {
        var reject = reject
        reject.acceptedBefore = acceptedCount
        rejects.append(reject)
    }

    /// The records are destroyed, their storage freed.
    func dropRecords() {
        incidents = GrowableBuffer(capacity: 1)
        keys = GrowableBuffer(capacity: 1)
        rejects = []
    }

    /// True for the one thread that will parse the block.
    func claim() -> Bool {
        claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }

    func markParsed() {
        finished.store(true, ordering: .releasing)
        parsed.signal()
    }

    /// Whether the block is parsed, without waiting.
    var isParsed: Bool { finished.load(ordering: .acquiring) }

    /// Waits for the worker; only the thread that made the block calls it (any number of times).
    func waitUntilParsed() {
        guard !waited else { return }
        parsed.wait()
        waited = true
    }

    /// Frees the bytes and records once consumed.
    func release() {
        dropRecords()
        bytes = GrowableBuffer(capacity: 1)
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
    /// At one address for as long as the state lives, as pthreads requires.
    private let lock = PinnedValue(pthread_mutex_t())

    init(layout: CSVLayout, keepExcerpts: Bool, keyHashPrefix: [UInt8]?) {
        self.layout = layout
        self.keepExcerpts = keepExcerpts
        self.keyHashPrefix = keyHashPrefix
        name = ByteSource(bytes: [], name: layout.path, decompress: false)
        pthread_mutex_init(lock.pointer, nil)
    }

    deinit {
        pthread_mutex_destroy(lock.pointer)
    }

    private func takeTimes() -> TimeReader {
        pthread_mutex_lock(lock.pointer)
        defer { pthread_mutex_unlock(lock.pointer) }
        return idle.popLast() ?? TimeReader(options: layout.options)
    }

    private func giveBack(_ times: TimeReader) {
        pthread_mutex_lock(lock.pointer)
        idle.append(times)
        pthread_mutex_unlock(lock.pointer)
    }

    /// Parses one block (on a worker thread) and signals it.
    func parse(_ block: ParsedBlock) {
        defer { block.markParsed() }
        let times = takeTimes()
        defer { giveBack(times) }
        let source = CSVRecordSource(
            layout: layout, buffer: ChunkBuffer(borrowing: block.unsafeBytes, source: name),
            firstLine: 1, times: times)
        source.keyHashPrefix = keyHashPrefix
        var scratch: [UInt8] = []
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
                    block.append(incident, key: key)
                case .rejected(let reason, let location, let idHint):
                    guard case .line(let line) = location else {
                        preconditionFailure("a CSV reject is located by line")
                    }
                    var example: String?
                    if block.acceptedCount == 0 && exampled.insert(reason).inserted {
                        example = source.currentValue(for: reason) ?? source.currentExcerpt()
                    }
                    block.append(
                        ParsedBlock.Reject(
                            reason: reason, line: line, idHint: idHint,
                            excerpt: keepExcerpts ? source.currentExcerpt() : nil, example: example))
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
    mutating func next() throws(InputError) -> GrowableBuffer<UInt8>? {
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
                var block = GrowableBuffer<UInt8>(capacity: cut)
                block.append(contentsOf: buffer.slice(buffer.start, buffer.start + cut))
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
            let quote =
                memchr(p + segment, Int32(ASCII.quote), n - segment).map {
                    p.distance(to: $0.assumingMemoryBound(to: UInt8.self))
                } ?? n
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
