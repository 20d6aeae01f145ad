import AreaWatchCore
import Glibc
import Testing

@testable import AreaWatchCore

/// A point set under test, with the trees built over it for several node sizes.
private struct PointSet {
    let name: String
    let lats: [Double]
    let lons: [Double]
    var count: Int { lats.count }
}

private let nodeSizes = [2, 4, 16, 64]
private let standardRadii: [Double] = [0, 1, 10, 100, 1000, 5000, 50_000]

/// Scratch marks shared by the checks of one point set: `marks[i] == stamp` means input point
/// `i` was reported by the current query (a fresh stamp per query avoids clearing the array).
private struct Marks {
    var marks: [UInt32]
    var stamp: UInt32 = 0
    init(count: Int) { marks = [UInt32](repeating: 0, count: count) }
}

/// Checks one tree against brute force for one query location and several radii; `dist` holds
/// the brute-force distance from the query to every input point (by input index).
private func checkRadius(
    _ tree: PackedHilbertRTree, _ set: PointSet, lat: Double, lon: Double,
    dist: [Double], radii: [Double], positionsWithinFor: Int,
    scratch: inout Marks, context: String
) {
    let n = set.count
    let leafIndex = tree.leafIndex
    for (k, radius) in radii.enumerated() {
        scratch.stamp += 1
        let stamp = scratch.stamp
        var reportedTwice = 0
        var badRange = false
        var missing: [Int] = [], extra: [Int] = []
        var bruteCount = 0
        scratch.marks.withUnsafeMutableBufferPointer { marks in
            leafIndex.withUnsafeBufferPointer { leafIndex in
                tree.forEachWithin(
                    lat: lat, lon: lon, test: RadiusTest(radius: radius),
                    range: { r in
                        if r.lowerBound < 0 || r.upperBound > n {
                            badRange = true
                            return
                        }
                        for p in r {
                            let i = Int(leafIndex[p])
                            if marks[i] == stamp { reportedTwice += 1 }
                            marks[i] = stamp
                        }
                    },
                    point: { p in
                        if p < 0 || p >= n {
                            badRange = true
                            return
                        }
                        let i = Int(leafIndex[p])
                        if marks[i] == stamp { reportedTwice += 1 }
                        marks[i] = stamp
                    })
            }
            dist.withUnsafeBufferPointer { dist in
                for i in 0..<n {
                    let inside = dist[i] <= radius
                    if inside { bruteCount += 1 }
                    if inside != (marks[i] == stamp) {
                        if inside { missing.append(i) } else { extra.append(i) }
                    }
                }
            }
        }
        let describe = { (list: [Int]) in
            list.prefix(3).map { "#\($0) (\(set.lats[$0]), \(set.lons[$0])) d=\(dist[$0])" }.joined(separator: "; ")
        }
        let where_ = "\(context) q=(\(lat), \(lon)) r=\(radius) nodeSize \(tree.nodeSize)"
        #expect(!badRange, "\(where_): position out of range")
        #expect(reportedTwice == 0, "\(where_): \(reportedTwice) positions reported twice")
        #expect(missing.isEmpty, "\(where_): missing \(missing.count): \(describe(missing))")
        #expect(extra.isEmpty, "\(where_): extra \(extra.count): \(describe(extra))")

        // positionsWithin (for one of the radii: it sorts, which is slow in debug builds):
        // strictly increasing leaf positions, each within, as many as brute force.
        guard k == positionsWithinFor else { continue }
        let positions = tree.positionsWithin(lat: lat, lon: lon, radius: radius)
        var ordered = true, allInside = true
        var previous = -1
        for p in positions {
            if p <= previous || p >= n {
                ordered = false
                break
            }
            previous = p
            if !(dist[Int(leafIndex[p])] <= radius) { allInside = false }
        }
        #expect(
            ordered && allInside && positions.count == bruteCount,
            "\(where_): positionsWithin gave \(positions.count), brute force \(bruteCount)")
    }
}

