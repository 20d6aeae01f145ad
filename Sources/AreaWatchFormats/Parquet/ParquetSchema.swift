/// A Parquet file's schema as the writer supports it: top-level columns, REQUIRED or OPTIONAL,
/// and one level of REQUIRED groups of REQUIRED columns (GeoParquet's `bbox` covering).
public struct ParquetSchema: Sendable {
    /// Parquet's physical types that the writer encodes (the values are parquet.thrift's `Type`).
    public enum PhysicalType: Int32, Sendable {
        case boolean = 0, int32 = 1, int64 = 2, double = 5, byteArray = 6
    }

    /// A column holding values.
    public struct Leaf: Sendable {
        public var name: String
        public var type: PhysicalType
        /// UTF-8 text (LogicalType STRING); only for `byteArray`.
        public var isString: Bool
        /// OPTIONAL (nulls allowed) rather than REQUIRED.
        public var isOptional: Bool
        /// Whether a column chunk may be dictionary-encoded (when that is smaller than PLAIN).
        /// Off for values that never repeat, such as geometries, to spare the hashing.
        public var allowsDictionary: Bool
        /// Whether chunks carry min/max statistics (null counts are always written).
        public var hasMinMax: Bool

        public init(
            _ name: String, _ type: PhysicalType, isString: Bool = false, isOptional: Bool = false,
            allowsDictionary: Bool = true, hasMinMax: Bool = true
        ) {
            precondition(!isString || type == .byteArray, "only a byte array holds text")
            self.name = name
            self.type = type
            self.isString = isString
            self.isOptional = isOptional
            self.allowsDictionary = allowsDictionary && type != .boolean
            self.hasMinMax = hasMinMax && type != .boolean
        }

        public static func string(_ name: String, optional: Bool = false) -> Leaf {
            Leaf(name, .byteArray, isString: true, isOptional: optional)
        }

        public static func int64(_ name: String, optional: Bool = false) -> Leaf {
            Leaf(name, .int64, isOptional: optional)
        }

        public static func double(_ name: String, optional: Bool = false) -> Leaf {
            Leaf(name, .double, isOptional: optional)
        }
    }

    public enum Field: Sendable {
        case leaf(Leaf)
        /// A REQUIRED group of REQUIRED leaves.
        case group(String, [Leaf])
    }

    public var fields: [Field]

    public init(_ fields: [Field]) {
        for case .group(_, let children) in fields {
            precondition(!children.isEmpty && children.allSatisfy { !$0.isOptional }, "a group holds required leaves")
        }
        self.fields = fields
    }

    /// Every leaf column in file order with its path (`["bbox", "xmin"]`).
    public var leaves: [(path: [String], leaf: Leaf)] {
        fields.flatMap { field -> [(path: [String], leaf: Leaf)] in
            switch field {
            case .leaf(let leaf): return [([leaf.name], leaf)]
            case .group(let name, let children): return children.map { ([name, $0.name], $0) }
            }
        }
    }

    /// The schema flattened depth first, as the footer lists it: a root named `schema`, then
    /// each field, a group followed by its children.
    var elements: [ParquetThrift.SchemaElement] {
        var out = [ParquetThrift.SchemaElement(name: "schema", childCount: Int32(fields.count))]
        func leafElement(_ leaf: Leaf) -> ParquetThrift.SchemaElement {
            ParquetThrift.SchemaElement(
                name: leaf.name, type: leaf.type.rawValue, repetition: leaf.isOptional ? 1 : 0,
                isString: leaf.isString)
        }
        for field in fields {
            switch field {
            case .leaf(let leaf): out.append(leafElement(leaf))
            case .group(let name, let children):
                out.append(ParquetThrift.SchemaElement(name: name, repetition: 0, childCount: Int32(children.count)))
                out += children.map(leafElement)
            }
        }
        return out
    }
}
