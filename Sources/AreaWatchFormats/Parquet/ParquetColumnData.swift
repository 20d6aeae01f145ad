/// One column's values for one row group, appended row by row. Only the array of the column's
/// physical type is used; nulls (OPTIONAL columns) take no place among the values: the rows
/// that are null are listed instead, since most rows of most columns have a value and a list of
/// the few nulls costs nothing per value.
public struct ParquetColumnData: Sendable {
    public let type: ParquetSchema.PhysicalType
    public let isOptional: Bool
    public private(set) var rowCount = 0
    /// The rows without a value, in increasing order; empty for a REQUIRED column.
    public private(set) var nullRows: [Int] = []
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

    /// Room for `rows` values of the column's type (and their ends, for byte arrays), so that
    /// the first row group does not grow its arrays step by step.
    public mutating func reserveCapacity(rows: Int) {
        switch type {
        case .boolean: booleans.reserveCapacity(rows)
        case .int32: int32s.reserveCapacity(rows)
        case .int64: int64s.reserveCapacity(rows)
        case .double: doubles.reserveCapacity(rows)
        case .byteArray: ends.reserveCapacity(rows)
        }
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

    /// Per row, its definition level: 1 when it has a value, 0 for a null; empty for a REQUIRED
    /// column.
    public var definitionLevels: [UInt8] {
        guard isOptional else { return [] }
        var levels = [UInt8](repeating: 1, count: rowCount)
        for row in nullRows { levels[row] = 0 }
        return levels
    }

    /// The k-th byte-array value.
    public func byteArray(_ k: Int) -> ArraySlice<UInt8> {
        bytes[(k == 0 ? 0 : ends[k - 1])..<ends[k]]
    }

    @inline(__always)
    public mutating func appendNull() {
        precondition(isOptional, "null in a required column")
        nullRows.append(rowCount)
        rowCount += 1
    }

    @inline(__always)
    public mutating func append(_ v: Bool?) {
        guard let v else { return appendNull() }
        precondition(type == .boolean)
        booleans.append(v)
        rowCount += 1
    }

    @inline(__always)
    public mutating func append(_ v: Int32?) {
        guard let v else { return appendNull() }
        precondition(type == .int32)
        int32s.append(v)
        rowCount += 1
    }

    @inline(__always)
    public mutating func append(_ v: Int64?) {
        guard let v else { return appendNull() }
        precondition(type == .int64)
        int64s.append(v)
        rowCount += 1
    }

    @inline(__always)
    public mutating func append(_ v: Double?) {
        guard let v else { return appendNull() }
        precondition(type == .double)
        doubles.append(v)
        rowCount += 1
    }

    /// A byte array (raw, or UTF-8 text for a string column).
    public mutating func append(bytes v: some Sequence<UInt8>) {
        precondition(type == .byteArray)
        // Contiguous bytes (an array, a native string's UTF-8) are copied in one go.
        if v.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: v)
        }
        ends.append(bytes.count)
        rowCount += 1
    }

    /// A byte array that `write` appends in place to the column's bytes (a geometry built
    /// straight into the column, not in a scratch array copied after).
    @inline(__always)
    public mutating func appendByteArray(_ write: (inout [UInt8]) -> Void) {
        precondition(type == .byteArray)
        write(&bytes)
        precondition(bytes.count >= (ends.last ?? 0), "a byte array writer removed bytes")
        ends.append(bytes.count)
        rowCount += 1
    }

    public mutating func append(_ v: String?) {
        guard let v else { return appendNull() }
        append(bytes: v.utf8)
    }

    /// Empties the column for the next row group, keeping its memory.
    public mutating func removeAll() {
        rowCount = 0
        nullRows.removeAll(keepingCapacity: true)
        booleans.removeAll(keepingCapacity: true)
        int32s.removeAll(keepingCapacity: true)
        int64s.removeAll(keepingCapacity: true)
        doubles.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }
}