/// Checks a box query: `inside[i]` is brute force for input point `i`, `insideCount` their number.
private func checkBox(_ tree: PackedHilbertRTree, box: GeoBox, inside: [Bool], insideCount: Int, context: String) {
    let found = tree.positions(in: box)
    var ordered = true, allInside = true
    var previous = -1
    for p in found {
        if p <= previous || p >= tree.count {
            ordered = false
            break
        }
        previous = p
        if !inside[Int(tree.leafIndex[p])] { allInside = false }
    }
    #expect(
        ordered && allInside && found.count == insideCount,
        "\(context) box \(box) nodeSize \(tree.nodeSize): found \(found.count), expected \(insideCount)")
}

private func checkBoxAllTrees(_ trees: [PackedHilbertRTree], _ set: PointSet, box: GeoBox, context: String) {
    var inside = [Bool](repeating: false, count: set.count)
    var count = 0
    for i in 0..<set.count where box.contains(lat: set.lats[i], lon: set.lons[i]) {
        inside[i] = true
        count += 1
    }
    for tree in trees { checkBox(tree, box: box, inside: inside, insideCount: count, context: context) }
}

private func checkStructure(_ tree: PackedHilbertRTree, _ set: PointSet, context: String) {
    #expect(tree.count == set.count)
    #expect(tree.leafLat.count == set.count && tree.leafLon.count == set.count && tree.leafIndex.count == set.count)
    var seen = [Bool](repeating: false, count: set.count)
    var permutation = true
    var coordinatesMatch = true
    for p in 0..<tree.count {
        let i = Int(tree.leafIndex[p])
        guard i < set.count, !seen[i] else {
            permutation = false
            continue
        }
        seen[i] = true
        if tree.leafLat[p].bitPattern != set.lats[i].bitPattern || tree.leafLon[p].bitPattern != set.lons[i].bitPattern
        {
            coordinatesMatch = false
        }
    }
    #expect(
        permutation && !seen.contains(false), "\(context) nodeSize \(tree.nodeSize): leafIndex is not a permutation")
    #expect(coordinatesMatch, "\(context) nodeSize \(tree.nodeSize): leaf coordinates differ from the input")
}

/// Runs radius and box queries against brute force on every node size.
private func exercise(
    _ set: PointSet, rng: inout SplitMix64, seed: UInt64, queries: Int,
    radii: [Double] = standardRadii,
    queryNear: ((inout SplitMix64) -> (lat: Double, lon: Double))? = nil
) {
    let trees = nodeSizes.map { PackedHilbertRTree(latitudes: set.lats, longitudes: set.lons, nodeSize: $0) }
    for tree in trees {
        #expect(tree.nodeSize > 0)
        checkStructure(tree, set, context: "seed \(seed) \(set.name)")
    }
    let n = set.count
    var scratch = Marks(count: n)
    for q in 0..<queries {
        // The query location: on a data point, near one, or anywhere near the data.
        var lat: Double, lon: Double
        if n > 0 && q % 3 == 0 {
            let i = rng.int(0...(n - 1))
            lat = set.lats[i]
            lon = set.lons[i]
        } else if n > 0 && q % 3 == 1 {
            let i = rng.int(0...(n - 1))
            let d = destination(
                lat: set.lats[i], lon: set.lons[i], bearing: rng.uniform(0, 360),
                distance: rng.pick([0.5, 20, 300, 2000]) * abs(rng.gaussian()))
            lat = d.lat
            lon = d.lon
        } else if let near = queryNear {
            (lat, lon) = near(&rng)
        } else if n > 0 {
            lat = set.lats[rng.int(0...(n - 1))] + rng.uniform(-0.05, 0.05)
            lon = set.lons[rng.int(0...(n - 1))] + rng.uniform(-0.05, 0.05)
            lat = min(90, max(-90, lat))
            lon = wrapLongitude(lon)
        } else {
            lat = rng.uniform(-90, 90)
            lon = rng.uniform(-180, 180)
        }
        var dist = [Double](repeating: 0, count: n)
        for i in 0..<n {
            dist[i] = Haversine.distance(lat1: lat, lon1: lon, lat2: set.lats[i], lon2: set.lons[i])
        }
        // Radii: a few standard ones, a random one, and radii exactly at a point's distance
        // (that point must be in) and just below it (out).
        var radii = (0..<3).map { _ in rng.pick(radii) }
        radii.append(rng.uniform(0, 50_000))
        if n > 0 {
            let near = dist.filter { $0 <= 60_000 }
            let d = near.isEmpty ? dist[rng.int(0...(n - 1))] : rng.pick(near)
            radii.append(d)
            radii.append(d.nextDown)
        }
        let context = "seed \(seed) \(set.name) query \(q)"
        for (t, tree) in trees.enumerated() {
            checkRadius(
                tree, set, lat: lat, lon: lon, dist: dist, radii: radii,
                positionsWithinFor: (q + t) % radii.count, scratch: &scratch, context: context)
        }
        // A box query: around the query, a point box on a data point, or a box with edges on data
        // coordinates.
        var boxes: [GeoBox] = []
        // (Large results are kept rare: the tree sorts them, which is slow in debug builds.)
        if n == 0 || q % 3 == 0 {
            let h = rng.pick([0.0, 0.0001, 0.005, 0.05]), w = rng.pick([0.0, 0.0001, 0.005, 0.05])
            boxes.append(GeoBox(minLat: lat - h, minLon: lon - w, maxLat: lat + h, maxLon: lon + w))
        } else if q % 3 == 1 {
            let i = rng.int(0...(n - 1))
            boxes.append(GeoBox(minLat: set.lats[i], minLon: set.lons[i], maxLat: set.lats[i], maxLon: set.lons[i]))
        } else {
            // Two points a few leaves apart in Hilbert order: near each other.
            let p = rng.int(0...(n - 1)), p2 = min(n - 1, p + rng.int(1...24))
            let a = (trees[0].leafLat[p], trees[0].leafLon[p]), b = (trees[0].leafLat[p2], trees[0].leafLon[p2])
            boxes.append(
                GeoBox(minLat: min(a.0, b.0), minLon: min(a.1, b.1), maxLat: max(a.0, b.0), maxLon: max(a.1, b.1)))
        }
        for box in boxes { checkBoxAllTrees(trees, set, box: box, context: context) }
    }
    checkBoxAllTrees(
        trees, set, box: GeoBox(minLat: -90, minLon: -180, maxLat: 90, maxLon: 180),
        context: "seed \(seed) \(set.name) world")
    for tree in trees {
        #expect(tree.positions(in: GeoBox(minLat: -90, minLon: -180, maxLat: 90, maxLon: 180)).count == n)
        #expect(tree.positions(in: GeoBox(minLat: 10, minLon: 0, maxLat: -10, maxLon: 1)).isEmpty)
    }
}

