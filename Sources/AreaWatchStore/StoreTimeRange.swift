import AreaWatchCore

extension IncidentStore {
    /// The incidents whose time is in (`low`, `high`], with their rowids, found through the
    /// `incidents_time` index (SPEC §5): the incidents an as-of step moves between windows
    /// (SPEC §20), read without a scan of the table. In no particular order.
    public func incidents(timeAfter low: Int64, through high: Int64) throws -> [(rowid: Int64, row: ColumnSnapshot.Row)]
    {
        guard low < high else { return [] }
        let statement = try db.prepare(
            "SELECT rowid, time, lat, lon, handled, category FROM incidents INDEXED BY incidents_time "
                + "WHERE time > ?1 AND time <= ?2")
        statement.bind(1, low)
        statement.bind(2, high)
        var rows: [(rowid: Int64, row: ColumnSnapshot.Row)] = []
        while try statement.step() {
            let handled: Bool? = statement.isNull(4) ? nil : statement.int64(4) != 0
            rows.append(
                (
                    statement.int64(0),
                    ColumnSnapshot.Row(
                        lat: statement.double(2), lon: statement.double(3), time: statement.int64(1), handled: handled,
                        category: statement.string(5))
                ))
        }
        return rows
    }
}
