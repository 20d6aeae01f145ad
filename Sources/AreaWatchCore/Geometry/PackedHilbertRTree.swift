import Glibc

/// A static R-tree over points, packed in Hilbert order (the design of mourner/flatbush).
///
/// Built once from all points; everything lives in flat arrays. Leaves are the points sorted by
/// the Hilbert value of their position, level 1 groups `nodeSize` consecutive leaves, level 2
/// groups `nodeSize` level-1 nodes, and so on up to one root. Because packing is exact, node `j`
/// of level `L` covers exactly the leaf positions `j·s^L ..< (j+1)·s^L`: a node accepted whole
/// by a query is a contiguous leaf range, which lets callers aggregate with prefix sums instead of
/// visiting its points (see `forEachWithin`).
public struct PackedHilbertRTree: Sendable {
    public let nodeSize: Int
    /// Point latitudes in leaf (Hilbert) order.
    public let leafLat: [Double]
    /// Point longitudes in leaf (Hilbert) order.
    public let leafLon: [Double]
    /// Leaf position → index of the point in the arrays the tree was built from.
    public let leafIndex: [UInt32]
    /// Boxes of the internal nodes, level 1 first, the root last.
    private let boxes: [GeoBox]
    /// cos of each leaf's latitude and of each node box's min and max latitude, as Float: inputs
    /// of the cheap local bounds (`LocalBounds`), whose margins absorb Float's error.
    private let leafCos: [Float]
    private let boxCosMinLat: [Float]
    private let boxCosMaxLat: [Float]
    /// Index in `boxes` of the first node of level L is `levelStart[L - 1]`.
    private let levelStart: [Int]
    private let levelCount: [Int]

    public var count: Int { leafLat.count }

    public init(latitudes: [Double], longitudes: [Double], nodeSize: Int = 16) {
        precondition(latitudes.count == longitudes.count, "one latitude per longitude")
        precondition(nodeSize >= 2, "nodeSize must be at least 2")
        precondition(latitudes.count < Int(UInt32.max), "at most 2^32 - 1 points")
        self.nodeSize = nodeSize
        let n = latitudes.count
        guard n > 0 else {
            leafLat = []
            leafLon = []
            leafIndex = []
            boxes = []
            levelStart = []
            levelCount = []
            leafCos = []
            boxCosMinLat = []
            boxCosMaxLat = []
            return
        }

        let order = PackedHilbertRTree.hilbertOrder(latitudes: latitudes, longitudes: longitudes)

        var lat = [Double](repeating: 0, count: n)
        var lon = [Double](repeating: 0, count: n)
        var index = [UInt32](repeating: 0, count: n)
        for p in 0..<n {
            let i = Int(order[p])
            lat[p] = latitudes[i]
            lon[p] = longitudes[i]
            index[p] = UInt32(i)
        }

        var boxes: [GeoBox] = []
        boxes.reserveCapacity(n / (nodeSize - 1) + 2)
        var starts: [Int] = [], counts: [Int] = []
        // Level 1 from the leaves.
        var childCount = n
        starts.append(0)
        for first in stride(from: 0, to: n, by: nodeSize) {
            var box = GeoBox(minLat: lat[first], minLon: lon[first], maxLat: lat[first], maxLon: lon[first])
            for p in first..<min(first + nodeSize, n) {
                box.minLat = min(box.minLat, lat[p])
                box.maxLat = max(box.maxLat, lat[p])
                box.minLon = min(box.minLon, lon[p])
                box.maxLon = max(box.maxLon, lon[p])
            }
            boxes.append(box)
        }
        counts.append(boxes.count)
        childCount = boxes.count
        // Upper levels until a single root.
        while childCount > 1 {
            let childStart = starts.last!
            starts.append(boxes.count)
            for first in stride(from: 0, to: childCount, by: nodeSize) {
                var box = boxes[childStart + first]
                for c in first..<min(first + nodeSize, childCount) {
                    let b = boxes[childStart + c]
                    box.minLat = min(box.minLat, b.minLat)
                    box.maxLat = max(box.maxLat, b.maxLat)
                    box.minLon = min(box.minLon, b.minLon)
                    box.maxLon = max(box.maxLon, b.maxLon)
                }
                boxes.append(box)
            }
            counts.append(boxes.count - starts.last!)
            childCount = counts.last!
        }
        leafLat = lat
        leafLon = lon
        leafIndex = index
        self.boxes = boxes
        levelStart = starts
        levelCount = counts
        let rad = Haversine.radiansPerDegree
        leafCos = lat.map { Float(cos($0 * rad)) }
        boxCosMinLat = boxes.map { Float(cos($0.minLat * rad)) }
        boxCosMaxLat = boxes.map { Float(cos($0.maxLat * rad)) }
    }

