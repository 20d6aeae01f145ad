import AreaWatchCore
import Testing

@testable import AreaWatchQuery

/// The grid count state on disk (docs/FORMATS.md): what is read back is the state written — its
/// grid, and every later night applied to it, equal a full recompute — and a damaged file is
/// refused, never trusted.
@Suite("Grid count state file")
struct GridCountStateFileTests {
    static let stamp = StoreStamp(
        generation: 42, token: Array(0..<16), lastIncidentRowid: 1_200, lastIngestRowid: 3)

    @Test(
        "written, read back and carried on for nights: equal to a full recompute",
        arguments: [
            GridSystem.geohash(precision: 7), .h3(resolution: 9)
        ])
    func roundTrip(_ system: GridSystem) throws {
        var generator = IncidentGenerator(rng: SplitMix64(seed: 20))
        var asOf = epoch("2024-02-28T12:00:00Z")
        let parameters = QueryParameters(asOf: asOf, radius: 600, categories: ["Burglary", "Robbery"])
        var placeRNG = SplitMix64(seed: 22)
        let (places, spots) = PlaceGenerator.places(&placeRNG, radius: parameters.radius)
        generator.spots = spots
        var live = (0..<1_000).map { _ in generator.incident(asOf: asOf) }
        var written = GridCountState(columns: live.columns, parameters: parameters, system: system)
        written.recordFull(places, live)
        let binding = GridCountStateFile.Binding(
            stamp: Self.stamp, settings: "settings ✓", asOf: asOf, points: places.pointsDigest,
            areas: places.areasDigest, breakdown: places.breakdownDigest)
        let bytes = GridCountStateFile.encode(written, binding: binding)
        #expect(GridCountStateFile.peek(bytes) == binding)
        var (state, read) = try GridCountStateFile.decode(bytes, parameters: parameters, system: system).get()
        #expect(read == binding)
        #expect(state.cells == written.cells && state.yearTotals == written.yearTotals)
        #expect(state.places == written.places && state.covers(places))
        #expect(GridCountStateFile.encode(state, binding: binding) == bytes)
        try #require(GridCountStateTests.expectSame(state, live, "read back", places: places))
        for night in 1...4 {
            asOf += [1, 29, 366, 0][night - 1] * 86_400
            let removing = Array(live.prefix(20))
            let adding = (0..<50).map { _ in generator.incident(asOf: asOf, near: live) }
            state.night(asOf: asOf, held: live, removing: removing, adding: adding, places: places)
            live = Array(live.dropFirst(20)) + adding
            try #require(GridCountStateTests.expectSame(state, live, "night \(night)", places: places))
        }
    }

    @Test("a file whose places count a year the grid does not, its checksum right, is refused")
    func placesOutsideTheGridYears() throws {
        var generator = IncidentGenerator(rng: SplitMix64(seed: 23))
        let asOf = epoch("2024-02-28T12:00:00Z")
        let parameters = QueryParameters(asOf: asOf)
        var placeRNG = SplitMix64(seed: 24)
        let (places, spots) = PlaceGenerator.places(&placeRNG, radius: parameters.radius)
        generator.spots = spots
        let live = (0..<300).map { _ in generator.incident(asOf: asOf) }
        var state = GridCountState(columns: live.columns, parameters: parameters, system: .geohash(precision: 7))
        state.recordFull(places, live)
        let binding = GridCountStateFile.Binding(
            stamp: Self.stamp, settings: "s", asOf: asOf, points: places.pointsDigest, areas: places.areasDigest,
            breakdown: places.breakdownDigest)
        let system = GridSystem.geohash(precision: 7)
        #expect(throws: Never.self) {
            try GridCountStateFile.decode(
                GridCountStateFile.encode(state, binding: binding), parameters: parameters, system: system
            ).get()
        }
        for forged in ["area", "value"] {
            var bad = state
            if forged == "area" {
                bad.places.areas[0].months.insert(PlaceCounts.Month(month: Int32(1990 * 12), count: 1), at: 0)
            } else {
                bad.places.values[0].years.insert(GridCountState.Counts.Year(year: 1990, count: 1), at: 0)
            }
            let bytes = GridCountStateFile.encode(bad, binding: binding)
            guard case .failure = GridCountStateFile.decode(bytes, parameters: parameters, system: system) else {
                Issue.record("a state whose \(forged) counts 1990 was read")
                continue
            }
        }
    }

    @Test("a truncated, flipped, mislabelled or foreign file is refused")
    func damaged() {
        var generator = IncidentGenerator(rng: SplitMix64(seed: 21))
        let asOf = epoch("2024-02-28T12:00:00Z")
        let parameters = QueryParameters(asOf: asOf)
        let live = (0..<300).map { _ in generator.incident(asOf: asOf) }
        let state = GridCountState(columns: live.columns, parameters: parameters, system: .geohash(precision: 7))
        let bytes = GridCountStateFile.encode(
            state, binding: GridCountStateFile.Binding(stamp: Self.stamp, settings: "s", asOf: asOf))
        func refused(_ data: [UInt8], system: GridSystem = .geohash(precision: 7), asOf t: Int64 = asOf) -> Bool {
            var p = parameters
            p.asOf = t
            if case .failure = GridCountStateFile.decode(data, parameters: p, system: system) { return true }
            return false
        }
        #expect(!refused(bytes))
        #expect(refused(Array(bytes.dropLast(1))))
        #expect(refused(Array(bytes.prefix(bytes.count / 2))))
        for at in [0, 9, 40, bytes.count / 2, bytes.count - 9, bytes.count - 1] {
            var flipped = bytes
            flipped[at] ^= 0x10
            #expect(refused(flipped), "byte \(at) flipped")
        }
        #expect(refused(bytes, system: .geohash(precision: 6)))
        #expect(refused(bytes, system: .h3(resolution: 7)))
        #expect(refused(bytes, asOf: asOf + 1))
        #expect(refused([]))
        // Another version (version 2 counted no places), its checksum right: refused for its version.
        var other = Array(bytes.dropLast(8))
        other[8] = 2
        other += withUnsafeBytes(of: FNV1a.hash(other.span.bytes).littleEndian) { Array($0) }
        #expect(GridCountStateFile.peek(other) == nil)
        #expect(GridCountStateFile.fileVersion(other) == 2)
        guard
            case .failure(let error) = GridCountStateFile.decode(
                other, parameters: parameters, system: .geohash(precision: 7))
        else {
            Issue.record("a version 2 file was read")
            return
        }
        #expect(error.description == "unknown version")
    }
}
