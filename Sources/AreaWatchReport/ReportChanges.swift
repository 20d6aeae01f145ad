import AreaWatchCore
import AreaWatchQuery

/// SPEC §12 for every output of a report: `p_change`, `q_change` and `change` per row, aligned
/// with the rows of the public content (grid cells, areas, points of interest, breakdown values).
///
/// A row whose comparison disclosure control withholds (`Disclosure.showsComparison`) gets nil
/// and takes no part in Benjamini–Hochberg: its p-value would be a figure derived from a withheld
/// count, and counting it in m would let one isolated incident move every other row's q
/// (docs/PRIVACY.md). Without `--min-cell-count` that is no row, and q is over all rows as SPEC
/// §12 states.
public struct ReportChanges: Sendable {
    public var grid: [ChangeSignificance?]
    public var areas: [ChangeSignificance?]
    public var pointsOfInterest: [ChangeSignificance?]
    public var breakdown: [ChangeSignificance?]

    public init(_ content: ReportContent, threads: Int = Concurrency.processorCount) {
        func rows(_ pairs: [(current: Int, previous: Int)]) -> [ChangeSignificance?] {
            ReportChanges.significance(pairs, content: content, threads: threads)
        }
        grid = rows(content.grid.cells.map { ($0.rCurrent, $0.rPrevious) })
        areas = rows(content.areas?.result.areas.map { ($0.nCurrent, $0.nPrevious) } ?? [])
        pointsOfInterest = rows(content.pointsOfInterest?.map { ($0.answer.current, $0.answer.previous) } ?? [])
        breakdown = rows(content.breakdown?.rows.map { ($0.current, $0.previous) } ?? [])
    }

    static func significance(
        _ pairs: [(current: Int, previous: Int)], content: ReportContent,
        threads: Int
    ) -> [ChangeSignificance?] {
        let shown = pairs.indices.filter {
            content.disclosure.showsComparison(current: pairs[$0].current, previous: pairs[$0].previous)
        }
        let values = content.parameters.changeSignificance(
            current: shown.map { pairs[$0].current },
            previous: shown.map { pairs[$0].previous },
            alpha: content.fdr, threads: threads)
        var out = [ChangeSignificance?](repeating: nil, count: pairs.count)
        for (k, row) in shown.enumerated() { out[row] = values[k] }
        return out
    }

    /// `p_change,q_change,change` as CSV fields (empty when withheld), after a comma. `memo`: for
    /// a writer of many rows (a grid's values repeat).
    static func appendCSV(_ s: ChangeSignificance?, to out: inout [UInt8], memo: inout NumberTextMemo) {
        out.append(ASCII.comma)
        if let s { memo.append(s.p, to: &out) }
        out.append(ASCII.comma)
        if let s { memo.append(s.q, to: &out) }
        out.append(ASCII.comma)
        if let s { out.append(contentsOf: s.change.rawValue.utf8) }
    }

    /// The three as JSON members (null when withheld), each after a comma.
    static func appendJSON(_ s: ChangeSignificance?, to out: inout [UInt8], memo: inout NumberTextMemo) {
        out.append(contentsOf: ",\"p_change\":".utf8)
        if let s { memo.append(s.p, to: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: ",\"q_change\":".utf8)
        if let s { memo.append(s.q, to: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: ",\"change\":".utf8)
        if let s {
            out.append(contentsOf: "\"\(s.change.rawValue)\"".utf8)
        } else {
            out.append(contentsOf: "null".utf8)
        }
    }

    static let csvHeader = ["p_change", "q_change", "change"]
}