private func clamped(_ lat: Double) -> Double { min(90, max(-90, lat)) }

@Suite("PackedHilbertRTree")
struct PackedHilbertRTreeTests {
    @Test("uniform points in a city")
    func uniformCity() {
        let seed = testSeed(0x7EE_0001)
        var rng = SplitMix64(seed: seed)
        let n = 2000
        var lats: [Double] = [], lons: [Double] = []
        for _ in 0..<n {
            lats.append(rng.uniform(53.6, 53.95))
            lons.append(rng.uniform(-1.9, -1.3))
        }
        exercise(PointSet(name: "uniform city", lats: lats, lons: lons), rng: &rng, seed: seed, queries: 15)
    }

    @Test("uniform points on the whole globe, large radii too")
    func uniformGlobe() {
        let seed = testSeed(0x7EE_0002)
        var rng = SplitMix64(seed: seed)
        var lats: [Double] = [], lons: [Double] = []
        for _ in 0..<1500 {
            // Uniform on the sphere.
            lats.append(asin(rng.uniform(-1, 1)) * 180 / Double.pi)
            lons.append(rng.uniform(-180, 180))
        }
        exercise(
            PointSet(name: "globe", lats: lats, lons: lons), rng: &rng, seed: seed, queries: 18,
            radii: standardRadii + [500_000, 3_000_000, 12_000_000, 25_000_000],
            queryNear: { r in (r.uniform(-90, 90), r.uniform(-180, 180)) })
    }

    @Test("clustered points (Gaussian hotspots)")
    func clustered() {
        let seed = testSeed(0x7EE_0003)
        var rng = SplitMix64(seed: seed)
        let hotspots = (0..<8).map { _ in
            (lat: rng.uniform(51.3, 51.7), lon: rng.uniform(-0.5, 0.3), sigma: rng.pick([20.0, 150, 800, 3000]))
        }
        var lats: [Double] = [], lons: [Double] = []
        for _ in 0..<2500 {
            let h = rng.pick(hotspots)
            let d = destination(
                lat: h.lat, lon: h.lon, bearing: rng.uniform(0, 360), distance: h.sigma * abs(rng.gaussian()))
            lats.append(d.lat)
            lons.append(d.lon)
        }
        exercise(PointSet(name: "clustered", lats: lats, lons: lons), rng: &rng, seed: seed, queries: 15)
    }

