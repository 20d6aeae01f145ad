/// PLAIN encoding, dictionaries and statistics of a column chunk's values.
enum ParquetValueEncoding {
    // MARK: PLAIN

    /// The values of `column` PLAIN-encoded: booleans bit-packed from the least significant
    /// bit, numbers little-endian, byte arrays as a 4-byte little-endian length and the bytes.
    static func appendPlain(_ column: ParquetColumnData, to out: inout [UInt8]) {
        switch column.type {
        case .boolean:
            var byte: UInt8 = 0
            for (k, v) in column.booleans.enumerated() {
                if v { byte |= 1 << UInt8(k % 8) }
                if k % 8 == 7 { out.append(byte); byte = 0 }
            }
            if column.booleans.count % 8 != 0 { out.append(byte) }
        case .int32: appendLittleEndian(column.int32s, to: &out)
        case .int64: appendLittleEndian(column.int64s, to: &out)
        case .double: appendLittleEndian(column.doubles.map(\.bitPattern), to: &out)
        case .byteArray:
            out.reserveCapacity(out.count + column.bytes.count + 4 * column.ends.count)
            for k in 0..<column.ends.count { appendByteArray(column.byteArray(k), to: &out) }
        }
    }

    static func appendByteArray(_ value: ArraySlice<UInt8>, to out: inout [UInt8]) {
        appendLittleEndian(UInt32(value.count), to: &out)
        out.append(contentsOf: value)
    }

    static func appendLittleEndian<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    /// Integers little-endian: on a little-endian machine the array's memory as it is.
    static func appendLittleEndian<T: FixedWidthInteger>(_ values: [T], to out: inout [UInt8]) {
        #if _endian(little)
        values.withUnsafeBytes { out.append(contentsOf: $0) }
        #else
        for v in values { appendLittleEndian(v, to: &out) }
        #endif
    }

    // MARK: Dictionary

    /// A dictionary of a chunk's values: the distinct values PLAIN-encoded in order of first
    /// appearance, and each value's index into them.
    struct Dictionary {
        var plain: [UInt8]
        var count: Int
        var indices: [UInt32]
    }

    /// The chunk's dictionary, or nil when its values are too varied for one to pay: more
    /// distinct values than half the values (or than 2^16), checked while it is built.
    static func dictionary(_ column: ParquetColumnData) -> Dictionary? {
        let limit = min(1 << 16, column.valueCount / 2)
        switch column.type {
        case .boolean: return nil
        case .int32: return dictionary(column.int32s, limit: limit) { appendLittleEndian($0, to: &$1) }
        case .int64: return dictionary(column.int64s, limit: limit) { appendLittleEndian($0, to: &$1) }
        case .double:
            return dictionary(column.doubles.map(\.bitPattern), limit: limit) { appendLittleEndian($0, to: &$1) }
        case .byteArray:
            let values = (0..<column.ends.count).map(column.byteArray)
            return dictionary(values, limit: limit) { appendByteArray($0, to: &$1) }
        }
    }

    private static func dictionary<T: Hashable>(_ values: [T], limit: Int,
                                                plain: (T, inout [UInt8]) -> Void) -> Dictionary? {
        var index = Swift.Dictionary<T, UInt32>()
        var out = Dictionary(plain: [], count: 0, indices: [])
        out.indices.reserveCapacity(values.count)
        for v in values {
            if let k = index[v] {
                out.indices.append(k)
                continue
            }
            guard out.count < limit else { return nil }
            index[v] = UInt32(out.count)
            out.indices.append(UInt32(out.count))
            plain(v, &out.plain)
            out.count += 1
        }
        return out
    }

    // MARK: Statistics

    /// null_count, and min/max by the type's order (TYPE_ORDER): signed for integers, numeric for
    /// doubles with NaN left out (and a zero minimum written as −0, a zero maximum as +0, as
    /// parquet-format asks), unsigned bytewise for byte arrays. No min/max without a value.
    static func statistics(_ column: ParquetColumnData, minMax: Bool) -> ParquetThrift.Statistics {
        var s = ParquetThrift.Statistics(nullCount: Int64(column.rowCount - column.valueCount), min: nil, max: nil)
        guard minMax else { return s }
        func set<T: FixedWidthInteger>(_ lo: T, _ hi: T) {
            var min: [UInt8] = [], max: [UInt8] = []
            appendLittleEndian(lo, to: &min)
            appendLittleEndian(hi, to: &max)
            s.min = min
            s.max = max
        }
        switch column.type {
        case .boolean: break
        case .int32:
            if let lo = column.int32s.min(), let hi = column.int32s.max() { set(lo, hi) }
        case .int64:
            if let lo = column.int64s.min(), let hi = column.int64s.max() { set(lo, hi) }
        case .double:
            let numbers = column.doubles.filter { !$0.isNaN }
            if var lo = numbers.min(), var hi = numbers.max() {
                if lo == 0 { lo = -0.0 }
                if hi == 0 { hi = 0.0 }
                set(lo.bitPattern, hi.bitPattern)
            }
        case .byteArray:
            guard column.valueCount > 0 else { break }
            var lo = column.byteArray(0), hi = lo
            for k in 1..<column.valueCount {
                let v = column.byteArray(k)
                if v.lexicographicallyPrecedes(lo) { lo = v }
                if hi.lexicographicallyPrecedes(v) { hi = v }
            }
            s.min = Array(lo)
            s.max = Array(hi)
        }
        return s
    }
}
