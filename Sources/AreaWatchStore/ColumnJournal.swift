import AreaWatchCore

/// What an ingest's commits changed in the store, as the column snapshot saw them: the stamp
/// the first transaction started at, the stamp of the last commit, and the content before the
/// ingest of every row an ingest updated that was already there at the start. The rows added
/// are those past the start's last rowid; the rows' content after is the keeper's snapshot.
///
/// Complete only when every commit went through the snapshot's patch path (dense rowids, the
/// base known): a rebuild from the table, a dropped snapshot or a missing stamp leaves gaps in
/// what is known of the changes, and the incremental nightly then recomputes (SPEC §20).
public struct ColumnJournal: Sendable {
    /// The stamp the first transaction started at; nil when no ingest began.
    public internal(set) var start: StoreStamp?
    /// The stamp of the last commit; nil when none committed.
    public internal(set) var end: StoreStamp?
    public internal(set) var isComplete = true
    /// rowid → the row's content at `start` (first update only).
    public internal(set) var originals: [Int64: ColumnSnapshot.Row] = [:]

    public init() {}

    /// Before row `rowid` of `snapshot` (the state before a commit) is replaced: its content is
    /// kept when the row was there at the start and not yet kept.
    mutating func keepOriginal(of rowid: Int64, in snapshot: ColumnSnapshot) {
        guard let start, rowid <= start.lastIncidentRowid, originals[rowid] == nil else { return }
        let i = Int(rowid - 1)
        originals[rowid] = snapshot.row(at: i)
    }
}
