import AreaWatchCore
import Foundation

/// How many cells a grid will report, estimated before any cell is computed (SPEC §8: work is
/// bounded before it starts). One incident near a pole at precision 7 reaches 1.8M cells and at
/// precision 12 any incident reaches billions, so the report refuses a grid above `--max-cells`
/// instead of running out of memory.
///
/// The estimate errs high, never low by more than rounding: the windowed incidents are grouped
/// by geohash cells at least as tall as the radius; the box around each group's incidents,
/// widened by the radius (in longitude by the radius at the latitude nearest the pole, the whole
/// circle when the disc reaches a pole), is counted in grid cells; the sum is capped by the same
/// count for the box around everything. Overlapping groups make it high by a small factor in
/// dense data; the cap keeps that bounded by the extent.
public enum GridCellEstimate {
    /// The estimate for a grid system (SPEC §18: H3 grids are bounded the same way).
    public static func cells(_ index: IncidentIndex, grid: GridSystem, threads: Int = 2) -> Double {
        switch grid {
        case .geohash(let precision):
            return cells(index, precision: precision, threads: threads)
        case .h3(let resolution):
            return estimate(index, finestGroup: Geohash.maxPrecision, threads: threads) { box, radiusDegrees in
                h3Cells(in: box, radiusDegrees: radiusDegrees, resolution: resolution)
            }
        }
    }

    /// Counted on `threads` cores in parts that split no group (every term is a whole number, so
    /// the sum does not depend on the parts).
    public static func cells(_ index: IncidentIndex, precision: Int, threads: Int = 2) -> Double {
        estimate(index, finestGroup: precision, threads: threads) { box, radiusDegrees in
            cells(in: box, radiusDegrees: radiusDegrees, precision: precision)
        }
    }

    /// The grouped estimate: `count` gives the cells around one box of incidents.
    private static func estimate(
        _ index: IncidentIndex, finestGroup: Int, threads: Int,
        count: @escaping @Sendable (GeoBox, Double) -> Double
    ) -> Double {
        let radiusDegrees = index.parameters.radius / (Haversine.earthRadius * Haversine.radiansPerDegree)
        var group = finestGroup
        while group > 1 && GeohashCell.latSpan(group) < radiusDegrees { group -= 1 }
        let shift = UInt64(64 - 5 * group)
        let codes = index.codes
        // Part starts moved forward to the next group's first incident.
        var starts = IncidentIndex.chunks(index.count, threads).map(\.lowerBound)
        for p in starts.indices.dropFirst() {
            starts[p] = max(starts[p], starts[p - 1])
            while starts[p] > 0 && starts[p] < index.count && codes[starts[p]] >> shift == codes[starts[p] - 1] >> shift
            {
                starts[p] += 1
            }
        }
        starts.append(index.count)
        let partStarts = starts
        let parts = Concurrency.map(partStarts.count - 1) { p in
            groups(
                index, in: partStarts[p]..<partStarts[p + 1], shift: shift, radiusDegrees: radiusDegrees,
                count: count)
        }
        let extents = parts.compactMap(\.extent)
        guard var extent = extents.first else { return 0 }
        for box in extents.dropFirst() {
            extent.include(lat: box.minLat, lon: box.minLon)
            extent.include(lat: box.maxLat, lon: box.maxLon)
        }
        let total = parts.reduce(0) { $0 + $1.total }
        return min(total, count(extent, radiusDegrees))
    }

    /// The cells of the groups of windowed incidents in `range` (whole groups), and their extent.
    private static func groups(
        _ index: IncidentIndex, in range: Range<Int>, shift: UInt64, radiusDegrees: Double,
        count: (GeoBox, Double) -> Double
    ) -> (total: Double, extent: GeoBox?) {
        let empty = GeoBox(minLat: 90, minLon: 180, maxLat: -90, maxLon: -180)
        var total = 0.0
        var last: UInt64?
        var box = empty, extent = empty
        for k in range where index.membership[k] != WindowMembership.older.rawValue {
            let prefix = index.codes[k] >> shift
            if prefix != last {
                if last != nil { total += count(box, radiusDegrees) }
                last = prefix
                box = empty
            }
            box.include(lat: index.lat[k], lon: index.lon[k])
            extent.include(lat: index.lat[k], lon: index.lon[k])
        }
        guard last != nil else { return (0, nil) }
        total += count(box, radiusDegrees)
        return (total, extent)
    }

    /// Cells of `precision` whose centre lies in `box` widened by the radius, plus the cells of
    /// the box itself (a cell is reported for an incident inside it too).
    static func cells(in box: GeoBox, radiusDegrees: Double, precision: Int) -> Double {
        let h = GeohashCell.latSpan(precision), w = GeohashCell.lonSpan(precision)
        let columnsAround = Double(UInt64(1) << UInt64(GeohashCell.lonBitCount(precision)))
        let south = max(-90, box.minLat - radiusDegrees), north = min(90, box.maxLat + radiusDegrees)
        let lonSpan: Double
        let poleward = max(abs(south), abs(north))
        if poleward >= 90 {
            lonSpan = 360
        } else {
            let widen = radiusDegrees / cos(poleward * Haversine.radiansPerDegree)
            lonSpan = min(360, box.maxLon - box.minLon + 2 * widen)
        }
        // Centres sit at (i + ½)·h from the south pole.
        let rows = max(0, ((north + 90) / h - 0.5).rounded(.down) - ((south + 90) / h - 0.5).rounded(.up) + 1)
        let columns = min(columnsAround, (lonSpan / w).rounded(.up) + 1)
        let own =
            (((box.maxLat - box.minLat) / h).rounded(.up) + 1)
            * min(columnsAround, ((box.maxLon - box.minLon) / w).rounded(.up) + 1)
        return rows * columns + own
    }
}

extension GridCellEstimate {
    /// H3 cells of a resolution whose centre lies in `box` widened by the radius (as for geohash),
    /// plus those of the box itself: the spherical area over half the resolution's average cell
    /// area, since H3's cells vary in size (pentagons are the smallest) and the estimate errs high.
    static func h3Cells(in box: GeoBox, radiusDegrees: Double, resolution: Int) -> Double {
        let south = max(-90, box.minLat - radiusDegrees), north = min(90, box.maxLat + radiusDegrees)
        let poleward = max(abs(south), abs(north))
        let lonSpan =
            poleward >= 90
            ? 360
            : min(360, box.maxLon - box.minLon + 2 * radiusDegrees / cos(poleward * Haversine.radiansPerDegree))
        func area(_ south: Double, _ north: Double, _ lonSpan: Double) -> Double {
            let r = Haversine.earthRadius, rad = Haversine.radiansPerDegree
            return r * r * lonSpan * rad * abs(sin(north * rad) - sin(south * rad))
        }
        let smallCell = H3.averageArea(resolution: resolution) / 2
        let around = area(south, north, lonSpan), own = area(box.minLat, box.maxLat, box.maxLon - box.minLon)
        return ((around + own) / smallCell).rounded(.up) + 1
    }
}

extension GeoBox {
    mutating func include(lat: Double, lon: Double) {
        minLat = min(minLat, lat)
        maxLat = max(maxLat, lat)
        minLon = min(minLon, lon)
        maxLon = max(maxLon, lon)
    }
}
