import AreaWatchCore

/// The grid count state on disk (docs/FORMATS.md, "The grid count state", version 3): little
/// endian, checksummed, bound to the store state (`StoreStamp`), to the settings text the
/// counts were made under and to the digests of the points of interest and areas they count. Nothing in it is trusted until the checksum, the version and every
/// length check out; a file that does not is reported invalid and the nightly recomputes.
public enum GridCountStateFile {
    public static let magic = Array("AWGRIDST".utf8)
    public static let version: UInt32 = 3

    /// What a state file binds the counts to.
    public struct Binding: Sendable, Equatable {
        public var stamp: StoreStamp
        /// The settings that change the counts, except the as-of (SPEC §20).
        public var settings: String
        public var asOf: Int64
        /// `ReportPlaces.pointsDigest`, `areasDigest` and `breakdownDigest` of what is counted
        /// besides the grid (0: none).
        public var points: UInt64
        public var areas: UInt64
        public var breakdown: UInt64

        public init(
            stamp: StoreStamp, settings: String, asOf: Int64, points: UInt64 = 0, areas: UInt64 = 0,
            breakdown: UInt64 = 0
        ) {
            self.stamp = stamp
            self.settings = settings
            self.asOf = asOf
            self.points = points
            self.areas = areas
            self.breakdown = breakdown
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
        out.u64(state.places.pointsDigest)
        out.u64(state.places.areasDigest)
        out.u64(state.places.breakdownDigest)
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
        encodePlaces(state.places, into: &out)
        out.u64(FNV1a.hash(out.bytes.span.bytes))
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
        let bytes = data.span.bytes
        let sum = (
            FNV1a.hash(bytes.extracting(0..<body)), bytes.unsafeLoadUnaligned(fromByteOffset: body, as: UInt64.self)
        )
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
        return Binding(
            stamp: stamp, settings: settings, asOf: asOf, points: try r.u64(), areas: try r.u64(),
            breakdown: try r.u64())
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
        // Every year the places count is one the grid counts (their rows are laid out over those).
        guard let places = try decodePlaces(&r, binding: binding),
            places.years.allSatisfy({ state.yearTotals[$0] != nil })
        else { return nil }
        state.places = places
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

extension GridCountStateFile {
    /// The version field of a file with the magic (whatever its version); nil otherwise.
    public static func fileVersion(_ data: [UInt8]) -> UInt32? {
        guard data.count >= magic.count + 4, Array(data.prefix(magic.count)) == magic else { return nil }
        var r = BinaryReader(data, name: "grid count state")
        _ = try? r.raw(magic.count)
        return try? r.u32()
    }

    /// The points of interest's counts when the state has them, then the areas' and the
    /// unassigned counts when it has them (docs/FORMATS.md).
    static func encodePlaces(_ places: PlaceCounts, into out: inout BinaryWriter) {
        if places.pointsDigest != 0 {
            out.u32(UInt32(places.points.count))
            for p in places.points {
                out.u32(UInt32(bitPattern: p.current))
                out.u32(UInt32(bitPattern: p.previous))
                out.u32(UInt32(bitPattern: p.handled))
            }
        }
        if places.breakdownDigest != 0 {
            out.u32(UInt32(places.values.count))
            for v in places.values {
                out.string(v.value)
                out.u32(UInt32(bitPattern: v.current))
                out.u32(UInt32(bitPattern: v.previous))
                out.u16(UInt16(v.years.count))
                for y in v.years {
                    out.u16(UInt16(bitPattern: y.year))
                    out.u32(UInt32(bitPattern: y.count))
                }
            }
        }
        guard places.areasDigest != 0 else { return }
        out.u32(UInt32(places.areas.count))
        for a in places.areas {
            out.u32(UInt32(bitPattern: a.nCurrent))
            out.u32(UInt32(bitPattern: a.nPrevious))
            out.u32(UInt32(bitPattern: a.handled))
            out.u32(UInt32(a.months.count))
            for m in a.months {
                out.u32(UInt32(bitPattern: m.month))
                out.u32(UInt32(bitPattern: m.count))
            }
        }
        out.i64(places.unassigned.current)
        out.i64(places.unassigned.previous)
        out.i64(places.unassigned.all)
    }

    /// The breakdown's values: ascending by UTF-8 bytes, counts not negative, years ascending and
    /// positive, none without incidents; nil otherwise.
    static func decodeValues(_ r: inout BinaryReader) throws -> [PlaceCounts.Value]? {
        let n = Int(try r.u32())
        guard n <= (r.bytes.count - r.offset) / 14 else { return nil }
        var values: [PlaceCounts.Value] = []
        for _ in 0..<n {
            var v = PlaceCounts.Value(value: try r.string())
            (v.current, v.previous) = (Int32(bitPattern: try r.u32()), Int32(bitPattern: try r.u32()))
            guard v.current >= 0, v.previous >= 0,
                values.last.map({ Array($0.value.utf8).lexicographicallyPrecedes(Array(v.value.utf8)) }) ?? true
            else { return nil }
            for _ in 0..<(try r.u16()) {
                let y = GridCountState.Counts.Year(
                    year: Int16(bitPattern: try r.u16()), count: Int32(bitPattern: try r.u32()))
                guard y.count > 0, v.years.last.map({ $0.year < y.year }) ?? true else { return nil }
                v.years.append(y)
            }
            guard !v.years.isEmpty else { return nil }
            values.append(v)
        }
        return values
    }

    /// The places' counts after the cells; nil when a length does not fit the bytes left or a
    /// count is negative (months: ascending, positive).
    static func decodePlaces(_ r: inout BinaryReader, binding: Binding) throws -> PlaceCounts? {
        var places = PlaceCounts()
        (places.pointsDigest, places.areasDigest) = (binding.points, binding.areas)
        places.breakdownDigest = binding.breakdown
        func left() -> Int { r.bytes.count - r.offset }
        if binding.points != 0 {
            let n = Int(try r.u32())
            guard n <= left() / 12 else { return nil }
            places.points.reserveCapacity(n)
            for _ in 0..<n {
                let p = PlaceCounts.Point(
                    current: Int32(bitPattern: try r.u32()), previous: Int32(bitPattern: try r.u32()),
                    handled: Int32(bitPattern: try r.u32()))
                guard p.isValid else { return nil }
                places.points.append(p)
            }
        }
        if binding.breakdown != 0 {
            guard let values = try decodeValues(&r) else { return nil }
            places.values = values
        }
        guard binding.areas != 0 else { return places }
        let n = Int(try r.u32())
        guard n <= left() / 16 else { return nil }
        for _ in 0..<n {
            var a = PlaceCounts.Area(
                nCurrent: Int32(bitPattern: try r.u32()), nPrevious: Int32(bitPattern: try r.u32()),
                handled: Int32(bitPattern: try r.u32()))
            let months = Int(try r.u32())
            guard a.isValid, months <= left() / 8 else { return nil }
            for _ in 0..<months {
                let m = PlaceCounts.Month(month: Int32(bitPattern: try r.u32()), count: Int32(bitPattern: try r.u32()))
                guard m.count > 0, a.months.last.map({ $0.month < m.month }) ?? true else { return nil }
                a.months.append(m)
            }
            places.areas.append(a)
        }
        places.unassigned = PlaceCounts.Unassigned(current: try r.i64(), previous: try r.i64(), all: try r.i64())
        return places.unassigned.isValid ? places : nil
    }
}

public struct StateFileError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
