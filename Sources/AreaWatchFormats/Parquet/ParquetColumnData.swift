/// One column's values for one row group, appended row by row. Only the array of the column's
/// physical type is used; nulls (OPTIONAL columns) are kept as `defined[row] == false` and take
/// no place among the values.
public struct ParquetColumnData: Sendable {
    public let type: ParquetSchema.PhysicalType
    public let isOptional: Bool
    public private(set) var rowCount = 0
    /// Per row, whether it has a value; empty for a REQUIRED column.
    public private(set) var defined: [Bool] = []
    public private(set) var booleans: [Bool] = []
    public private(set) var int32s: [Int32] = []
    public private(set) var int64s: [Int64] = []
    public private(set) var doubles: [Double] = []
    /// Byte arrays back to back; `ends[k]` is where value k ends.
    public private(set) var bytes: [UInt8] = []
    public private(set) var ends: [Int] = []

    public init(_ leaf: ParquetSchema.Leaf) {
        type = leaf.type
        isOptional = leaf.isOptional
    }

    /// Values present (rows minus nulls).
    public var valueCount: Int {
        switch type {
        case .boolean: booleans.count
        case .int32: int32s.count
        case .int64: int64s.count
        case .double: doubles.count
        case .byteArray: ends.count
        }
    }

    /// The k-th byte-array value.
    public func byteArray(_ k: Int) -> ArraySlice<UInt8> {
        bytes[(k == 0 ? 0 : ends[k - 1])..<ends[k]]
    }

    public mutating func appendNull() {
        precondition(isOptional, "null in a required column")
        defined.append(false)
        rowCount += 1
    }

    public mutating func append(_ v: Bool?) {
        guard let v else { return appendNull() }
        precondition(type == .boolean)
        booleans.append(v)
        present()
    }

    public mutating func append(_ v: Int32?) {
        guard let v else { return appendNull() }
        precondition(type == .int32)
        int32s.append(v)
        present()
    }

    public mutating func append(_ v: Int64?) {
        guard let v else { return appendNull() }
        precondition(type == .int64)
        int64s.append(v)
        present()
    }

    public mutating func append(_ v: Double?) {
        guard let v else { return appendNull() }
        precondition(type == .double)
        doubles.append(v)
        present()
    }

    /// A byte array (raw, or UTF-8 text for a string column).
    public mutating func append(bytes v: some Sequence<UInt8>) {
        precondition(type == .byteArray)
        bytes.append(contentsOf: v)
        ends.append(bytes.count)
        present()
    }

    public mutating func append(_ v: String?) {
        guard let v else { return appendNull() }
        append(bytes: v.utf8)
    }

    /// Empties the column for the next row group, keeping its memory.
    public mutating func removeAll() {
        rowCount = 0
        defined.removeAll(keepingCapacity: true)
        booleans.removeAll(keepingCapacity: true)
        int32s.removeAll(keepingCapacity: true)
        int64s.removeAll(keepingCapacity: true)
        doubles.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }

    private mutating func present() {
        if isOptional { defined.append(true) }
        rowCount += 1
    }
}
