/// What `--group-by` breaks the counts down by (SPEC §7.5): the category, or an attribute (a
/// kept input column) of that name.
public enum BreakdownField: Sendable, Hashable {
    case category
    case attribute(String)

    /// `category` names the category field; any other name an attribute.
    public init(name: String) {
        self = name == "category" ? .category : .attribute(name)
    }

    public var name: String {
        switch self {
        case .category: return "category"
        case .attribute(let name): return name
        }
    }

    /// The attribute whose values must be loaded; nil for the category, which is always loaded.
    public var attribute: String? {
        if case .attribute(let name) = self { return name }
        return nil
    }
}

extension BreakdownField: ExpressibleByStringLiteral {
    public init(stringLiteral name: String) { self.init(name: name) }
}
