import AreaWatchCore
import AreaWatchIngest

/// `--group-by` on a field no incident has is a usage error (SPEC §7.5): a misspelt attribute
/// would otherwise give a breakdown of one row, every incident under "no value".
enum GroupByCheck {
    static func problem(_ field: BreakdownField, in columns: IncidentColumns) -> String? {
        guard columns.count > 0 else { return nil }
        switch field {
        case .category:
            guard !columns.category.contains(where: { $0 >= 0 }) else { return nil }
            return "--group-by category: no incident has a category (\(columns.count) incidents); "
                + "name the category column with --column category=NAME"
        case .attribute(let name):
            guard columns.groupValues.isEmpty else { return nil }
            let shown = name.count > 80 ? String(name.prefix(80)) + "…" : name
            if let filled = IncidentField.field(forName: name) {
                return "--group-by \(shown): a column of that name is read as the \(filled.rawValue) field "
                    + "(SPEC §2.3), not kept as a column" + (filled == .category ? "; group by category" : "")
            }
            return "--group-by \(shown): no incident has a column of that name (\(columns.count) incidents); "
                + "give category or the name of a column the inputs have"
        }
    }
}
