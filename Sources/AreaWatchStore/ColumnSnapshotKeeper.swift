import AreaWatchCore
import Glibc

/// Keeps the column snapshot in step with an ingest (docs/DECISIONS.md, "column snapshot").
///
/// Holds the snapshot of the store's last committed state in memory. Each file's transaction
/// checks, inside the transaction, that the store is still at the snapshot's stamp; just before
/// its COMMIT it adds the rows the file added (rowids past the snapshot's last: those of a bulk
/// load as the load captured them, others read back inside the same transaction) and reads back
/// the rows it updated, and stamps the result with the state being committed. Without a usable snapshot at the start (none yet, stale, damaged, rowids with
/// gaps) the whole table is read instead, once. `save()` writes the file after the last commit.
///
/// Nothing here can fail an ingest: a problem drops the snapshot (a note says why) and the next
/// reader falls back to the store.
public final class ColumnSnapshotKeeper {
    private let store: IncidentStore
    public let path: String
    /// The snapshot of the state last seen (committed); nil when none is known to be valid.
    public private(set) var current: ColumnSnapshot?
    private var pending: ColumnSnapshot?
    /// Set at `begin`: the snapshot matches the transaction's starting state.
    private var base: ColumnSnapshot?
    private var unsaved = false
    /// What happened, for the log.
    private var notes: [String] = []
    /// What the commits since the first `begin` changed (the incremental nightly's delta).
    public private(set) var journal = ColumnJournal()

    /// The notes since the last call.
    public func takeNotes() -> [String] {
        defer { notes = [] }
        return notes
    }

    /// A commit changed the snapshot since the last `save()`.
    public var hasUnsavedChanges: Bool { unsaved }

    public init(store: IncidentStore) {
        self.store = store
        path = ColumnSnapshotFile.path(forStore: store.path)
    }

    private var fileRead = false
    /// The file being read on another thread, while the first file's rows go in.
    private var reading: BackgroundWork<ColumnSnapshotFile.Outcome, Never>?
    /// The stamp the transaction started at.
    private var startStamp: StoreStamp?
    private var baseSettled = true

    /// Inside a file's transaction, before its first write. The snapshot file (read once, at
    /// the first file) is read beside the inserts and compared with the starting stamp when the
    /// transaction ends.
    public func begin() {
        base = nil
        pending = nil
        startStamp = nil
        baseSettled = false
        do {
            guard let stamp = try store.stamp() else {
                journal.isComplete = false
                return
            }
            startStamp = stamp
            if journal.start == nil { journal.start = stamp }
            if !fileRead && current == nil {
                fileRead = true
                reading = BackgroundWork { [path] in ColumnSnapshotFile.read(path: path, expecting: stamp) }
            }
        } catch {
            journal.isComplete = false
            notes.append("column snapshot dropped: \(error)")
        }
    }

    /// After `begin`: whether a snapshot of the transaction's starting state may be known, so
    /// that the columns of the rows a bulk load inserts are worth capturing (false when the
    /// store holds rows and no snapshot is in memory or on disk: the table is read instead).
    public var mayUseInsertedColumns: Bool {
        guard let start = startStamp else { return false }
        return start.lastIncidentRowid == 0 || current != nil || (reading != nil && access(path, F_OK) == 0)
    }

    /// The snapshot of the transaction's starting state, if one is known (once per transaction).
    private func settleBase() {
        guard !baseSettled else { return }
        baseSettled = true
        if let reading {
            self.reading = nil
            switch reading.value() {
            case .valid(let snapshot): current = snapshot
            case .missing: notes.append("no column snapshot yet")
            case .invalid(let reason): notes.append("column snapshot not used: \(reason)")
            }
        }
        if let start = startStamp {
            if let current, current.stamp == start {
                base = current
            } else if start.lastIncidentRowid == 0 {
                base = ColumnSnapshot(stamp: start) // an empty store: nothing to read
            }
        }
        // The base is moved, not copied, into the next snapshot.
        current = nil
    }

    /// Inside the transaction, after its last write (the ingests row and the stamp's advance
    /// included), before COMMIT (`FileTransaction.beforeCommit`). The rows a bulk load inserted
    /// come from the transaction (`takeInsertedColumns`), the others are read back.
    public func prepareCommit(_ transaction: FileTransaction) {
        prepareCommit(updatedRowids: transaction.updatedRowids, inserted: transaction.takeInsertedColumns())
    }

