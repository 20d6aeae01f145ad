import AreaWatchCore
import Dispatch

/// The rows of a bulk load into a store that held no incidents when the file began: buffered,
/// sorted by key in chunks and inserted on a second thread while the file is still being read.
///
/// Why (docs/PERFORMANCE.md, "Store"): inserting keys in file order puts each one at a random
/// place of the key index (`key TEXT PRIMARY KEY`); once that index outgrows the CPU caches, the
/// cost per row grows with the store. Keys sorted in chunks of 2^17 land next to each other, so
/// consecutive inserts touch the same pages. Rowids then follow the chunks'
/// key order instead of the file's, which no query or report depends on (the reports of a store
/// in either order are byte-identical, tested).
///
/// Outcomes stay exact and immediate: into a store empty at the start, a key not seen before in
/// the file is `.inserted`. `KeyDigestSet` remembers the keys seen; a repeated key (or a rare
/// digest collision) answers false from `add`, and the caller drains the buffer and writes that
/// record through SQL, which then decides between updated and duplicate as for any store.
final class SortedChunkInserter: @unchecked Sendable {
    static let defaultChunkSize = 1 << 17

    private let chunkSize: Int
    private let db: SQLiteDatabase
    private let statements: FileTransaction.RowStatements
    private let collected: FileTransaction.InsertedRows
    private var seen: KeyDigestSet
    private var buffer: [Incident] = []
    /// The snapshot columns of the rows, appended in key order as each chunk is handed over.
    private let capture: ColumnCapture
    /// One chunk is inserted while the next fills; `queue` runs the inserts, in order.
    private let queue = DispatchQueue(label: "areawatch.sorted-chunk-insert")
    /// Set on `queue` only; read after waiting for it.
    private var failure: (any Error)?

    init(
        db: SQLiteDatabase, statements: FileTransaction.RowStatements, collected: FileTransaction.InsertedRows,
        expectedRows: Int, chunkSize: Int = SortedChunkInserter.defaultChunkSize
    ) {
        self.chunkSize = chunkSize
        self.db = db
        self.statements = statements
        self.collected = collected
        capture = collected.columns
        seen = KeyDigestSet(expected: expectedRows)
        buffer.reserveCapacity(min(chunkSize, expectedRows))
    }

    /// Buffers a record whose key this file has not shown before (true), or does nothing (false:
    /// the key may have been seen; drain, then write it through SQL).
    func add(_ incident: Incident) throws -> Bool {
        guard seen.insert(digest: KeyDigestSet.digest(incident.key)) else { return false }
        buffer.append(incident)
        if buffer.count == chunkSize { try submit() }
        return true
    }

    /// Inserts everything buffered and waits until it is in; rethrows an insert's error.
    func drain() throws {
        if !buffer.isEmpty { try submit() }
        try wait()
    }

    /// Waits for the insert in flight without inserting the rest (the file is abandoned).
    func abandon() {
        buffer = []
        queue.sync {}
    }

    private func wait() throws {
        try queue.sync { if let failure { throw failure } }
    }

    /// A chunk handed to `queue`: its incidents in reverse key order (taken from the end, so
    /// moved rather than copied) and their geohashes in key order; the incidents once inserted,
    /// left for the reading thread to free.
    private final class Chunk: @unchecked Sendable {
        var incidents: [Incident] = []
        var geohashes: [String] = []
        var inserted: [Incident] = []
    }
    /// The chunk handed over last, freed here once the next is handed over.
    private var handedOver: Chunk?

    /// Orders the chunk by key and computes its geohashes and snapshot columns on this thread,
    /// while the chunk before goes in. Why: the inserting thread bounds the load, so everything
    /// else (these, copying each incident out of the chunk with an atomic retain and release per
    /// String, freeing the chunk) is kept off it.
    private func submit() throws {
        let order = SortedChunkInserter.keyOrder(buffer)
        let chunk = Chunk()
        chunk.incidents.reserveCapacity(order.count)
        chunk.geohashes.reserveCapacity(order.count)
        for i in order.reversed() { chunk.incidents.append(buffer[Int(i)]) }
        for i in order {
            let i = Int(i)
            chunk.geohashes.append(Geohash.encode(lat: buffer[i].lat, lon: buffer[i].lon, precision: 12))
            capture.append(time: buffer[i].time, handled: buffer[i].handled, category: buffer[i].category)
        }
        buffer = []
        buffer.reserveCapacity(chunkSize)
        try wait()
        handedOver = chunk
        queue.async { [self] in
            guard failure == nil else { return }
            do { try insert(chunk) } catch { failure = error }
        }
    }