    /// Bytes held by the tree's arrays.
    public var memoryBytes: Int {
        count * (8 + 8 + 4 + 4) + boxes.count * (MemoryLayout<GeoBox>.stride + 8)
    }

    /// Leaf positions of the points inside a box (edges included), in leaf order.
    public func positions(in query: GeoBox) -> [Int] {
        var found: [Int] = []
        guard count > 0 else { return found }
        var stack: [(level: Int, node: Int)] = [(levelStart.count, 0)]
        while let (level, node) = stack.popLast() {
            let box = boxes[levelStart[level - 1] + node]
            guard box.maxLat >= query.minLat, box.minLat <= query.maxLat,
                box.maxLon >= query.minLon, box.minLon <= query.maxLon
            else { continue }
            if level == 1 {
                for p in (node * nodeSize)..<min((node + 1) * nodeSize, count)
                where query.contains(lat: leafLat[p], lon: leafLon[p]) {
                    found.append(p)
                }
            } else {
                for c in (node * nodeSize)..<min((node + 1) * nodeSize, levelCount[level - 2]) {
                    stack.append((level - 1, c))
                }
            }
        }
        return found.sorted()
    }

    /// Visits every point within the radius of (lat, lon): whole leaf ranges certainly inside go
    /// to `range`, single points tested exactly go to `point`. The union is exactly the set of
    /// leaf positions `p` with `test.contains(lat, lon, leafLat[p], leafLon[p])`.
    ///
    /// Whole-node decisions keep a margin on the haversine term of 1e-9 relative (≈ 0.5 µm at
    /// 1 km) plus 1e-15 absolute, far above rounding error, so only points tested one by one
    /// decide close calls. The absolute part matters for small terms: the rounded radian
    /// arguments put an absolute error of ~1e-16·√a into `a` (cos near the poles, sin near
    /// ±180° of longitude), which for radii under a few metres exceeds the relative margin.
    public func forEachWithin(
        lat: Double, lon: Double, test: RadiusTest,
        range: (Range<Int>) -> Void, point: (Int) -> Void
    ) {
        guard count > 0, test.threshold >= 0 else { return }
        let cosLat = cos(lat * Haversine.radiansPerDegree)
        let pruneAbove = test.threshold * (1 + 1e-9) + 1e-15
        let acceptBelow = test.threshold * (1 - 1e-9) - 1e-15
        var stack: [(level: Int, node: Int)] = []
        stack.reserveCapacity(64)

        let local = LocalBounds(lat: lat, lon: lon, cosLat: cosLat, radius: test.radius)

        func consider(level: Int, node: Int) {
            let k = levelStart[level - 1] + node
            let box = boxes[k]
            switch local.classify(box, cosMinLat: boxCosMinLat[k], cosMaxLat: boxCosMaxLat[k]) {
            case .outside:
                return
            case .inside:
                let span = leafSpan(level: level)
                range((node * span)..<min((node + 1) * span, count))
                return
            case .straddles:
                stack.append((level, node))
                return
            case .unknown:
                break
            }
            if SphericalBounds.minHalfChord(lat: lat, lon: lon, cosLat: cosLat, box: box) > pruneAbove { return }
            if let aMax = SphericalBounds.maxHalfChord(lat: lat, lon: lon, cosLat: cosLat, box: box),
                aMax < acceptBelow
            {
                let span = leafSpan(level: level)
                range((node * span)..<min((node + 1) * span, count))
                return
            }
            stack.append((level, node))
        }

        consider(level: levelStart.count, node: 0)
        while let (level, node) = stack.popLast() {
            if level == 1 {
                for p in (node * nodeSize)..<min((node + 1) * nodeSize, count) {
                    let inside: Bool
                    switch local.classify(lat: leafLat[p], lon: leafLon[p], cosLat: leafCos[p]) {
                    case .inside: inside = true
                    case .outside: inside = false
                    default: inside = test.contains(lat1: lat, lon1: lon, lat2: leafLat[p], lon2: leafLon[p])
                    }
                    if inside { point(p) }
                }
            } else {
                for c in (node * nodeSize)..<min((node + 1) * nodeSize, levelCount[level - 2]) {
                    consider(level: level - 1, node: c)
                }
            }
        }
    }

