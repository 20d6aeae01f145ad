import AreaWatchCore

extension GridResult {
    /// SPEC §12 per reported cell, in `cells` order: E-test of `r_current` against `r_previous`
    /// over the two windows' lengths in days, BH q over all the cells, `change` at `alpha`.
    public func changeSignificance(alpha: Double = 0.05, threads: Int = 2) -> [ChangeSignificance] {
        let days = parameters.windows.windowDays
        return ChangeSignificance.of(
            current: cells.map(\.rCurrent), previous: cells.map(\.rPrevious),
            currentDays: days.current, previousDays: days.previous,
            alpha: alpha, threads: threads)
    }
}

extension QueryParameters {
    /// SPEC §12 for rows of counts inside (areas, breakdown values: `n_current` / `n_previous`;
    /// POIs: `current` / `previous`): E-test over these windows, BH over the given rows.
    public func changeSignificance(
        current: [Int], previous: [Int], alpha: Double = 0.05,
        threads: Int = 2
    ) -> [ChangeSignificance] {
        let days = windows.windowDays
        return ChangeSignificance.of(
            current: current, previous: previous, currentDays: days.current,
            previousDays: days.previous, alpha: alpha, threads: threads)
    }
}
