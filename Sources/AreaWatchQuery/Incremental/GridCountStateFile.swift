import AreaWatchCore

/// The grid count state on disk (docs/FORMATS.md, "The grid count state", version 2): little
/// endian, checksummed, bound to the store state (`StoreStamp`) and to the settings text the
/// counts were made under. Nothing in it is trusted until the checksum, the version and every
/// length check out; a file that does not is reported invalid and the nightly recomputes.
public enum GridCountStateFile {
    public static let magic = Array("AWGRIDST".utf8)
    public static let version: UInt32 = 2

    /// What a state file binds the counts to.
    public struct Binding: Sendable, Equatable {
        public var stamp: StoreStamp
        /// The settings that change the counts, except the as-of (SPEC §20).
        public var settings: String
        public var asOf: Int64

        public init(stamp: StoreStamp, settings: String, asOf: Int64) {
            self.stamp = stamp
            self.settings = settings
            self.asOf = asOf
        }
    }

    /// The file's bytes.
    public static func encode(_ state: GridCountState, binding: Binding) -> [UInt8] {
        var out = BinaryWriter(
            capacity: 64 + 16 * state.yearTotals.count + 40 * state.cells.count)
        out.bytes += magic
        out.u32(version)
        out.string(binding.settings)
        out.i64(binding.asOf)
        out.i64(binding.stamp.generation)
        out.bytes += binding.stamp.token
        out.i64(binding.stamp.lastIncidentRowid)
        out.i64(binding.stamp.lastIngestRowid)
        switch state.system {
        case .geohash(let precision): out.bytes += [0, UInt8(precision)]
        case .h3(let resolution): out.bytes += [1, UInt8(resolution)]
        }
        let years = state.yearTotals.keys.sorted()
        out.u32(UInt32(years.count))
        for y in years {
            out.u16(UInt16(bitPattern: y))
            out.i64(Int64(state.yearTotals[y]!))
        }
        out.u64(UInt64(state.cells.count))
        for id in state.cells.keys.sorted() {
            let c = state.cells[id]!
            out.u64(id)
            out.u32(UInt32(bitPattern: c.nCurrent))
            out.u32(UInt32(bitPattern: c.nPrevious))
            out.u32(UInt32(bitPattern: c.rCurrent))
            out.u32(UInt32(bitPattern: c.rPrevious))
            out.u32(UInt32(bitPattern: c.handled))
            out.u16(UInt16(c.years.count))
            for y in c.years {
                out.u16(UInt16(bitPattern: y.year))
                out.u32(UInt32(bitPattern: y.count))
            }
        }
        out.u64(out.bytes.withUnsafeBytes { FNV1a.hash($0) })
        return out.bytes
    }

    /// The state and its binding, or why the bytes are not a usable state.
    public static func decode(_ data: [UInt8], parameters: QueryParameters, system: GridSystem)
        -> Result<(GridCountState, Binding), StateFileError>
    {
        guard data.count >= magic.count + 12, Array(data.prefix(magic.count)) == magic else {
            return .failure(StateFileError("not a grid count state"))
        }
        let body = data.count - 8
        let sum = data.withUnsafeBytes { bytes in
            (
                FNV1a.hash(UnsafeRawBufferPointer(rebasing: bytes[..<body])),
                bytes.loadUnaligned(fromByteOffset: body, as: UInt64.self)
            )
        }
        guard sum.0 == UInt64(littleEndian: sum.1) else { return .failure(StateFileError("checksum mismatch")) }
        var r = BinaryReader(data, name: "grid count state")
        do {
            guard let binding = try header(&r) else { return .failure(StateFileError("unknown version")) }
            guard let state = try decodeBody(&r, binding: binding, parameters: parameters, system: system),
                r.offset == body
            else {
                return .failure(StateFileError("truncated or malformed"))
            }
            return .success((state, binding))
        } catch {
            return .failure(StateFileError("truncated or malformed"))
        }
    }

    /// The binding in the header, unchecked (the checksum is checked by `decode`).
    public static func peek(_ data: [UInt8]) -> Binding? {
        guard data.count >= magic.count + 12, Array(data.prefix(magic.count)) == magic else { return nil }
        var r = BinaryReader(data, name: "grid count state")
        return try? header(&r)
    }

    /// The magic, the version and the binding; nil for another version.
    private static func header(_ r: inout BinaryReader) throws -> Binding? {
        _ = try r.raw(magic.count)
        guard try r.u32() == version else { return nil }
        let settings = try r.string(), asOf = try r.i64(), generation = try r.i64()
        let token = Array(try r.raw(StoreStamp.tokenBytes))
        let stamp = StoreStamp(
            generation: generation, token: token, lastIncidentRowid: try r.i64(), lastIngestRowid: try r.i64())
        return Binding(stamp: stamp, settings: settings, asOf: asOf)
    }

    /// The counts after the header; nil when they are not those of `system` at the parameters' as-of.
    private static func decodeBody(
        _ r: inout BinaryReader, binding: Binding, parameters: QueryParameters, system: GridSystem
    ) throws -> GridCountState? {
        let kind = try r.u8(), fineness = try r.u8()
        let fileSystem: GridSystem = kind == 0 ? .geohash(precision: Int(fineness)) : .h3(resolution: Int(fineness))
        guard kind <= 1, fileSystem == system, binding.asOf == parameters.asOf else { return nil }
        var state = GridCountState(parameters: parameters, system: system)
        for _ in 0..<(try r.u32()) {
            let y = try r.u16(), n = try r.i64()
            guard n > 0 else { return nil }
            state.yearTotals[Int16(bitPattern: y)] = Int(n)
        }
        let cellCount = try r.u64()
        guard cellCount <= UInt64((r.bytes.count - r.offset) / 30) else { return nil }
        state.cells.reserveCapacity(Int(cellCount))
        for _ in 0..<cellCount {
            let id = try r.u64()
            guard let c = try readCounts(&r) else { return nil }
            state.cells[id] = c
        }
        return state
    }

    private static func readCounts(_ r: inout BinaryReader) throws -> GridCountState.Counts? {
        var c = GridCountState.Counts()
        (c.nCurrent, c.nPrevious) = (Int32(bitPattern: try r.u32()), Int32(bitPattern: try r.u32()))
        (c.rCurrent, c.rPrevious) = (Int32(bitPattern: try r.u32()), Int32(bitPattern: try r.u32()))
        c.handled = Int32(bitPattern: try r.u32())
        guard min(c.nCurrent, c.nPrevious, c.rCurrent, c.rPrevious, c.handled) >= 0 else { return nil }
        for _ in 0..<(try r.u16()) {
            let y = try r.u16(), k = Int32(bitPattern: try r.u32())
            guard k > 0 else { return nil }
            c.years.append(GridCountState.Counts.Year(year: Int16(bitPattern: y), count: k))
        }
        return c
    }
}

public struct StateFileError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
