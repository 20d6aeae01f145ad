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
    public static func cells(_ index: IncidentIndex, precision: Int) -> Double {
        let radiusDegrees = index.parameters.radius / (Haversine.earthRadius * Haversine.radiansPerDegree)
        var group = precision
        while group > 1 && GeohashCell.latSpan(group) < radiusDegrees { group -= 1 }
        let shift = UInt64(64 - 5 * group)
        let empty = GeoBox(minLat: 90, minLon: 180, maxLat: -90, maxLon: -180)
        var total = 0.0
        var last: UInt64?
        var box = empty, extent = empty
        for k in 0..<index.count where index.membership[k] != WindowMembership.older.rawValue {
            let prefix = index.codes[k] >> shift
            if prefix != last {
                if last != nil { total += cells(in: box, radiusDegrees: radiusDegrees, precision: precision) }
                last = prefix
                box = empty
            }
            box.include(lat: index.lat[k], lon: index.lon[k])
            extent.include(lat: index.lat[k], lon: index.lon[k])
        }
        guard last != nil else { return 0 }
        total += cells(in: box, radiusDegrees: radiusDegrees, precision: precision)
        return min(total, cells(in: extent, radiusDegrees: radiusDegrees, precision: precision))
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
        let own = (((box.maxLat - box.minLat) / h).rounded(.up) + 1) * min(columnsAround, ((box.maxLon - box.minLon) / w).rounded(.up) + 1)
        return rows * columns + own
    }
}

private extension GeoBox {
    mutating func include(lat: Double, lon: Double) {
        minLat = min(minLat, lat)
        maxLat = max(maxLat, lat)
        minLon = min(minLon, lon)
        maxLon = max(maxLon, lon)
    }
}
