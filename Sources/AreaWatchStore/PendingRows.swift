/// The values of rows waiting to be inserted together, in parameter order, held compactly (a
/// kind, a word and a length per value; text and blob bytes in one reused buffer) and bound
/// without copies when the rows go in.
///
/// Why: one multi-row `INSERT … VALUES (…), (…), …` pays SQLite's per-statement work (among it
/// AUTOINCREMENT's reading and writing of sqlite_sequence, which a GeoPackage feature table has)
/// once per batch instead of once per row.
struct PendingRows {
    enum Kind: UInt8 {
        case null, integer, real, text, blob
    }

    private var kinds: [Kind] = []
    /// An integer's or a real's bits, or the offset of text or blob bytes in `bytes`.
    private var words: [UInt64] = []
    private var lengths: [Int32] = []
    private var bytes: [UInt8] = []

    var valueCount: Int { kinds.count }

    mutating func appendNull() { append(.null, 0) }
    mutating func append(_ v: Int64) { append(.integer, UInt64(bitPattern: v)) }
    mutating func append(_ v: Double) { append(.real, v.bitPattern) }

    /// Text (`kind` .text) or a blob (`.blob`) whose bytes `write` appends.
    mutating func append(_ kind: Kind, bytesFrom write: (inout [UInt8]) -> Void) {
        precondition(kind == .text || kind == .blob)
        let start = bytes.count
        write(&bytes)
        append(kind, UInt64(start), length: Int32(bytes.count - start))
    }

    private mutating func append(_ kind: Kind, _ word: UInt64, length: Int32 = 0) {
        kinds.append(kind)
        words.append(word)
        lengths.append(length)
    }

    /// Binds every value (parameter i + 1 for value i) and runs `statement`, which must have
    /// exactly `valueCount` parameters; then empties the rows.
    mutating func insert(with statement: Statement) throws {
        defer {
            statement.clearBindings()
            kinds.removeAll(keepingCapacity: true)
            words.removeAll(keepingCapacity: true)
            lengths.removeAll(keepingCapacity: true)
            bytes.removeAll(keepingCapacity: true)
        }
        try bytes.withUnsafeBufferPointer { buffer in
            for i in 0..<kinds.count {
                let index = Int32(i + 1)
                switch kinds[i] {
                case .null: statement.bindNull(index)
                case .integer: statement.bind(index, Int64(bitPattern: words[i]))
                case .real: statement.bind(index, Double(bitPattern: words[i]))
                case .text: statement.bind(index, borrowedText: slice(buffer, i))
                case .blob: statement.bind(index, borrowedBlob: slice(buffer, i))
                }
            }
            try statement.run()
        }
    }

    private func slice(_ buffer: UnsafeBufferPointer<UInt8>, _ i: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: buffer[Int(words[i])..<(Int(words[i]) + Int(lengths[i]))])
    }
}
