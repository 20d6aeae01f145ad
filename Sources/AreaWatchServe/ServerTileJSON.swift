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
        var layers: JSONValue = .array([
            .object([
                ("id", .string("cells")),
                (
                    "fields",
                    .object([
                        ("geohash", .string("String")), ("r_current", .string("Number")),
                        ("r_previous", .string("Number")), ("class", .string("String")), ("change", .string("String"))
                    ])
                )
            ])
        ])
        if let archive = s.archive {
            minZoom = .int(Int(archive.header.minZoom))
            maxZoom = .int(Int(archive.header.maxZoom))
            if let meta = (try? JSONSerialization.jsonObject(with: Data(archive.metadata))) as? [String: Any],
                let declared = meta["vector_layers"].flatMap({ JSONValue(foundation: $0) })
            {
                layers = declared
            }
        }
        var members: [(String, JSONValue)] = [
            ("tilejson", .string("3.0.0")),
            ("tiles", .array([.string(base + "/tiles/{z}/{x}/{y}.mvt")])),
            ("vector_layers", layers)
        ]
        for key in ["name", "description", "version", "attribution", "scheme"] {
            if let v = t[key] { members.append((key, v)) }
        }
        members += [("minzoom", minZoom), ("maxzoom", maxZoom)]
        for key in ["bounds", "center", "areawatch"] {
            if let v = t[key] { members.append((key, v)) }
        }
        members.append(("lookup", .string(base + "/v1/safety?lat={lat}&lon={lon}")))
        return .object(members)
    }
}
