import AreaWatchCore
import Testing

/// SPEC §15's halo against brute force: for seeded random points, and points on shard edges and
/// corners, on and beside the antimeridian and at and near both poles, every grid cell whose
/// centre is within the radius (`RadiusTest`, the engine's own test) must belong to one of the
/// shards `ShardHalo` lists, and the point's own shard must come first. Grids of precision 3 and
/// 4 with radii from 1 km to 50 km (the largest allowed) keep the brute force over every cell of
/// the globe affordable while the halo still spans several shards.
@Suite("Shard halo (SPEC §15)")
struct ShardHaloTests {
    /// Every cell of the globe at `precision` with its centre, row by row (south to north).
    static func allCells(_ precision: Int) -> [[(cell: GeohashCell, lat: Double, lon: Double)]] {
        let rows = Int64(1) << Int64(GeohashCell.latBitCount(precision))
        let columns = Int64(1) << Int64(GeohashCell.lonBitCount(precision))
        return (0..<rows).map { row in
            (0..<columns).map { column in
                (
                    GeohashCell(lonIndex: UInt64(column), latIndex: UInt64(row), precision: precision),
                    GeohashCell.centreLatitude(row: row, precision: precision),
                    GeohashCell.centreLongitude(column: column, precision: precision)
                )
            }
        }
    }

    static func points(shardPrecision: Int, count: Int) -> [(Double, Double)] {
        var rng = SplitMix64(seed: 0x5A4D + UInt64(shardPrecision))
        var points: [(Double, Double)] = [
            (90, 0), (-90, 0), (90, 180), (-90, -180), (0, 180), (0, -180),
            (89.99, 45), (-89.99, -135), (60, 179.999), (-60, -179.999), (0, 0)
        ]
        let h = GeohashCell.latSpan(shardPrecision), w = GeohashCell.lonSpan(shardPrecision)
        for _ in 0..<count {
            // A random shard corner, then a point on it, on one of its edges, or just beside it.
            let row = Double(Int.random(in: 1..<Int(180 / h), using: &rng)),
                column = Double(Int.random(in: 0..<Int(360 / w), using: &rng))
            let lat = -90 + row * h, lon = -180 + column * w
            let jitter = [0, 1e-9, -1e-9, 0.003, -0.003, Double.random(in: -h...h, using: &rng)]
            points.append(
                (
                    min(90, max(-90, lat + jitter.randomElement(using: &rng)!)),
                    min(180, max(-180, lon + jitter.randomElement(using: &rng)!))
                ))
            points.append((Double.random(in: -90...90, using: &rng), Double.random(in: -180...180, using: &rng)))
        }
        return points
    }

    @Test("every shard holding a cell within the radius is listed", arguments: [(1, 3), (2, 3), (3, 3), (2, 4), (3, 4)])
    func coversBruteForce(shardPrecision: Int, gridPrecision: Int) {
        let rows = Self.allCells(gridPrecision)
        let rowHeight = GeohashCell.latSpan(gridPrecision)
        for radius in [1_000.0, 20_000, 50_000] {
            let test = RadiusTest(radius: radius)
            let halo = ShardHalo(precision: shardPrecision, gridPrecision: gridPrecision, radius: radius)
            for (lat, lon) in Self.points(shardPrecision: shardPrecision, count: 40) {
                let listed = halo.shards(lat: lat, lon: lon)
                #expect(listed.first == GeohashCell(lat: lat, lon: lon, precision: shardPrecision))
                #expect(Set(listed).count == listed.count, "a shard listed twice for (\(lat), \(lon))")
                let set = Set(listed)
                // Only rows that can hold a centre within the radius (1° of latitude > 111 km).
                let reach = radius / 111_000 + rowHeight
                let cells = rows.filter { abs($0[0].lat - lat) <= reach }.joined()
                for c in cells where test.contains(lat1: c.lat, lon1: c.lon, lat2: lat, lon2: lon) {
                    let shard = c.cell.parent(precision: shardPrecision)
                    #expect(
                        set.contains(shard), "(\(lat), \(lon)) r=\(radius): cell \(c.cell) of shard \(shard) missing")
                }
            }
        }
    }

    @Test("a point deep inside its shard goes nowhere else; the halo stays small away from the poles")
    func interiorAndSize() {
        let halo = ShardHalo(precision: 4, gridPrecision: 7, radius: 1000)
        let centre = GeohashCell("gcwb")!.centre
        #expect(halo.shards(lat: centre.lat, lon: centre.lon) == [GeohashCell("gcwb")!])
        // On a corner of four shards: exactly those four.
        let b = GeohashCell("gcwb")!.bounds
        #expect(Set(halo.shards(lat: b.minLat, lon: b.minLon)).count == 4)
        // At the pole every shard of the top row has cell centres within 1000 m only when the
        // grid's top-row centres are that close: at precision 7 (~76 m from the pole) they are.
        let pole = halo.shards(lat: 90, lon: 0)
        #expect(pole.count == 1 << GeohashCell.lonBitCount(4))
    }
}

/// The `AWREC` exchange file (docs/FORMATS.md): records read back bit for bit, and a damaged file
/// is an error naming it, never a crash or a wrong record.
@Suite("Canonical records file")
struct CanonicalRecordFileTests {
    @Test("round trip, truncation, wrong magic, impossible values")
    func roundTrip() throws {
        var rng = SplitMix64(seed: 42)
        var w = CanonicalRecord.header(fileIndex: 7)
        var records: [CanonicalRecord] = []
        for k in 0..<200 {
            let r = CanonicalRecord(
                keyHigh: rng.next(), keyLow: rng.next(), content: rng.next(),
                lat: Double.random(in: -90...90, using: &rng),
                lon: k == 0 ? -180 : Double.random(in: -180...180, using: &rng),
                time: Int64.random(in: -62_135_596_800...253_402_300_799, using: &rng),
                handled: [-1, 0, 1][k % 3], category: k % 4 == 0 ? nil : (k % 4 == 1 ? "" : "cat é \(k)"))
            r.encode(to: &w)
            records.append(r)
        }
        let (index, back) = try CanonicalRecord.readAll(w.bytes, name: "k00001.awr")
        // The header alone is a file of no records.
        #expect(try CanonicalRecord.readAll(Array(w.bytes.prefix(12)), name: "k00001.awr").records.isEmpty)
        #expect(index == 7 && back == records)
        for cut in [3, 11, 13, w.bytes.count - 1] {
            #expect(throws: BinaryReader.Malformed.self) {
                try CanonicalRecord.readAll(Array(w.bytes.prefix(cut)), name: "k00001.awr")
            }
        }
        var wrong = w.bytes
        wrong[0] = UInt8(ascii: "X")
        #expect(throws: BinaryReader.Malformed.self) { try CanonicalRecord.readAll(wrong, name: "k00001.awr") }
        // A latitude of 91 (bit pattern written over the first record's) is refused.
        var bad = w.bytes
        withUnsafeBytes(of: Double(91).bitPattern.littleEndian) { bad.replaceSubrange(12 + 24..<12 + 32, with: $0) }
        #expect(throws: BinaryReader.Malformed.self) { try CanonicalRecord.readAll(bad, name: "k00001.awr") }
    }
}
