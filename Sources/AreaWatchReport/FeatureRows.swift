import AreaWatchFormats
import AreaWatchStore

/// A table that takes features row by row: the attributes in column order, then the geometry,
/// which ends the row. GeoParquet's table and a GeoPackage layer are both one, so each report
/// table is turned into rows once (`GridParquet.rows`, …) and both formats hold the same values.
protocol FeatureRows: AnyObject {
    func add(_ v: Int?)
    func add(_ v: Double?)
    func add(_ v: String?)
    func add(utf8 v: [UInt8])
    func endRow(rectangle minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double) throws
    func endRow(polygons: [[WKB.Ring]]) throws
}

extension GeoParquetTable: FeatureRows {}

/// A GeoPackage layer as `FeatureRows`: geometries as WKB after the GeoPackage header.
final class GeoPackageRows: FeatureRows {
    let layer: GeoPackageLayer

    init(_ layer: GeoPackageLayer) { self.layer = layer }

    func add(_ v: Int?) { layer.add(v) }
    func add(_ v: Double?) { layer.add(v) }
    func add(_ v: String?) { layer.add(v) }
    func add(utf8 v: [UInt8]) { layer.add(utf8: v) }

    func endRow(rectangle minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double) throws {
        let envelope = GeoPackageEnvelope(minX: minX, maxX: maxX, minY: minY, maxY: maxY)
        try layer.endRow(envelope: envelope) {
            WKB.appendRectangle(minX: minX, minY: minY, maxX: maxX, maxY: maxY, to: &$0)
        }
    }

    /// A Polygon when the layer is declared POLYGON, else a MultiPolygon (of one member for a
    /// single polygon: a layer holds one geometry type); no member is an empty MultiPolygon.
    func endRow(polygons: [[WKB.Ring]]) throws {
        let envelope = WKB.bounds(polygons).map {
            GeoPackageEnvelope(minX: $0.minX, maxX: $0.maxX, minY: $0.minY, maxY: $0.maxY)
        }
        let single = layer.geometry == .polygon && polygons.count == 1
        try layer.endRow(envelope: envelope) { out in
            if single { WKB.appendPolygon(polygons[0], to: &out) } else { WKB.appendMultiPolygon(polygons, to: &out) }
        }
    }

    func endRow(point x: Double, _ y: Double) throws {
        try layer.endRow(envelope: GeoPackageEnvelope(minX: x, maxX: x, minY: y, maxY: y)) {
            WKB.appendPoint(x: x, y: y, to: &$0)
        }
    }
}
