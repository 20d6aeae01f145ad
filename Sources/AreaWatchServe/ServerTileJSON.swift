import AreaWatchCore
import AreaWatchFormats
import AreaWatchReport
import Foundation

/// `/tilejson.json`: TileJSON 3.0.0 for the server's vector tiles (`/tiles/{z}/{x}/{y}.mvt`), with
/// the report's name, attribution, bounds and `areawatch` parameters and the archive's layers.
enum ServerTileJSON {
    static func build(_ s: ReportSnapshot, base: String) -> JSONValue {
        let t = s.tileJSON
        var minZoom = t["minzoom"] ?? .int(s.minZoom), maxZoom = t["maxzoom"] ?? .int(s.meta?.maxZoom ?? 14)
        var layers = t["vector_layers"] ?? WidgetTiles.vectorLayers(zooms: s.minZoom...(s.meta?.maxZoom ?? 14))
        // The archive's metadata describes the same tile set: used where the folder has no JSON tiles.
        var metadata: [String: JSONValue] = [:]
        if let archive = s.archive {
            minZoom = .int(Int(archive.header.minZoom))
            maxZoom = .int(Int(archive.header.maxZoom))
            if let meta = (try? JSONSerialization.jsonObject(with: Data(archive.metadata))) as? [String: Any] {
                metadata = meta.compactMapValues { JSONValue(foundation: $0) }
                if let declared = metadata["vector_layers"] { layers = declared }
            }
        }
        var members: [(String, JSONValue)] = [
            ("tilejson", .string("3.0.0")),
            ("tiles", .array([.string(base + "/tiles/{z}/{x}/{y}.mvt")])),
            ("vector_layers", layers)
        ]
        for key in ["name", "description", "version", "attribution", "scheme"] {
            if let v = t[key] ?? metadata[key] { members.append((key, v)) }
        }
        members += [("minzoom", minZoom), ("maxzoom", maxZoom)]
        for key in ["bounds", "center", "areawatch"] {
            if let v = t[key] { members.append((key, v)) }
        }
        members.append(("lookup", .string(base + "/v1/safety?lat={lat}&lon={lon}")))
        return .object(members)
    }
}