    /// On `queue`: the chunk in key order, each row new (its key is in neither the store nor
    /// the file before it).
    private func insert(_ chunk: Chunk) throws {
        let insert = statements.insert
        var incidents: [Incident] = []
        swap(&incidents, &chunk.incidents) // the only reference: popLast moves
        var inserted: [Incident] = []
        inserted.reserveCapacity(incidents.count)
        var k = 0
        while let incident = incidents.popLast() {
            statements.bindAll(insert, incident, geohash: chunk.geohashes[k])
            k += 1
            try PointBlob.with(lat: incident.lat, lon: incident.lon) { blob in
                insert.bind(13, blob: blob)
                try insert.run()
            }
            guard db.changes == 1 else {
                throw StoreError(
                    path: db.path, code: .constraint,
                    message: "key \(incident.key) was already stored during a bulk load into an empty store")
            }
            collected.rows.append(rowid: db.lastInsertRowid, lat: incident.lat, lon: incident.lon)
            inserted.append(incident)
        }
        chunk.inserted = inserted
    }

    /// Positions of `chunk` in byte order of the keys (SQLite's BINARY collation): first by the
    /// 8 bytes after the prefix every key shares (`SOURCE:` under `--source`, `h:` of id-less
    /// rows), then by the whole key.
    static func keyOrder(_ chunk: [Incident]) -> [UInt32] {
        guard let first = chunk.first else { return [] }
        var shared = first.key.utf8.count
        let firstBytes = Array(first.key.utf8)
        for incident in chunk where shared > 0 {
            var k = 0
            for byte in incident.key.utf8.prefix(shared) {
                if byte != firstBytes[k] { break }
                k += 1
            }
            shared = k
        }
        var order: [(prefix: UInt64, index: UInt32)] = []
        order.reserveCapacity(chunk.count)
        for (i, incident) in chunk.enumerated() {
            var prefix: UInt64 = 0
            var n = 0
            for byte in incident.key.utf8.dropFirst(shared).prefix(8) {
                prefix = prefix << 8 | UInt64(byte)
                n += 1
            }
            order.append((prefix << (8 * UInt64(8 - n)), UInt32(i)))
        }
        order.sort { a, b in
            if a.prefix != b.prefix { return a.prefix < b.prefix }
            return chunk[Int(a.index)].key.utf8.lexicographicallyPrecedes(chunk[Int(b.index)].key.utf8)
        }
        return order.map(\.index)
    }
}

/// A set of 64-bit key digests (open addressing, linear probing) that answers "certainly new" or
/// "maybe seen": two keys with one digest cost a drain and an SQL write, never a wrong count.
/// At most 3/4 full: 8 to 16 bytes a key.
struct KeyDigestSet {
    private var slots: [UInt64]
    private var count = 0
    private var shift: UInt64

    init(expected: Int) {
        var capacity = 1 << 12
        while capacity * 3 / 4 < expected { capacity <<= 1 }
        slots = [UInt64](repeating: 0, count: capacity)
        shift = UInt64(64 - capacity.trailingZeroBitCount)
    }

    /// SipHash of the key's bytes with the process's random seed (`KeyHash`): a file cannot be
    /// made of keys that collide.
    static func digest(_ key: String) -> UInt64 {
        let digest = KeyHash(key).a
        return digest == 0 ? 1 : digest // 0 marks an empty slot
    }

    /// Inserts; false when the digest was there already (the key may have been seen).
    mutating func insert(digest: UInt64) -> Bool {
        if (count + 1) * 4 > slots.count * 3 { grow() }
        guard KeyDigestSet.place(digest, in: &slots, shift: shift) else { return false }
        count += 1
        return true
    }

    private static func place(_ digest: UInt64, in slots: inout [UInt64], shift: UInt64) -> Bool {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: digest >> shift)
        var table = slots.mutableSpan
        while true {
            let entry = table[unchecked: slot]
            if entry == 0 {
                table[unchecked: slot] = digest
                return true
            }
            if entry == digest { return false }
            slot = (slot + 1) & mask
        }
    }

    private mutating func grow() {
        var bigger = [UInt64](repeating: 0, count: slots.count * 2)
        let newShift = shift - 1
        for digest in slots where digest != 0 { _ = KeyDigestSet.place(digest, in: &bigger, shift: newShift) }
        slots = bigger
        shift = newShift
    }
}
