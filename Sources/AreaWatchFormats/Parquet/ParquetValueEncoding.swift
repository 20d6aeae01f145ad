import AreaWatchCore

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
                if k % 8 == 7 {
                    out.append(byte)
                    byte = 0
                }
            }
            if column.booleans.count % 8 != 0 { out.append(byte) }
        case .int32: appendLittleEndian(column.int32s, to: &out)
        case .int64: appendLittleEndian(column.int64s, to: &out)
        case .double:
            #if _endian(little)
                // A double's bytes in memory are its bit pattern's, little-endian here.
                column.doubles.withUnsafeBytes { out.append(contentsOf: $0) }
            #else
                appendLittleEndian(column.doubles.map(\.bitPattern), to: &out)
            #endif
        case .byteArray: appendPlainByteArrays(column, to: &out)
        }
    }

    /// Each byte array as its length and its bytes, appended after room is reserved for all of
    /// them at once (a chunk holds tens of thousands, such as every cell's geometry).
    private static func appendPlainByteArrays(_ column: ParquetColumnData, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + column.bytes.count + 4 * column.ends.count)
        var from = 0
        for end in column.ends {
            appendByteArray(column.bytes[from..<end], to: &out)
            from = end
        }
    }

    static func appendByteArray(_ value: some Collection<UInt8>, to out: inout [UInt8]) {
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
        /// Per distinct value, the first value that has it: the chunk's distinct values, from
        /// which its statistics are found without another pass over every value.
        var firstValues: [Int]
    }

    /// The chunk's dictionary, or nil when its values are too varied for one to pay: more
    /// distinct values than half the values (or than 2^16), checked while it is built.
    static func dictionary(_ column: ParquetColumnData) -> Dictionary? {
        let limit = min(1 << 16, column.valueCount / 2)
        switch column.type {
        case .boolean: return nil
        case .int32:
            return column.int32s.withUnsafeBufferPointer { v in
                fixedWidthDictionary(
                    count: v.count, limit: limit, bits: { UInt64(UInt32(bitPattern: v[$0])) },
                    plain: { appendLittleEndian(v[$0], to: &$1) })
            }
        case .int64:
            return column.int64s.withUnsafeBufferPointer { v in
                fixedWidthDictionary(
                    count: v.count, limit: limit, bits: { UInt64(bitPattern: v[$0]) },
                    plain: { appendLittleEndian(v[$0], to: &$1) })
            }
        case .double:
            // Bit patterns: -0 and +0 are distinct values, NaNs equal when their bits are.
            return column.doubles.withUnsafeBufferPointer { v in
                fixedWidthDictionary(
                    count: v.count, limit: limit, bits: { v[$0].bitPattern },
                    plain: { appendLittleEndian(v[$0].bitPattern, to: &$1) })
            }
        case .byteArray:
            return byteArrayDictionary(column, limit: limit)
        }
    }

    /// Values of up to eight bytes, compared and hashed by their bits.
    @inline(__always)
    private static func fixedWidthDictionary(
        count: Int, limit: Int, bits: (Int) -> UInt64,
        plain: (Int, inout [UInt8]) -> Void
    ) -> Dictionary? {
        dictionary(count: count, limit: limit, hash: bits, same: { bits($0) == bits($1) }, plain: plain)
    }

    /// Byte arrays, compared by their bytes and hashed by FNV-1a over them.
    private static func byteArrayDictionary(_ column: ParquetColumnData, limit: Int) -> Dictionary? {
        let bytes = column.bytes.span, ends = column.ends.span
        // The ends ascend (`ParquetColumnData`), so the last bounds every value's bytes.
        precondition((ends.isEmpty ? 0 : ends[ends.count - 1]) <= bytes.count, "a value past the column's bytes")
        func range(_ k: Int) -> Range<Int> { (k == 0 ? 0 : ends[unchecked: k - 1])..<ends[unchecked: k] }
        func same(_ a: Int, _ b: Int) -> Bool {
            let ra = range(a), rb = range(b)
            guard ra.count == rb.count else { return false }
            for k in 0..<ra.count where bytes[unchecked: ra.lowerBound + k] != bytes[unchecked: rb.lowerBound + k] {
                return false
            }
            return true
        }
        return dictionary(
            count: ends.count, limit: limit, hash: { FNV1a.hash(bytes.bytes.extracting(range($0))) },
            same: same, plain: { appendByteArray(column.bytes[range($0)], to: &$1) })
    }

    /// The dictionary of values 0..<count in order of first appearance, found through one
    /// `OpenAddressingTable` (entry + 1 per slot) sized for `limit` entries at half load. Why not
    /// `Swift.Dictionary`: its per-process seeded SipHash of every value of every chunk was a
    /// large part of the writer's time; these hashes need no seed, since a collision only costs a
    /// longer probe and the file's bytes never depend on the table. Always inlined, so that each
    /// column type's closures are compiled into its own loop rather than called per value. The
    /// PLAIN dictionary is written once the dictionary is known to be complete, so a chunk too
    /// varied for one (a column of unique cells) does not pay for it.
    @inline(__always)
    private static func dictionary(
        count: Int, limit: Int, hash: (Int) -> UInt64, same: (Int, Int) -> Bool,
        plain: (Int, inout [UInt8]) -> Void
    ) -> Dictionary? {
        var bits = 4
        while 1 << bits < 2 * (limit + 1) { bits += 1 }
        let table = OpenAddressingTable<UInt32>(capacity: 1 << bits)
        var firstValues: [Int] = [] // per entry, the value that made it
        var indices = [UInt32](repeating: 0, count: count)
        let complete = indices.withUnsafeMutableBufferPointer { indices in
            for i in 0..<count {
                // Fibonacci hashing: the product's top bits, spread over the table.
                let home = Int(truncatingIfNeeded: (hash(i) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - bits))
                let slot = table.probe(from: home) { same(i, firstValues[Int($0) - 1]) }
                let entry = table[slot]
                if entry != 0 {
                    indices[i] = entry - 1
                    continue
                }
                guard firstValues.count < limit else { return false }
                firstValues.append(i)
                table[slot] = UInt32(firstValues.count)
                indices[i] = UInt32(firstValues.count - 1)
            }
            return true
        }
        guard complete else { return nil }
        var plainValues: [UInt8] = []
        for i in firstValues { plain(i, &plainValues) }
        return Dictionary(plain: plainValues, count: firstValues.count, indices: indices, firstValues: firstValues)
    }

    // MARK: Statistics

    /// null_count, and min/max by the type's order (TYPE_ORDER): signed for integers, numeric for
    /// doubles with NaN left out (and a zero minimum written as −0, a zero maximum as +0, as
    /// parquet-format asks), unsigned bytewise for byte arrays. No min/max without a value.
    /// `distinct`: the values that hold every distinct value of the chunk (a dictionary's first
    /// values), enough for min/max since a repeated value changes neither; nil: every value.
    static func statistics(
        _ column: ParquetColumnData, minMax: Bool, distinct: [Int]? = nil
    ) -> ParquetThrift.Statistics {
        var s = ParquetThrift.Statistics(nullCount: Int64(column.rowCount - column.valueCount), min: nil, max: nil)
        guard minMax else { return s }
        func set<T: FixedWidthInteger>(_ bounds: (lo: T, hi: T)?) {
            guard let (lo, hi) = bounds else { return }
            var min: [UInt8] = [], max: [UInt8] = []
            appendLittleEndian(lo, to: &min)
            appendLittleEndian(hi, to: &max)
            s.min = min
            s.max = max
        }
        switch column.type {
        case .boolean: break
        case .int32: set(bounds(column.int32s, distinct))
        case .int64: set(bounds(column.int64s, distinct))
        case .double:
            if var (lo, hi) = bounds(column.doubles, distinct) {
                if lo == 0 { lo = -0.0 }
                if hi == 0 { hi = 0.0 }
                set((lo.bitPattern, hi.bitPattern))
            }
        case .byteArray:
            guard column.valueCount > 0 else { break }
            var lo = column.byteArray(distinct?.first ?? 0), hi = lo
            func visit(_ k: Int) {
                let v = column.byteArray(k)
                if v.lexicographicallyPrecedes(lo) { lo = v }
                if hi.lexicographicallyPrecedes(v) { hi = v }
            }
            if let distinct { distinct.forEach(visit) } else { (0..<column.valueCount).forEach(visit) }
            s.min = Array(lo)
            s.max = Array(hi)
        }
        return s
    }

    /// The least and greatest of `values` (at the indices `only`, or all), NaN left out; nil
    /// when no value is left.
    private static func bounds<T: Comparable & Numeric>(_ values: [T], _ only: [Int]?) -> (lo: T, hi: T)? {
        values.withUnsafeBufferPointer { v in
            var lo: T?, hi: T?
            func visit(_ x: T) {
                guard x == x else { return } // NaN, which is unordered
                if let l = lo, !(x < l) {} else { lo = x }
                if let h = hi, !(h < x) {} else { hi = x }
            }
            if let only { for k in only { visit(v[k]) } } else { for x in v { visit(x) } }
            guard let lo, let hi else { return nil }
            return (lo, hi)
        }
    }
}
