import AreaWatchCore
import AreaWatchQuery
import Testing

@Suite struct ChangeSignificanceQueryTests {
    /// Per grid cell: the E-test of its radius counts over the windows' days, BH over all cells.
    @Test(arguments: [DataKind.hotspots, .snapped])
    func gridCellsCarryTheirSignificance(_ kind: DataKind) {
        let parameters = QueryParameters(asOf: TestData.asOf)
        let index = IncidentIndex(columns: TestData.synthetic(kind).columns, parameters: parameters)
        let grid = index.grid(precision: 7)
        let rows = grid.changeSignificance(alpha: 0.05)
        let days = parameters.windows.windowDays
        #expect(days.current == 365 && days.previous == 365)
        let p = grid.cells.map { PoissonETest.pValue(k1: $0.rCurrent, n1: 365, k2: $0.rPrevious, n2: 365) }
        #expect(rows.map(\.p) == p)
        #expect(rows.map(\.q) == BenjaminiHochberg.adjust(p))
        for (cell, row) in zip(grid.cells, rows) {
            #expect(
                row.change == ChangeDirection(current: cell.rCurrent, previous: cell.rPrevious, q: row.q, alpha: 0.05))
        }
        #expect(rows.count == grid.cells.count)
    }
}