    @Test("heavy duplicates: thousands of points on one coordinate")
    func heavyDuplicates() {
        let seed = testSeed(0x7EE_0004)
        var rng = SplitMix64(seed: seed)
        var lats: [Double] = [], lons: [Double] = []
        // Police data snaps incidents to a few thousand anonymised map points.
        let snapped = (0..<6).map { _ in (lat: rng.uniform(53.79, 53.81), lon: rng.uniform(-1.56, -1.53)) }
        for _ in 0..<2000 {
            lats.append(53.799_612)
            lons.append(-1.549_103)
        }
        for _ in 0..<500 {
            let s = rng.pick(snapped)
            lats.append(s.lat)
            lons.append(s.lon)
        }
        for _ in 0..<300 {
            lats.append(rng.uniform(53.78, 53.82))
            lons.append(rng.uniform(-1.58, -1.52))
        }
        // Shuffle so duplicates are spread through the input order.
        for i in stride(from: lats.count - 1, to: 0, by: -1) {
            let j = rng.int(0...i)
            lats.swapAt(i, j)
            lons.swapAt(i, j)
        }
        let set = PointSet(name: "duplicates", lats: lats, lons: lons)
        exercise(set, rng: &rng, seed: seed, queries: 10)

        // Queries on the duplicate coordinate itself: every radius, including 0, finds all 2000+.
        let tree = PackedHilbertRTree(latitudes: lats, longitudes: lons, nodeSize: 16)
        for radius in [0.0, 1, 1000] {
            let found = tree.positionsWithin(lat: 53.799_612, lon: -1.549_103, radius: radius)
            #expect(found.count >= 2000, "seed \(seed): r=\(radius) found \(found.count)")
        }
        // All points identical.
        let same = PointSet(
            name: "all identical", lats: Array(repeating: -33.9, count: 1500),
            lons: Array(repeating: 151.2, count: 1500))
        exercise(same, rng: &rng, seed: seed, queries: 2)
        let t = PackedHilbertRTree(latitudes: same.lats, longitudes: same.lons, nodeSize: 4)
        #expect(t.positionsWithin(lat: -33.9, lon: 151.2, radius: 0) == Array(0..<1500))
        #expect(t.positionsWithin(lat: -33.9, lon: 151.2.nextUp, radius: 0).isEmpty)
    }

