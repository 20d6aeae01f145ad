import AreaWatchCore
import Testing

@testable import AreaWatchCore

/// The textbook geohash encoder, literally halving intervals: longitude first, a coordinate equal
/// to the midpoint goes to the upper half. Returns the bits (most significant first) and the
/// final intervals. Midpoints of dyadic intervals are exact in Double, so this is exact.
private func referenceBisect(lat: Double, lon: Double, bitCount: Int)
    -> (bits: [Bool], lat: ClosedRange<Double>, lon: ClosedRange<Double>)
{
    var latLo = -90.0, latHi = 90.0, lonLo = -180.0, lonHi = 180.0
    var bits: [Bool] = []
    for i in 0..<bitCount {
        if i % 2 == 0 {
            let mid = (lonLo + lonHi) / 2
            if lon >= mid {
                bits.append(true)
                lonLo = mid
            } else {
                bits.append(false)
                lonHi = mid
            }
        } else {
            let mid = (latLo + latHi) / 2
            if lat >= mid {
                bits.append(true)
                latLo = mid
            } else {
                bits.append(false)
                latHi = mid
            }
        }
    }
    return (bits, latLo...latHi, lonLo...lonHi)
}

private let base32 = Array("0123456789bcdefghjkmnpqrstuvwxyz")

private func referenceEncode(lat: Double, lon: Double, precision: Int) -> String {
    let bits = referenceBisect(lat: lat, lon: lon, bitCount: 5 * precision).bits
    var out = ""
    for c in 0..<precision {
        var v = 0
        for b in bits[(5 * c)..<(5 * c + 5)] { v = v * 2 + (b ? 1 : 0) }
        out.append(base32[v])
    }
    return out
}

private func referenceCode(lat: Double, lon: Double) -> UInt64 {
    referenceBisect(lat: lat, lon: lon, bitCount: 64).bits.reduce(UInt64(0)) { ($0 << 1) | ($1 ? 1 : 0) }
}

/// Random points: uniform on the globe, plus points on exact grid lines (split values) of random
/// precisions, plus their neighbouring Doubles, plus the extreme edges.
private func samplePoints(_ rng: inout SplitMix64, count: Int) -> [(lat: Double, lon: Double)] {
    var points: [(lat: Double, lon: Double)] = []
    for _ in 0..<count {
        var lat = rng.uniform(-90, 90), lon = rng.uniform(-180, 180)
        switch rng.int(0...5) {
        case 0: // snap to a random dyadic grid line
            let k = rng.int(1...32)
            let h = 180 / Double(UInt64(1) << UInt64(k)), w = 360 / Double(UInt64(1) << UInt64(k))
            lat = -90 + (((lat + 90) / h).rounded(.down)) * h
            lon = -180 + (((lon + 180) / w).rounded(.down)) * w
        case 1: // one Double beside a grid line
            let k = rng.int(1...30)
            let h = 180 / Double(UInt64(1) << UInt64(k)), w = 360 / Double(UInt64(1) << UInt64(k))
            lat = -90 + (((lat + 90) / h).rounded(.down)) * h
            lon = -180 + (((lon + 180) / w).rounded(.down)) * w
            lat = rng.bool() ? lat.nextDown : lat.nextUp
            lon = rng.bool() ? lon.nextDown : lon.nextUp
            lat = min(90, max(-90, lat))
            lon = min(180, max(-180, lon))
        case 2:
            lat = rng.pick([-90, 90, 0, -0.0, 45, -45, 90.0.nextDown, (-90.0).nextUp, lat])
            lon = rng.pick([-180, 180, 0, -0.0, 90, -90, 180.0.nextDown, (-180.0).nextUp, lon])
        default:
            break
        }
        points.append((lat, lon))
    }
    return points
}

