internal import CH3

/// One H3 cell (SPEC §18): a 64-bit index of Uber's H3 library v4 (vendored as CH3), which
/// decides every cell, centre and boundary: nothing of H3 is reimplemented here.
///
/// Coordinates cross into H3 through H3's own `degsToRads`/`radsToDegs`, as h3-py does, so a
/// cell, centre or vertex equals h3-py's bit for bit (the golden tests check it).
public struct H3Cell: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The index; ascending index is the order of H3 cells everywhere in areawatch.
    public let index: UInt64

    /// The cell of a valid H3 cell index; nil for any other number (an edge, a vertex, garbage).
    public init?(index: UInt64) {
        guard isValidCell(index) != 0 else { return nil }
        self.index = index
    }

    /// An index known to be a valid cell: one H3 gave, or that was checked once already (the
    /// grid's hot loops take their cells' parents without validating each index again).
    public init(validIndex: UInt64) {
        self.index = validIndex
    }

    /// Parses the 15-character hexadecimal text of a cell (either case); nil for anything else.
    public init?(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard bytes.count == H3.textLength else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            guard let digit = H3.hexValue(byte) else { return nil }
            value = value << 4 | UInt64(digit)
        }
        self.init(index: value)
    }

    public var resolution: Int { Int(getResolution(index)) }
    public var isPentagon: Bool { CH3.isPentagon(index) != 0 }

    /// The cell's centre (H3's cellToLatLng), in degrees.
    public var centre: (lat: Double, lon: Double) {
        var point = LatLng()
        let error = cellToLatLng(index, &point)
        precondition(error == 0, "cellToLatLng failed on a valid cell")
        return (radsToDegs(point.lat), radsToDegs(point.lng))
    }

    /// The cell's boundary as H3's cellToBoundary gives it, in degrees: counter-clockwise, not
    /// closed (the first vertex is not repeated), 6 vertices for a hexagon, 5 for a pentagon, and
    /// up to 10 where the cell crosses an edge of H3's icosahedron.
    public var boundary: [(lat: Double, lon: Double)] {
        var ring = CellBoundary()
        let error = cellToBoundary(index, &ring)
        precondition(error == 0, "cellToBoundary failed on a valid cell")
        return withUnsafeBytes(of: ring.verts) { raw in
            let verts = raw.bindMemory(to: LatLng.self)
            return (0..<Int(ring.numVerts)).map { (radsToDegs(verts[$0].lat), radsToDegs(verts[$0].lng)) }
        }
    }

    /// The box of the cell's boundary vertices (the polygon the outputs draw, vertex to vertex).
    /// A box cannot cross the antimeridian: a cell across it (its vertices' longitudes more than
    /// 180° apart) gets every longitude, as the union of cells on both sides of it would; a cell
    /// holding a pole gets every longitude and reaches the pole.
    public var bounds: GeoBox {
        let ring = boundary
        var box = GeoBox(minLat: 90, minLon: 180, maxLat: -90, maxLon: -180)
        for v in ring {
            box.minLat = min(box.minLat, v.lat)
            box.maxLat = max(box.maxLat, v.lat)
            box.minLon = min(box.minLon, v.lon)
            box.maxLon = max(box.maxLon, v.lon)
        }
        let r = resolution
        let north = self == H3.cell(lat: 90, lon: 0, resolution: r)
        let south = self == H3.cell(lat: -90, lon: 0, resolution: r)
        if north { box.maxLat = 90 }
        if south { box.minLat = -90 }
        if north || south || box.maxLon - box.minLon > 180 {
            box.minLon = -180
            box.maxLon = 180
        }
        return box
    }

    /// The 15 lowercase hexadecimal digits of the index (H3's h3ToString; a cell's index always
    /// has exactly 15 significant digits, as its mode bits are 0b0001).
    public var text: String {
        String(unsafeUninitializedCapacity: H3.textLength) { buffer in
            for i in 0..<H3.textLength {
                buffer[i] = H3.hexDigits[Int(index >> UInt64(4 * (H3.textLength - 1 - i)) & 0xF)]
            }
            return H3.textLength
        }
    }

    /// Appends the cell's text to `out` without a String in between (the writers visit every cell).
    @inline(__always)
    public func appendCharacters(to out: inout [UInt8]) {
        for i in 0..<H3.textLength {
            out.append(H3.hexDigits[Int(index >> UInt64(4 * (H3.textLength - 1 - i)) & 0xF)])
        }
    }

    public var description: String { text }

    /// The cell of resolution `r` (at most this cell's) that contains this one (H3's
    /// cellToParent): its children are one run of consecutive cells in ascending index order.
    public func parent(resolution r: Int) -> H3Cell {
        var parent: H3Index = 0
        let error = cellToParent(index, Int32(r), &parent)
        precondition(error == 0, "cellToParent failed on a valid cell and resolution")
        return H3Cell(validIndex: parent)
    }

    /// Every cell within `k` grid steps (H3's gridDisk), itself included, in ascending order.
    public func disk(_ k: Int) -> [H3Cell] {
        H3.diskWithDistances(self, k).map(\.cell).sorted()
    }

    /// The cells that share an edge with this one: 6, or 5 for a pentagon (gridDisk 1 without the
    /// cell itself), in ascending order.
    public var neighbours: [H3Cell] { disk(1).filter { $0 != self } }

    public static func < (a: H3Cell, b: H3Cell) -> Bool { a.index < b.index }
}

/// H3 access for the grids of SPEC §18.
public enum H3 {
    public static let maxResolution = 15
    public static let textLength = 15
    static let hexDigits = Array("0123456789abcdef".utf8)

