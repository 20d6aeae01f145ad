import AreaWatchCore
import AreaWatchFormats

/// Encodes the one layer of the grid's vector tiles (SPEC §14, docs/FORMATS.md "grid.pmtiles"):
/// Mapbox Vector Tile 2.1, layer `cells`, one Polygon per cell or merged cell with the properties
/// `geohash, r_current, r_previous, class, change` (`h3` in place of `geohash` for an H3 grid).
///
/// Geometry: a geohash cell is a rectangle in longitude/latitude and so also in Web Mercator. Each
/// feature's rectangle is a piece cut by `VectorTileCut` (projected and rounded on the zoom's
/// global grid, clipped to the tile plus a buffer of `buffer` units), its exterior ring written
/// north-west → north-east → south-east → south-west, which is clockwise on screen and has the
/// positive surveyor's-formula area MVT 2.1 §4.3.4.3 requires of an exterior ring.
///
/// Withheld counts (`--min-cell-count`) have no value in MVT; the property is left out, which a
/// decoder reads as absent, as the JSON tile's `null`.
///
/// One encoder is reused for every tile: its buffers and tables keep their capacity.
struct CellLayerEncoder {
    static let extent: Int32 = 4096
    static let buffer: Int32 = 256
    static let layerName = "cells"

    /// Property keys in the order a feature lists them.
    enum Key: Int, CaseIterable {
        case geohash, rCurrent, rPrevious, safetyClass, change
        var name: String { ["geohash", "r_current", "r_previous", "class", "change"][rawValue] }
    }

    /// The name of the cell's id property: `geohash`, or `h3` for an H3 grid (SPEC §18).
    var cellKey = "geohash"
    private var features: [UInt8] = []
    private var feature: [UInt8] = []
    private var tags: [UInt8] = []
    private var geometry: [UInt8] = []
    private var layer: [UInt8] = []
    private var values: [UInt8] = []
    private var valueCount = 0
    /// Values already in the tile's `values`, by what they hold. The tagged strings (class,
    /// change) are a handful per tile, found by a scan; counts below `smallUInts` by their slot
    /// (-1: none yet), larger ones in a dictionary. Hashing every tag's value into dictionaries
    /// was a third of encoding the 1M job's tiles, on the thread that finishes the report last.
    private var stringValues: [(String, Int)] = []
    private var smallUIntValues = [Int32](repeating: -1, count: smallUInts)
    private var smallUIntsUsed: [Int] = []
    private var uintValues: [Int: Int] = [:]
    private static let smallUInts = 1 << 14

    init() {}

    /// The encoded `Tile` message holding the `cells` layer of `pieces`, one feature each.
    mutating func encode(pieces: [VectorTileCut.Piece], disclosure: Disclosure) -> [UInt8] {
        features.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        stringValues.removeAll(keepingCapacity: true)
        for v in smallUIntsUsed { smallUIntValues[v] = -1 }
        smallUIntsUsed.removeAll(keepingCapacity: true)
        uintValues.removeAll(keepingCapacity: true)
        valueCount = 0

        for piece in pieces {
            let cell = piece.entry
            tags.removeAll(keepingCapacity: true)
            tag(.geohash, unique: cell.key)
            if let v = disclosure.show(cell.rCurrent) { tag(.rCurrent, uint: v) }
            if let v = disclosure.show(cell.rPrevious) { tag(.rPrevious, uint: v) }
            tag(.safetyClass, string: cell.safetyClass.rawValue)
            tag(.change, string: cell.change)
            geometry.removeAll(keepingCapacity: true)
            if piece.polygons.isEmpty {
                MVT.appendRectangle(piece.rectangle, to: &geometry)
            } else {
                MVT.appendPolygons(piece.polygons, to: &geometry)
            }

            feature.removeAll(keepingCapacity: true)
            Protobuf.appendBytesField(2, tags, to: &feature) // tags, packed uint32
            Protobuf.appendVarintField(3, 3, to: &feature) // type = POLYGON
            Protobuf.appendBytesField(4, geometry, to: &feature) // geometry, packed uint32
            Protobuf.appendBytesField(2, feature, to: &features) // Layer.features
        }

        // Layer fields in field-number order: name, features, keys, values, extent, version.
        layer.removeAll(keepingCapacity: true)
        Protobuf.appendStringField(1, Self.layerName, to: &layer)
        layer.append(contentsOf: features)
        // The five keys always, in `Key` order: a tag's key index is the key's raw value.
        for key in Key.allCases { Protobuf.appendStringField(3, key == .geohash ? cellKey : key.name, to: &layer) }
        layer.append(contentsOf: values)
        Protobuf.appendVarintField(5, UInt64(Self.extent), to: &layer)
        Protobuf.appendVarintField(15, 2, to: &layer)
        var tileBytes: [UInt8] = []
        tileBytes.reserveCapacity(layer.count + 4)
        Protobuf.appendBytesField(3, layer, to: &tileBytes) // Tile.layers
        return tileBytes
    }

    private mutating func tag(_ k: Key, string: String) {
        let index: Int
        if let known = stringValues.first(where: { $0.0 == string }) {
            index = known.1
        } else {
            index = appendString(string)
            stringValues.append((string, index))
        }
        Protobuf.appendVarint(UInt64(k.rawValue), to: &tags)
        Protobuf.appendVarint(UInt64(index), to: &tags)
    }

    /// A value no other feature of the tile has: a tile lists each geohash once (`WidgetTiles.build`
    /// merges the cells of one parent into one entry), so looking it up would find nothing.
    private mutating func tag(_ k: Key, unique string: String) {
        let index = appendString(string)
        Protobuf.appendVarint(UInt64(k.rawValue), to: &tags)
        Protobuf.appendVarint(UInt64(index), to: &tags)
    }

    /// Appends a Value message with string_value (field 1) to Layer.values; returns its index.
    private mutating func appendString(_ string: String) -> Int {
        Protobuf.appendKey(field: 4, wireType: Protobuf.lengthType, to: &values)
        let length = string.utf8.count
        Protobuf.appendVarint(UInt64(1 + Protobuf.varintSize(UInt64(length)) + length), to: &values)
        Protobuf.appendStringField(1, string, to: &values)
        valueCount += 1
        return valueCount - 1
    }

    private mutating func tag(_ k: Key, uint: Int) {
        let index: Int
        let small = uint >= 0 && uint < Self.smallUInts
        if small && smallUIntValues[uint] >= 0 {
            index = Int(smallUIntValues[uint])
        } else if !small, let known = uintValues[uint] {
            index = known
        } else {
            index = valueCount
            valueCount += 1
            if small {
                smallUIntValues[uint] = Int32(index)
                smallUIntsUsed.append(uint)
            } else {
                uintValues[uint] = index
            }
            // Layer.values: a Value message with uint_value (field 5).
            Protobuf.appendKey(field: 4, wireType: Protobuf.lengthType, to: &values)
            Protobuf.appendVarint(UInt64(1 + Protobuf.varintSize(UInt64(uint))), to: &values)
            Protobuf.appendVarintField(5, UInt64(uint), to: &values)
        }
        Protobuf.appendVarint(UInt64(k.rawValue), to: &tags)
        Protobuf.appendVarint(UInt64(index), to: &tags)
    }
}