    /// Leaf positions within the radius, in leaf order.
    public func positionsWithin(lat: Double, lon: Double, radius: Double) -> [Int] {
        var found: [Int] = []
        forEachWithin(
            lat: lat, lon: lon, test: RadiusTest(radius: radius),
            range: { found.append(contentsOf: $0) }, point: { found.append($0) })
        return found.sorted()
    }

    /// Number of leaves under one node of a level.
    private func leafSpan(level: Int) -> Int {
        var span = 1
        for _ in 0..<level { span *= nodeSize }
        return span
    }

    /// Indices of the points in Hilbert order on a 2^16 grid over their extent, ties broken by
    /// index: the leaf order of the tree, and a good order for packing any R-tree.
    public static func hilbertOrder(latitudes: [Double], longitudes: [Double]) -> [UInt32] {
        let n = latitudes.count
        guard n > 0 else { return [] }
        var minLat = Double.infinity, minLon = Double.infinity
        var maxLat = -Double.infinity, maxLon = -Double.infinity
        for i in 0..<n {
            minLat = min(minLat, latitudes[i])
            maxLat = max(maxLat, latitudes[i])
            minLon = min(minLon, longitudes[i])
            maxLon = max(maxLon, longitudes[i])
        }
        let scaleX = maxLon > minLon ? 65535 / (maxLon - minLon) : 0
        let scaleY = maxLat > minLat ? 65535 / (maxLat - minLat) : 0
        var keys = [UInt64](repeating: 0, count: n)
        var order = [UInt32](repeating: 0, count: n)
        for i in 0..<n {
            let x = UInt32(((longitudes[i] - minLon) * scaleX).rounded(.down))
            let y = UInt32(((latitudes[i] - minLat) * scaleY).rounded(.down))
            keys[i] = UInt64(hilbertIndex(x: x, y: y))
            order[i] = UInt32(i)
        }
        RadixSort.sort(keys: &keys, values: &order)
        return order
    }

    /// Position of (x, y) on the Hilbert curve filling a 2^16 × 2^16 grid.
    public static func hilbertIndex(x: UInt32, y: UInt32) -> UInt32 {
        var x = x, y = y, d: UInt32 = 0
        var s: UInt32 = 1 << 15
        while s > 0 {
            let rx: UInt32 = (x & s) > 0 ? 1 : 0
            let ry: UInt32 = (y & s) > 0 ? 1 : 0
            d += s * s * ((3 * rx) ^ ry)
            // Rotate the quadrant so the curve stays continuous.
            if ry == 0 {
                if rx == 1 {
                    x = s &- 1 &- x
                    y = s &- 1 &- y
                }
                swap(&x, &y)
            }
            s >>= 1
        }
        return d
    }
}
