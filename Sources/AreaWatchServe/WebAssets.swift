import Foundation
import NIOCore

/// MapLibre GL JS (`maplibre-gl.js`, `maplibre-gl.css`) for the map page, read once from a folder
/// found at run time: `--web-dir`, else `$AREAWATCH_WEB_DIR`, else `.build-web/maplibre` in the
/// working directory (where `make web` puts them). They are not part of the repository.
public struct WebAssets: Sendable {
    public struct Asset: Sendable { public var bytes: ByteBuffer; public var contentType: String }

    public static let fileNames = ["maplibre-gl.js": "text/javascript; charset=utf-8", "maplibre-gl.css": "text/css; charset=utf-8"]
    public static let defaultFolder = ".build-web/maplibre"
    static let missingMessage = "MapLibre GL JS is not installed: run `make web`, or give --web-dir a folder holding maplibre-gl.js and maplibre-gl.css"

    public let folder: String?
    private let assets: [String: Asset]

    public var available: Bool { assets.count == Self.fileNames.count }

    public init(folder: String?) {
        self.folder = folder
        var assets: [String: Asset] = [:]
        if let folder {
            for (name, type) in Self.fileNames {
                if let data = FileManager.default.contents(atPath: folder + "/" + name) {
                    assets[name] = Asset(bytes: ByteBuffer(bytes: data), contentType: type)
                }
            }
        }
        self.assets = assets
    }

    /// The first of `--web-dir`, `$AREAWATCH_WEB_DIR` and the default folder that is given.
    public static func locate(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> WebAssets {
        WebAssets(folder: option ?? environment["AREAWATCH_WEB_DIR"] ?? defaultFolder)
    }

    /// Only the two known names are served (no path is ever built from the request).
    func asset(_ name: String) -> Asset? { assets[name] }
}