    /// The cell holding a location at a resolution (H3's latLngToCell). Latitude and longitude
    /// must be finite (any finite value is accepted, as by H3); the resolution 0…15.
    public static func cell(lat: Double, lon: Double, resolution: Int) -> H3Cell {
        precondition((0...maxResolution).contains(resolution), "H3 resolution must be 0…15")
        var point = LatLng(lat: degsToRads(lat), lng: degsToRads(lon))
        var index: H3Index = 0
        let error = latLngToCell(&point, Int32(resolution), &index)
        precondition(error == 0, "latLngToCell failed: the location is not finite")
        return H3Cell(validIndex: index)
    }

    /// The twelve pentagons of a resolution, in ascending order.
    public static func pentagons(resolution: Int) -> [H3Cell] {
        precondition((0...maxResolution).contains(resolution), "H3 resolution must be 0…15")
        var out = [H3Index](repeating: 0, count: Int(pentagonCount()))
        let error = out.withUnsafeMutableBufferPointer { getPentagons(Int32(resolution), $0.baseAddress) }
        precondition(error == 0, "getPentagons failed")
        return out.map(H3Cell.init(validIndex:)).sorted()
    }

    /// The average hexagon edge length of a resolution, in metres (H3's table).
    public static func averageEdgeLength(resolution: Int) -> Double {
        var length = 0.0
        let error = getHexagonEdgeLengthAvgM(Int32(resolution), &length)
        precondition(error == 0, "H3 resolution must be 0…15")
        return length
    }

    /// The average hexagon area of a resolution, in square metres (H3's table).
    public static func averageArea(resolution: Int) -> Double {
        var area = 0.0
        let error = getHexagonAreaAvgM2(Int32(resolution), &area)
        precondition(error == 0, "H3 resolution must be 0…15")
        return area
    }

    /// Every cell of a resolution (H3's res-0 cells and their children); for tests of small
    /// resolutions, where it is the exhaustive set to search.
    public static func allCells(resolution: Int) -> [H3Cell] {
        var roots = [H3Index](repeating: 0, count: Int(res0CellCount()))
        let error = roots.withUnsafeMutableBufferPointer { getRes0Cells($0.baseAddress) }
        precondition(error == 0, "getRes0Cells failed")
        var cells: [H3Cell] = []
        for root in roots {
            var size: Int64 = 0
            precondition(cellToChildrenSize(root, Int32(resolution), &size) == 0, "cellToChildrenSize failed")
            var children = [H3Index](repeating: 0, count: Int(size))
            let failed = children.withUnsafeMutableBufferPointer {
                cellToChildren(root, Int32(resolution), $0.baseAddress)
            }
            precondition(failed == 0, "cellToChildren failed")
            cells += children.filter { $0 != 0 }.map(H3Cell.init(validIndex:))
        }
        return cells.sorted()
    }

    /// Every cell whose centre lies inside a latitude/longitude box (the box must not cross the
    /// antimeridian): H3's hierarchical polygonToCellsExperimental in centre-containment mode,
    /// which walks down from the res-0 cells and shares no code with gridDisk; the tests search a
    /// region exhaustively with it.
    static func cells(withCentreInside box: GeoBox, resolution: Int) -> [H3Cell] {
        let corners = [
            (box.minLat, box.minLon), (box.minLat, box.maxLon), (box.maxLat, box.maxLon),
            (box.maxLat, box.minLon)
        ]
        var verts = corners.map { LatLng(lat: degsToRads($0.0), lng: degsToRads($0.1)) }
        let centreContainment: UInt32 = 0 // CONTAINMENT_CENTER
        return verts.withUnsafeMutableBufferPointer { v in
            var polygon = CH3.GeoPolygon(geoloop: GeoLoop(numVerts: 4, verts: v.baseAddress), numHoles: 0, holes: nil)
            var size: Int64 = 0
            let sized = maxPolygonToCellsSizeExperimental(&polygon, Int32(resolution), centreContainment, &size)
            precondition(sized == 0, "maxPolygonToCellsSizeExperimental failed")
            var out = [H3Index](repeating: 0, count: Int(size))
            let error = out.withUnsafeMutableBufferPointer {
                polygonToCellsExperimental(&polygon, Int32(resolution), centreContainment, size, $0.baseAddress)
            }
            precondition(error == 0, "polygonToCellsExperimental failed")
            return out.filter { $0 != 0 }.map(H3Cell.init(validIndex:)).sorted()
        }
    }

    /// gridDisk with each cell's grid distance from `origin` (H3's gridDiskDistances; the
    /// pentagon-safe fallback is H3's own).
    static func diskWithDistances(_ origin: H3Cell, _ k: Int) -> [(cell: H3Cell, distance: Int)] {
        precondition(k >= 0, "a grid disk needs k ≥ 0")
        var size: Int64 = 0
        precondition(maxGridDiskSize(Int32(k), &size) == 0, "maxGridDiskSize failed")
        var cells = [H3Index](repeating: 0, count: Int(size))
        var distances = [Int32](repeating: 0, count: Int(size))
        let error = cells.withUnsafeMutableBufferPointer { c in
            distances.withUnsafeMutableBufferPointer { d in
                gridDiskDistances(origin.index, Int32(k), c.baseAddress, d.baseAddress)
            }
        }
        precondition(error == 0, "gridDiskDistances failed")
        // Slots H3 leaves empty (0) where the disk holds fewer cells than its maximum.
        return zip(cells, distances).filter { $0.0 != 0 }.map { (H3Cell(validIndex: $0.0), Int($0.1)) }
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