    /// `prepareCommit` with what the file did: `updatedRowids`, the rows it updated; `inserted`,
    /// the columns of the rows it inserted when known (without them those rows are read back).
    public func prepareCommit(updatedRowids: [Int64], inserted: InsertedColumns? = nil) {
        settleBase()
        do {
            guard let stamp = try store.stamp() else {
                base = nil
                journal.isComplete = false
                return
            }
            if var next = base.take(), next.rowidsAreDense {
                let previousLast = next.stamp.lastIncidentRowid
                // The file's rows are known when they are exactly the rowids after the snapshot's;
                // those it updated after inserting them are read back.
                if var inserted, inserted.firstRowid == previousLast + 1,
                    previousLast + Int64(inserted.count) == stamp.lastIncidentRowid
                {
                    var updates: [(rowid: Int64, row: ColumnSnapshot.Row)] = []
                    for rowid in updatedRowids where rowid > previousLast {
                        guard let row = try store.row(rowid: rowid) else { return try rebuild(stamp: stamp) }
                        updates.append((rowid, row))
                    }
                    inserted.apply(updates: updates)
                    next.append(
                        lat: inserted.lat, lon: inserted.lon, time: inserted.time, handled: inserted.handled,
                        category: inserted.category, categoryTexts: inserted.categoryTexts)
                } else {
                    next.reserveCapacity(next.count + Int(max(0, stamp.lastIncidentRowid - previousLast)))
                    guard try store.appendRows(after: previousLast, to: &next) else {
                        return try rebuild(stamp: stamp)
                    }
                }
                for rowid in updatedRowids where rowid <= previousLast {
                    guard rowid >= 1, let row = try store.row(rowid: rowid) else { return try rebuild(stamp: stamp) }
                    journal.keepOriginal(of: rowid, in: next)
                    next.replace(at: Int(rowid - 1), with: row)
                }
                next.stamp = stamp
                pending = next
            } else {
                try rebuild(stamp: stamp)
            }
        } catch {
            pending = nil
            journal.isComplete = false
            notes.append("column snapshot dropped: \(error)")
        }
    }

    private func rebuild(stamp: StoreStamp) throws {
        journal.isComplete = false
        let (columns, dense) = try store.scanColumns()
        pending = ColumnSnapshot(columns: columns, stamp: stamp, rowidsAreDense: dense)
        notes.append("column snapshot rebuilt from the store (\(columns.count) incidents)")
    }

    /// After COMMIT succeeded.
    public func committed() {
        guard let pending else {
            journal.isComplete = false
            return
        }
        journal.end = pending.stamp
        current = pending
        self.pending = nil
        unsaved = true
    }

    /// After a rollback: the store is at the transaction's starting state again.
    public func rolledBack() {
        settleBase()
        current = base
        base = nil
        pending = nil
    }

    /// Writes the snapshot when a commit changed it. Returns the snapshot of the store's state
    /// (nil when none is known).
    @discardableResult
    public func save() -> ColumnSnapshot? {
        guard unsaved, let current else { return current }
        do {
            try ColumnSnapshotFile.write(current, to: path)
            unsaved = false
        } catch {
            unsaved = false
            notes.append("column snapshot not written: \(error)")
            ColumnSnapshotFile.remove(path: path)
        }
        return current
    }
}

extension IncidentStore {
    /// Appends the rows after `rowid`, in rowid order; false when their rowids do not continue
    /// `rowid + 1, rowid + 2, …` (the snapshot's positions would no longer be rowids).
    func appendRows(after rowid: Int64, to snapshot: inout ColumnSnapshot) throws -> Bool {
        let statement = try db.prepare(
            "SELECT rowid, lat, lon, time, handled, category FROM incidents WHERE rowid > ? ORDER BY rowid")
        statement.bind(1, rowid)
        var expected = rowid + 1
        while try statement.step() {
            guard statement.int64(0) == expected else { return false }
            snapshot.append(IncidentStore.snapshotRow(statement, from: 1))
            expected += 1
        }
        return true
    }

    /// One row by rowid.
    func row(rowid: Int64) throws -> ColumnSnapshot.Row? {
        let statement = try db.prepare("SELECT lat, lon, time, handled, category FROM incidents WHERE rowid = ?")
        statement.bind(1, rowid)
        return try statement.step() ? IncidentStore.snapshotRow(statement, from: 0) : nil
    }

    private static func snapshotRow(_ s: Statement, from c: Int32) -> ColumnSnapshot.Row {
        ColumnSnapshot.Row(
            lat: s.double(c), lon: s.double(c + 1), time: s.int64(c + 2),
            handled: s.isNull(c + 3) ? nil : s.int64(c + 3) != 0, category: s.string(c + 4))
    }
}