@Suite("Geohash")
struct GeohashTests {
    @Test("known vectors")
    func knownVectors() {
        #expect(Geohash.encode(lat: 57.64911, lon: 10.40744, precision: 11) == "u4pruydqqvj")
        #expect(Geohash.encode(lat: 42.6, lon: -5.6, precision: 5) == "ezs42")
        // Checked with an independent bisection encoder.
        #expect(Geohash.encode(lat: 48.8583, lon: 2.2945, precision: 12) == "u09tunqu1xpp")
        #expect(Geohash.encode(lat: -33.8568, lon: 151.2153, precision: 12) == "r3gx2ux9ggh1")
        #expect(Geohash.encode(lat: 40.6892, lon: -74.0445, precision: 12) == "dr5r7p4ry0eh")
        #expect(Geohash.encode(lat: 53.7996, lon: -1.5491, precision: 12) == "gcwfh9zvrk76")
        #expect(Geohash.encode(lat: 64.1466, lon: -21.9426, precision: 12) == "ge2kuttch2gt")
        #expect(Geohash.encode(lat: -0.0001, lon: -0.0001, precision: 12) == "7zzzzzzzmtm7")
        #expect(Geohash.encode(lat: 0, lon: 0, precision: 12) == "s00000000000")
        #expect(Geohash.encode(lat: 90, lon: 180, precision: 12) == "zzzzzzzzzzzz")
        #expect(Geohash.encode(lat: -90, lon: -180, precision: 12) == "000000000000")

        let ezs42 = GeohashCell("ezs42")!
        #expect(
            ezs42.bounds == GeoBox(minLat: 42.5830078125, minLon: -5.625, maxLat: 42.626953125, maxLon: -5.5810546875))
        #expect(ezs42.centre.lat == 42.60498046875)
        #expect(ezs42.centre.lon == -5.60302734375)
        #expect(GeohashCell("EZS42") == ezs42)
        #expect(ezs42.description == "ezs42")
    }

    @Test("every code equals 64 bisection steps; every precision equals the reference string")
    func matchesReferenceBisection() {
        let seed = testSeed(0x6E0_4A5E_0001)
        var rng = SplitMix64(seed: seed)
        for (lat, lon) in samplePoints(&rng, count: 3000) {
            let code = Geohash.code(lat: lat, lon: lon)
            #expect(code == referenceCode(lat: lat, lon: lon), "seed \(seed): code of (\(lat), \(lon))")
            let p = rng.int(1...12)
            #expect(
                Geohash.encode(lat: lat, lon: lon, precision: p) == referenceEncode(lat: lat, lon: lon, precision: p),
                "seed \(seed): (\(lat), \(lon)) precision \(p)")
        }
    }

    @Test("the top 5p bits of the code are the cell at precision p")
    func codePrefixIsCell() {
        let seed = testSeed(0x6E0_4A5E_0002)
        var rng = SplitMix64(seed: seed)
        for (lat, lon) in samplePoints(&rng, count: 500) {
            let code = Geohash.code(lat: lat, lon: lon)
            let full = Geohash.encode(lat: lat, lon: lon, precision: 12)
            for p in 1...12 {
                let cell = GeohashCell(lat: lat, lon: lon, precision: p)
                #expect(cell.prefix == code >> UInt64(64 - 5 * p), "seed \(seed): (\(lat), \(lon)) p \(p)")
                #expect(cell == GeohashCell(code: code, precision: p))
                #expect(cell.string == String(full.prefix(p)), "seed \(seed): (\(lat), \(lon)) p \(p)")
                #expect(cell.lowerCode <= code && code <= cell.upperCode)
                #expect(GeohashCell(lat: lat, lon: lon, precision: 12).parent(precision: p) == cell)
            }
        }
    }

    @Test("string ↔ cell round trip at every precision")
    func stringRoundTrip() {
        let seed = testSeed(0x6E0_4A5E_0003)
        var rng = SplitMix64(seed: seed)
        for p in 1...12 {
            for _ in 0..<300 {
                let prefix = rng.next() >> UInt64(64 - 5 * p)
                let cell = GeohashCell(prefix: prefix, precision: p)
                let s = cell.string
                #expect(s.count == p)
                #expect(GeohashCell(s) == cell, "seed \(seed): \(s)")
                #expect(GeohashCell(s.uppercased()) == cell, "seed \(seed): \(s)")
                #expect(GeohashCell(Substring(s)) == cell)
                // The cell's own corner and centre encode back to it.
                let b = cell.bounds
                #expect(Geohash.encode(lat: b.minLat, lon: b.minLon, precision: p) == s, "seed \(seed): \(s)")
                #expect(Geohash.encode(lat: cell.centre.lat, lon: cell.centre.lon, precision: p) == s)
                // Row and column indices rebuild the same cell.
                #expect(GeohashCell(lonIndex: cell.lonIndex, latIndex: cell.latIndex, precision: p) == cell)
            }
        }
    }

    @Test(
        "invalid geohash strings are rejected",
        arguments: ["", "a", "i", "l", "o", "u4pr a", "u4pr-", "0123456789bcd", "ä", "u4pruydqqvjA", " u4pr", "u4pr\n"])
    func invalidStrings(text: String) {
        #expect(GeohashCell(text) == nil)
    }

    @Test("longest valid string and mixed case")
    func validEdgeStrings() {
        #expect(GeohashCell("0123456789bc")?.precision == 12)
        #expect(GeohashCell("zzzzzzzzzzzz")?.prefix == (UInt64(1) << 60) - 1)
        #expect(GeohashCell("U4PruYDQQVJ")?.string == "u4pruydqqvj")
    }

    @Test("a coordinate equal to a split value goes to the upper half")
    func splitValuesGoUp() {
        // lon 0 is the first split: bit 1 → first character ≥ "h" region; lat 0 the second split.
        let c = GeohashCell(lat: 0, lon: 0, precision: 1)
        #expect(c.bounds == GeoBox(minLat: 0, minLon: 0, maxLat: 45, maxLon: 45))
        #expect(GeohashCell(lat: -0.0, lon: -0.0, precision: 1) == c)
        #expect(
            GeohashCell(lat: 0.0.nextDown, lon: 0.0.nextDown, precision: 1).bounds
                == GeoBox(minLat: -45, minLon: -45, maxLat: 0, maxLon: 0))
        // lon −90 splits [−180, 0): goes east.
        let west = GeohashCell(lat: 10, lon: -90, precision: 1)
        #expect(west.bounds.minLon == -90 && west.bounds.maxLon == -45)
        #expect(GeohashCell(lat: 10, lon: (-90.0).nextDown, precision: 1).bounds.maxLon == -90)
        // lat 45 and lat −45 split rows.
        #expect(GeohashCell(lat: 45, lon: 10, precision: 1).bounds.minLat == 45)
        #expect(GeohashCell(lat: -45, lon: 10, precision: 1).bounds.minLat == -45)
        #expect(GeohashCell(lat: 45.0.nextDown, lon: 10, precision: 1).bounds.maxLat == 45)
        // Deep splits: 2^-20-degree grid lines.
        let w = GeohashCell.lonSpan(12), h = GeohashCell.latSpan(12)
        let lon = -180 + 123_456_789 * w, lat = -90 + 98_765_432 * h
        let cell = GeohashCell(lat: lat, lon: lon, precision: 12)
        #expect(cell.bounds.minLon == lon && cell.bounds.minLat == lat)
        let below = GeohashCell(lat: lat.nextDown, lon: lon.nextDown, precision: 12)
        #expect(below.bounds.maxLon == lon && below.bounds.maxLat == lat)
    }

    @Test("cell bounds: the lower corner belongs to the cell, the upper edges to the next cells")
    func boundsEdgesBelongUpward() {
        let seed = testSeed(0x6E0_4A5E_0004)
        var rng = SplitMix64(seed: seed)
        for _ in 0..<1500 {
            let p = rng.int(1...12)
            let cell = GeohashCell(prefix: rng.next() >> UInt64(64 - 5 * p), precision: p)
            let b = cell.bounds
            #expect(GeohashCell(lat: b.minLat, lon: b.minLon, precision: p) == cell, "seed \(seed): \(cell)")
            #expect(
                GeohashCell(lat: b.maxLat.nextDown, lon: b.maxLon.nextDown, precision: p) == cell,
                "seed \(seed): \(cell)")
            let north = GeohashCell(lat: b.maxLat, lon: b.minLon, precision: p)
            if b.maxLat == 90 {
                #expect(north == cell, "seed \(seed): \(cell) lat 90 stays in the top row")
            } else {
                #expect(north == cell.offset(rows: 1, columns: 0), "seed \(seed): \(cell)")
            }
            let east = GeohashCell(lat: b.minLat, lon: b.maxLon, precision: p)
            if b.maxLon == 180 {
                #expect(east == cell, "seed \(seed): \(cell) lon 180 stays in the last column")
            } else {
                #expect(east == cell.offset(rows: 0, columns: 1), "seed \(seed): \(cell)")
            }
            if b.minLat > -90 {
                #expect(
                    GeohashCell(lat: b.minLat.nextDown, lon: b.minLon, precision: p)
                        == cell.offset(rows: -1, columns: 0))
            }
            if b.minLon > -180 {
                #expect(
                    GeohashCell(lat: b.minLat, lon: b.minLon.nextDown, precision: p)
                        == cell.offset(rows: 0, columns: -1))
            }
        }
    }

    @Test("lat 90 and lon 180 fall in the top row and the last column")
    func polesAndAntimeridian() {
        for p in 1...12 {
            let lastRow = (UInt64(1) << UInt64(GeohashCell.latBitCount(p))) - 1
            let lastColumn = (UInt64(1) << UInt64(GeohashCell.lonBitCount(p))) - 1
            let ne = GeohashCell(lat: 90, lon: 180, precision: p)
            #expect(ne.latIndex == lastRow && ne.lonIndex == lastColumn)
            #expect(ne.bounds.maxLat == 90 && ne.bounds.maxLon == 180)
            #expect(ne.bounds.contains(lat: 90, lon: 180))
            let sw = GeohashCell(lat: -90, lon: -180, precision: p)
            #expect(sw.latIndex == 0 && sw.lonIndex == 0 && sw.prefix == 0)
            #expect(GeohashCell(lat: 90, lon: 0, precision: p).latIndex == lastRow)
            #expect(GeohashCell(lat: 0, lon: 180, precision: p).lonIndex == lastColumn)
            #expect(GeohashCell(lat: 0, lon: -180, precision: p).lonIndex == 0)
            #expect(GeohashCell(lat: -90, lon: 0, precision: p).latIndex == 0)
        }
        #expect(Geohash.code(lat: 90, lon: 180) == UInt64.max)
        #expect(Geohash.code(lat: -90, lon: -180) == 0)
        #expect(Geohash.encode(lat: 90, lon: -180, precision: 1) == "b")
        #expect(Geohash.encode(lat: -90, lon: 180, precision: 1) == "p")
    }

    @Test("bounds contain the point; centre is the exact midpoint; spans are exact")
    func boundsAndCentre() {
        let seed = testSeed(0x6E0_4A5E_0005)
        var rng = SplitMix64(seed: seed)
        for (lat, lon) in samplePoints(&rng, count: 1500) {
            let p = rng.int(1...12)
            let cell = GeohashCell(lat: lat, lon: lon, precision: p)
            let b = cell.bounds
            #expect(b.contains(lat: lat, lon: lon), "seed \(seed): (\(lat), \(lon)) p \(p) \(b)")
            // Half-open cells, except at lat 90 and lon 180.
            #expect(lat < b.maxLat || b.maxLat == 90, "seed \(seed): (\(lat), \(lon)) p \(p)")
            #expect(lon < b.maxLon || b.maxLon == 180, "seed \(seed): (\(lat), \(lon)) p \(p)")
            let ref = referenceBisect(lat: lat, lon: lon, bitCount: 5 * p)
            #expect(
                b
                    == GeoBox(
                        minLat: ref.lat.lowerBound, minLon: ref.lon.lowerBound,
                        maxLat: ref.lat.upperBound, maxLon: ref.lon.upperBound), "seed \(seed): (\(lat), \(lon)) p \(p)"
            )
            #expect(cell.centre.lat == (b.minLat + b.maxLat) / 2)
            #expect(cell.centre.lon == (b.minLon + b.maxLon) / 2)
            #expect(b.maxLat - b.minLat == GeohashCell.latSpan(p))
            #expect(b.maxLon - b.minLon == GeohashCell.lonSpan(p))
        }
        #expect(GeohashCell.latSpan(1) == 45 && GeohashCell.lonSpan(1) == 45)
        #expect(GeohashCell.latSpan(2) == 5.625 && GeohashCell.lonSpan(2) == 11.25)
        #expect(GeohashCell.lonSpan(12) == 360.0 / 1_073_741_824 && GeohashCell.latSpan(12) == 180.0 / 1_073_741_824)
    }

    @Test("neighbours of the corner cell 0 and of ezs42")
    func knownNeighbours() {
        // "0": lat −90…−45, lon −180…−135. Nothing south; west wraps to lon 135…180.
        #expect(GeohashCell("0")!.neighbours.map(\.string) == ["2", "3", "1", "p", "r"])
        // "b": the north-west corner at precision 1.
        #expect(GeohashCell("b")!.neighbours.map(\.string) == ["c", "9", "8", "x", "z"])
        // Interior: checked against the geometry (the cell holding centre ± one span).
        #expect(
            GeohashCell("ezs42")!.neighbours.map(\.string)
                == ["ezs48", "ezs49", "ezs43", "ezs41", "ezs40", "ezefp", "ezefr", "ezefx"])
    }

    @Test("neighbours: eight away from the poles, five at them, longitude wraps")
    func neighbours() {
        let seed = testSeed(0x6E0_4A5E_0006)
        var rng = SplitMix64(seed: seed)
        let directions = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]
        for i in 0..<2000 {
            let p = rng.int(1...12)
            let rows = UInt64(1) << UInt64(GeohashCell.latBitCount(p))
            let columns = UInt64(1) << UInt64(GeohashCell.lonBitCount(p))
            // Force poles and antimeridian columns often.
            var row = rng.next() % rows, column = rng.next() % columns
            switch i % 6 {
            case 0: row = 0
            case 1: row = rows - 1
            case 2: column = 0
            case 3: column = columns - 1
            default: break
            }
            let cell = GeohashCell(lonIndex: column, latIndex: row, precision: p)
            #expect(cell.latIndex == row && cell.lonIndex == column)
            let n = cell.neighbours
            let expectedCount = (row == 0 || row == rows - 1) ? 5 : 8
            #expect(n.count == expectedCount, "seed \(seed): \(cell)")
            #expect(Set(n).count == n.count, "seed \(seed): \(cell)")
            #expect(!n.contains(cell))
            // Each neighbour is the cell holding the centre moved by whole spans, longitude wrapped.
            let h = GeohashCell.latSpan(p), w = GeohashCell.lonSpan(p)
            let c = cell.centre
            var expected: [GeohashCell] = []
            for (dr, dc) in directions {
                let lat = c.lat + Double(dr) * h
                guard lat > -90 && lat < 90 else { continue }
                expected.append(GeohashCell(lat: lat, lon: wrapLongitude(c.lon + Double(dc) * w), precision: p))
            }
            #expect(n == expected, "seed \(seed): \(cell)")
            for (dr, dc) in directions {
                if let o = cell.offset(rows: dr, columns: dc) {
                    #expect(o.offset(rows: -dr, columns: -dc) == cell)
                }
            }
        }
        // Explicit wrap at ±180: the cell west of column 0 is the last column.
        let westEdge = GeohashCell(lat: 10, lon: -180, precision: 6)
        let wrapped = westEdge.offset(rows: 0, columns: -1)!
        #expect(wrapped.bounds.maxLon == 180)
        #expect(wrapped.bounds.minLat == westEdge.bounds.minLat)
        #expect(wrapped.offset(rows: 0, columns: 1) == westEdge)
        #expect(westEdge.offset(rows: 0, columns: Int(1 << GeohashCell.lonBitCount(6))) == westEdge)
        // Beyond the poles: nil.
        #expect(GeohashCell(lat: 90, lon: 0, precision: 5).offset(rows: 1, columns: 0) == nil)
        #expect(GeohashCell(lat: -90, lon: 0, precision: 5).offset(rows: -1, columns: 0) == nil)
    }

    @Test("sorted codes: every cell at every precision is one contiguous range")
    func sortedCodesAreContiguous() {
        let seed = testSeed(0x6E0_4A5E_0007)
        var rng = SplitMix64(seed: seed)
        // Clustered points, so cells at high precision hold several of them.
        var points: [(lat: Double, lon: Double)] = []
        let centres = (0..<6).map { _ in (lat: rng.uniform(-80, 80), lon: rng.uniform(-180, 180)) }
        for _ in 0..<2500 {
            if rng.bool(0.15) {
                points.append((rng.uniform(-90, 90), rng.uniform(-180, 180)))
            } else {
                let c = rng.pick(centres)
                let sigma = rng.pick([0.0001, 0.001, 0.01, 0.3])
                points.append(
                    (
                        min(90, max(-90, c.lat + sigma * rng.gaussian())),
                        wrapLongitude(c.lon + sigma * rng.gaussian())
                    ))
            }
        }
        points += samplePoints(&rng, count: 300)
        let entries = points.map {
            (
                code: Geohash.code(lat: $0.lat, lon: $0.lon),
                hash: Geohash.encode(lat: $0.lat, lon: $0.lon, precision: 12)
            )
        }
        .sorted { $0.code < $1.code }
        let codes = entries.map(\.code)

        func lowerBound(_ x: UInt64) -> Int {
            var lo = 0, hi = codes.count
            while lo < hi {
                let m = (lo + hi) / 2
                if codes[m] < x { lo = m + 1 } else { hi = m }
            }
            return lo
        }
        func upperBound(_ x: UInt64) -> Int {
            var lo = 0, hi = codes.count
            while lo < hi {
                let m = (lo + hi) / 2
                if codes[m] <= x { lo = m + 1 } else { hi = m }
            }
            return lo
        }
        for q in 0..<200 {
            let p = rng.int(1...12)
            // Cells of existing points mostly, some random (often empty) cells.
            let cell: GeohashCell
            if q % 5 == 0 {
                cell = GeohashCell(prefix: rng.next() >> UInt64(64 - 5 * p), precision: p)
            } else {
                cell = GeohashCell(code: rng.pick(codes), precision: p)
            }
            let range = lowerBound(cell.lowerCode)..<upperBound(cell.upperCode)
            let s = cell.string
            let brute = entries.indices.filter { entries[$0].hash.hasPrefix(s) }
            #expect(Array(range) == brute, "seed \(seed): cell \(s)")
            #expect(entries[range].allSatisfy { GeohashCell(code: $0.code, precision: p) == cell })
        }
    }

    @Test("cell ordering follows the codes")
    func cellOrdering() {
        let a = GeohashCell("u4pr")!, b = GeohashCell("u4ps")!
        #expect(a < b)
        #expect(a.parent(precision: 2) < a)
        #expect(GeohashCell("0")! < GeohashCell("zzzzzzzzzzzz")!)
        #expect(GeohashCell("s")!.lowerCode == UInt64(24) << 59)
        #expect(GeohashCell("s")!.upperCode == (UInt64(25) << 59) - 1)
    }
}
