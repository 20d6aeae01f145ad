/// WAL checkpoints on the caller's schedule (the nightly job runs one beside its report stage).
extension IncidentStore {
    /// Commits no longer copy the write-ahead log into the store file when it grows (SQLite's
    /// automatic checkpoint, run inside the committing call); `checkpoint()` does it instead.
    /// Commits stay durable: the log is synced at each commit.
    /// Kept across the reopening of a staged store when it is published.
    public func deferCheckpoints() throws {
        checkpointsDeferred = true
        try db.execute("PRAGMA wal_autocheckpoint=0")
    }

    /// Copies the write-ahead log into the store file (readers are not waited for).
    public func checkpoint() throws {
        try db.execute("PRAGMA wal_checkpoint(PASSIVE)")
    }
}