    @Test("tiny sets: 0, 1, 2, nodeSize, nodeSize + 1, nodeSize² ± 1 points")
    func tinySets() {
        let seed = testSeed(0x7EE_0005)
        var rng = SplitMix64(seed: seed)
        var sizes = Set([0, 1, 2, 3])
        for s in nodeSizes {
            sizes.formUnion([s - 1, s, s + 1])
            if s * s <= 300 { sizes.formUnion([s * s - 1, s * s, s * s + 1]) }
        }
        for n in sizes.sorted() {
            var lats: [Double] = [], lons: [Double] = []
            for _ in 0..<n {
                let d = destination(
                    lat: 48.8566, lon: 2.3522, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 3000))
                lats.append(d.lat)
                lons.append(d.lon)
            }
            exercise(
                PointSet(name: "tiny \(n)", lats: lats, lons: lons), rng: &rng, seed: seed, queries: n == 0 ? 3 : 6,
                queryNear: { r in
                    let d = destination(
                        lat: 48.8566, lon: 2.3522, bearing: r.uniform(0, 360), distance: r.uniform(0, 4000))
                    return (d.lat, d.lon)
                })
        }
        let empty = PackedHilbertRTree(latitudes: [], longitudes: [], nodeSize: 4)
        #expect(empty.count == 0)
        #expect(empty.positionsWithin(lat: 0, lon: 0, radius: 1e7).isEmpty)
        #expect(empty.positions(in: GeoBox(minLat: -90, minLon: -180, maxLat: 90, maxLon: 180)).isEmpty)
        var called = false
        empty.forEachWithin(
            lat: 0, lon: 0, test: RadiusTest(radius: 1e7), range: { _ in called = true }, point: { _ in called = true })
        #expect(!called)
        let one = PackedHilbertRTree(latitudes: [10], longitudes: [20])
        #expect(one.nodeSize == 16)
        #expect(one.positionsWithin(lat: 10, lon: 20, radius: 0) == [0])
        #expect(one.positionsWithin(lat: 10, lon: 20, radius: -1).isEmpty)
        #expect(one.memoryBytes > 0)
    }

    @Test("across the antimeridian")
    func antimeridian() {
        let seed = testSeed(0x7EE_0006)
        var rng = SplitMix64(seed: seed)
        var lats: [Double] = [], lons: [Double] = []
        for i in 0..<1500 {
            lats.append(rng.uniform(-17.2, -16.8))
            switch i % 10 {
            case 0: lons.append(180)
            case 1: lons.append(-180)
            case 2, 3, 4, 5: lons.append(rng.uniform(179.4, 180))
            default: lons.append(rng.uniform(-180, -179.4))
            }
        }
        let set = PointSet(name: "antimeridian", lats: lats, lons: lons)
        exercise(
            set, rng: &rng, seed: seed, queries: 18,
            queryNear: { r in
                (
                    r.uniform(-17.3, -16.7),
                    r.pick([
                        179.99, -179.99, 180, -180, 179.999_999, -179.999_999, r.uniform(179.9, 180),
                        r.uniform(-180, -179.9)
                    ])
                )
            })
        // Points just across the line must be found from both sides.
        let tree = PackedHilbertRTree(latitudes: [0, 0, 0], longitudes: [179.995, -179.995, 0], nodeSize: 2)
        #expect(Set(tree.positionsWithin(lat: 0, lon: 179.99, radius: 2000).map { tree.leafIndex[$0] }) == [0, 1])
        #expect(Set(tree.positionsWithin(lat: 0, lon: -179.99, radius: 2000).map { tree.leafIndex[$0] }) == [0, 1])
        #expect(Set(tree.positionsWithin(lat: 0, lon: 180, radius: 600).map { tree.leafIndex[$0] }) == [0, 1])
    }

    @Test("near and at the poles")
    func poles() {
        let seed = testSeed(0x7EE_0007)
        var rng = SplitMix64(seed: seed)
        for sign in [1.0, -1.0] {
            var lats: [Double] = [], lons: [Double] = []
            for i in 0..<1500 {
                switch i % 8 {
                case 0: lats.append(90 * sign)
                case 1: lats.append(rng.pick([89.99, 89.999_999, 90.0.nextDown]) * sign)
                default: lats.append(rng.uniform(89.5, 90) * sign)
                }
                lons.append(i % 16 == 0 ? rng.pick([0, 180, -180, 90, -90]) : rng.uniform(-180, 180))
            }
            let set = PointSet(name: "pole \(sign)", lats: lats, lons: lons)
            exercise(
                set, rng: &rng, seed: seed, queries: 18,
                queryNear: { r in
                    (
                        r.pick([90, 89.99, 89.999_99, 89.999_999_9, 90.0.nextDown, 89.9, r.uniform(89.4, 90)]) * sign,
                        r.pick([0, 180, -180, 45.5, -120, r.uniform(-180, 180)])
                    )
                })
        }
    }

    @Test("micro distances: points within millimetres, radii equal to their distances")
    func microDistances() {
        let seed = testSeed(0x7EE_0008)
        var rng = SplitMix64(seed: seed)
        // Places where rounding in the haversine term is largest relative to tiny distances:
        // at and next to the poles, on the antimeridian, and an ordinary city.
        let places: [(lat: Double, lon: Double)] = [
            (89.999_999_999, 172.44), (-89.999_999_99, -10), (90.0.nextDown, 0), (89.999_99, 99.79),
            (-29.2, 180), (-29.2, -180), (17.3, 179.999_999_999), (53.8, -1.55)
        ]
        for (k, place) in places.enumerated() {
            var lats: [Double] = [], lons: [Double] = []
            for _ in 0..<300 {
                let scale = rng.pick([1e-12, 1e-10, 1e-8, 1e-6])
                lats.append(min(90, max(-90, place.lat + scale * rng.gaussian())))
                var lon = place.lon + scale * 1000 * rng.gaussian()
                if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
                if rng.bool(0.1) { lon = place.lon == 180 ? -180 : place.lon == -180 ? 180 : lon }
                lons.append(lon)
            }
            exercise(
                PointSet(name: "micro \(k)", lats: lats, lons: lons), rng: &rng, seed: seed, queries: 24,
                radii: [0, 1e-9, 1e-6, 1e-3, 0.05, 1])
        }
    }

    @Test("regression: a point tens of micrometres away near the north pole is found")
    func nearPoleMicroRadius() {
        // The leaf box spans a point at the pole; the lower bound for it, computed at a latitude that
        // is no point's latitude, came out 3.6e-6 (relative) above the term of a point on its edge.
        let lats = [89.999_999_949_222_94, 90.0, 89.999_999_999_808_21]
        let lons = [99.791_069_304_780_82, 99.791_069_483_119_8, 99.791_069_483_119_8]
        let q = (lat: 89.999_999_999_356_9, lon: 172.441_052_965_952_6)
        let d = Haversine.distance(lat1: q.lat, lon1: q.lon, lat2: lats[2], lon2: lons[2])
        for nodeSize in [2, 4, 16] {
            let tree = PackedHilbertRTree(latitudes: lats, longitudes: lons, nodeSize: nodeSize)
            let found = tree.positionsWithin(lat: q.lat, lon: q.lon, radius: d).map { Int(tree.leafIndex[$0]) }
            let expected = (0..<3).filter {
                Haversine.distance(lat1: q.lat, lon1: q.lon, lat2: lats[$0], lon2: lons[$0]) <= d
            }
            #expect(found.sorted() == expected, "nodeSize \(nodeSize), r = \(d)")
        }
    }

    @Test("regression: a point at the same place across the antimeridian is found")
    func antimeridianSamePlace() {
        // (−29.2…, −180) and (−29.2…, 180) are one place; their haversine term is ~1e-32, not 0.
        let lats = [-33.164_469_415_625_07, -10.065_420_767_037_1, -29.201_543_619_761_885]
        let lons = [173.877_469_078_288_67, 180.0, 180.0]
        let q = (lat: -29.201_543_619_761_885, lon: -180.0)
        let d = Haversine.distance(lat1: q.lat, lon1: q.lon, lat2: lats[2], lon2: lons[2])
        #expect(d > 0 && d < 1e-8)
        for nodeSize in [2, 4, 16] {
            let tree = PackedHilbertRTree(latitudes: lats, longitudes: lons, nodeSize: nodeSize)
            let found = tree.positionsWithin(lat: q.lat, lon: q.lon, radius: d).map { Int(tree.leafIndex[$0]) }
            let expected = (0..<3).filter {
                Haversine.distance(lat1: q.lat, lon1: q.lon, lat2: lats[$0], lon2: lons[$0]) <= d
            }
            #expect(found.sorted() == expected, "nodeSize \(nodeSize), r = \(d)")
        }
    }

    @Test("the Hilbert index fills the grid continuously")
    func hilbertCurve() {
        // The first 4^k indices cover the 2^k × 2^k square at the origin, step by unit step.
        var cells = [(UInt32, UInt32)?](repeating: nil, count: 1 << 16)
        var outside = 0
        for x in UInt32(0)..<256 {
            for y in UInt32(0)..<256 {
                let d = PackedHilbertRTree.hilbertIndex(x: x, y: y)
                if d < 1 << 16 { cells[Int(d)] = (x, y) } else { outside += 1 }
            }
        }
        #expect(outside == 0)
        #expect(cells.allSatisfy { $0 != nil })
        var unitSteps = true
        for d in 1..<cells.count {
            guard let a = cells[d - 1], let b = cells[d] else {
                unitSteps = false
                break
            }
            let dx = a.0 > b.0 ? a.0 - b.0 : b.0 - a.0, dy = a.1 > b.1 ? a.1 - b.1 : b.1 - a.1
            if dx + dy != 1 {
                unitSteps = false
                break
            }
        }
        #expect(unitSteps)
        #expect(PackedHilbertRTree.hilbertIndex(x: 0, y: 0) == 0)
        #expect(PackedHilbertRTree.hilbertIndex(x: 65535, y: 0) == UInt32.max)
    }
}
