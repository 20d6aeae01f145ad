import AreaWatchCore

/// The grid count state on disk (docs/FORMATS.md, "The grid count state", version 1): little
/// endian, checksummed, bound to the store state (`StoreStamp`) and to the settings text the
/// counts were made under. Nothing in it is trusted until the checksum, the version and every
/// length check out; a file that does not is reported invalid and the nightly recomputes.
public enum GridCountStateFile {
    public static let magic = Array("AWGRIDST".utf8)
    public static let version: UInt32 = 1

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
        var out = ByteWriter()
        out.data.reserveCapacity(64 + 16 * state.yearTotals.count + 40 * state.cells.count + 25 * state.timeline.count)
        out.bytes(magic)
        out.u32(version)
        out.string(binding.settings)
        out.i64(binding.asOf)
        out.i64(binding.stamp.generation)
        out.bytes(binding.stamp.token)
        out.i64(binding.stamp.lastIncidentRowid)
        out.i64(binding.stamp.lastIngestRowid)
        switch state.system {
        case .geohash(let precision): out.bytes([0, UInt8(precision)])
        case .h3(let resolution): out.bytes([1, UInt8(resolution)])
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
            for v in [c.nCurrent, c.nPrevious, c.rCurrent, c.rPrevious, c.handled] { out.u32(UInt32(bitPattern: v)) }
            out.u16(UInt16(c.years.count))
            for y in c.years {
                out.u16(UInt16(bitPattern: y.year))
                out.u32(UInt32(bitPattern: y.count))
            }
        }
        let live = state.timeline.liveEntries
        out.u64(UInt64(live.count))
        for e in live {
            out.i64(e.time)
            out.u64(e.lat.bitPattern)
            out.u64(e.lon.bitPattern)
            out.u8(UInt8(bitPattern: e.handled))
        }
        out.u64(ByteWriter.fnv1a(out.data[...]))
        return out.data
    }

    /// The state and its binding, or why the bytes are not a usable state.
    public static func decode(_ data: [UInt8], parameters: QueryParameters, system: GridSystem)
        -> Result<(GridCountState, Binding), StateFileError>
    {
        guard data.count >= magic.count + 12, Array(data.prefix(magic.count)) == magic else {
            return .failure(StateFileError("not a grid count state"))
        }
        var body = ByteReader(data, end: data.count - 8)
        var tail = ByteReader(data, at: data.count - 8)
        guard let sum = tail.u64(), sum == ByteWriter.fnv1a(data[..<(data.count - 8)]) else {
            return .failure(StateFileError("checksum mismatch"))
        }
        body.skip(magic.count)
        guard let v = body.u32(), v == version else { return .failure(StateFileError("unknown version")) }
        guard let decoded = decodeBody(&body, parameters: parameters, system: system), body.atEnd else {
            return .failure(StateFileError("truncated or malformed"))
        }
        return .success(decoded)
    }

    /// The binding in the header, unchecked (the checksum is checked by `decode`).
    public static func peek(_ data: [UInt8]) -> Binding? {
        guard data.count >= magic.count + 12, Array(data.prefix(magic.count)) == magic else { return nil }
        var r = ByteReader(data, at: magic.count, end: data.count - 8)
        guard let v = r.u32(), v == version, let settings = r.string(), let asOf = r.i64(), let generation = r.i64(),
            let token = r.bytes(StoreStamp.tokenBytes), let lastIncident = r.i64(), let lastIngest = r.i64()
        else { return nil }
        let stamp = StoreStamp(
            generation: generation, token: token, lastIncidentRowid: lastIncident, lastIngestRowid: lastIngest)
        return Binding(stamp: stamp, settings: settings, asOf: asOf)
    }

    private static func decodeBody(_ r: inout ByteReader, parameters: QueryParameters, system: GridSystem)
        -> (GridCountState, Binding)?
    {
        guard let settings = r.string(), let asOf = r.i64(), let generation = r.i64(),
            let token = r.bytes(StoreStamp.tokenBytes), let lastIncident = r.i64(), let lastIngest = r.i64(),
            let kind = r.u8(), let fineness = r.u8()
        else { return nil }
        let fileSystem: GridSystem = kind == 0 ? .geohash(precision: Int(fineness)) : .h3(resolution: Int(fineness))
        guard kind <= 1, fileSystem == system, asOf == parameters.asOf else { return nil }
        var state = GridCountState(parameters: parameters, system: system)
        guard let yearCount = r.u32() else { return nil }
        for _ in 0..<yearCount {
            guard let y = r.u16(), let n = r.i64(), n > 0 else { return nil }
            state.yearTotals[Int16(bitPattern: y)] = Int(n)
        }
        guard let cellCount = r.u64(), cellCount <= UInt64(r.remaining / 30) else { return nil }
        state.cells.reserveCapacity(Int(cellCount))
        for _ in 0..<cellCount {
            guard let id = r.u64(), let c = readCounts(&r) else { return nil }
            state.cells[id] = c
        }
        guard let entryCount = r.u64(), entryCount <= UInt64(r.remaining / 25) else { return nil }
        var entries: [IncidentTimeline.Entry] = []
        entries.reserveCapacity(Int(entryCount))
        for _ in 0..<entryCount {
            guard let time = r.i64(), let latBits = r.u64(), let lonBits = r.u64(), let handled = r.u8() else {
                return nil
            }
            let (lat, lon) = (Double(bitPattern: latBits), Double(bitPattern: lonBits))
            // Range checks keep a self-consistent but forged file from making the delta trap.
            guard (-90...90).contains(lat), (-180...180).contains(lon), (-1...1).contains(Int8(bitPattern: handled))
            else { return nil }
            entries.append(IncidentTimeline.Entry(time: time, lat: lat, lon: lon, handled: Int8(bitPattern: handled)))
        }
        state.timeline = IncidentTimeline(entries)
        let stamp = StoreStamp(
            generation: generation, token: token, lastIncidentRowid: lastIncident, lastIngestRowid: lastIngest)
        return (state, Binding(stamp: stamp, settings: settings, asOf: asOf))
    }

    private static func readCounts(_ r: inout ByteReader) -> GridCountState.Counts? {
        var c = GridCountState.Counts()
        guard let a = r.u32(), let b = r.u32(), let d = r.u32(), let e = r.u32(), let h = r.u32(),
            let n = r.u16()
        else { return nil }
        (c.nCurrent, c.nPrevious) = (Int32(bitPattern: a), Int32(bitPattern: b))
        (c.rCurrent, c.rPrevious, c.handled) = (Int32(bitPattern: d), Int32(bitPattern: e), Int32(bitPattern: h))
        guard min(c.nCurrent, c.nPrevious, c.rCurrent, c.rPrevious, c.handled) >= 0 else { return nil }
        for _ in 0..<n {
            guard let y = r.u16(), let k = r.u32(), Int32(bitPattern: k) > 0 else { return nil }
            c.years.append(GridCountState.Counts.Year(year: Int16(bitPattern: y), count: Int32(bitPattern: k)))
        }
        return c
    }
}

public struct StateFileError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
