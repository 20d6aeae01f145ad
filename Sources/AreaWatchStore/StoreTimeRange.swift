import AreaWatchCore

extension IncidentStore {
    /// The rowids of the incidents whose time is in (`low`, `high`], read from the `incidents_time`
    /// index alone (SPEC §5; the index holds the rowid, so no row is visited): the incidents an
    /// as-of step moves between windows (SPEC §20), found without a scan of the table. In no
    /// particular order. `INDEXED BY` makes a missing index an error, never a table scan.
    public func rowids(timeAfter low: Int64, through high: Int64) throws -> [Int64] {
        guard low < high else { return [] }
        let statement = try db.prepare(
            "SELECT rowid FROM incidents INDEXED BY incidents_time WHERE time > ?1 AND time <= ?2")
        statement.bind(1, low)
        statement.bind(2, high)
        var rowids: [Int64] = []
        while try statement.step() { rowids.append(statement.int64(0)) }
        return rowids
    }
}
