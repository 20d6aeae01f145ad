import Foundation
import NIOCore

/// MapLibre GL JS (`maplibre-gl.js`, `maplibre-gl.css`) for the map page, read once from a folder
/// found at run time: `--web-dir`, else `$AREAWATCH_WEB_DIR`, else `.build-web/maplibre` in the
/// working directory (where `make web` puts them), else `../share/areawatch/maplibre` beside the
/// executable (where `make install` puts them). They are not part of the repository.
public struct WebAssets: Sendable {
    public struct Asset: Sendable {
        public var bytes: ByteBuffer
        public var contentType: String
    }

    public static let fileNames = [
        "maplibre-gl.js": "text/javascript; charset=utf-8", "maplibre-gl.css": "text/css; charset=utf-8"
    ]
    public static let defaultFolder = ".build-web/maplibre"
    static let missingMessage =
        "MapLibre GL JS is not installed: run `make web`, or give --web-dir a folder holding maplibre-gl.js and maplibre-gl.css"

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

    /// The first of `--web-dir` and `$AREAWATCH_WEB_DIR` that is given; else the default folder
    /// when it exists, else the one installed beside the executable (`nil`: none).
    public static func locate(
        option: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: String? = "/proc/self/exe"
    ) -> WebAssets {
        if let chosen = option ?? environment["AREAWATCH_WEB_DIR"] { return WebAssets(folder: chosen) }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: defaultFolder, isDirectory: &isFolder), isFolder.boolValue {
            return WebAssets(folder: defaultFolder)
        }
        guard let executable, let installed = installedFolder(executable: executable) else {
            return WebAssets(folder: defaultFolder)
        }
        return WebAssets(folder: installed)
    }

    /// `PREFIX/share/areawatch/maplibre` for an executable in `PREFIX/bin` (links resolved).
    static func installedFolder(executable: String) -> String? {
        let path = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
        let prefix = path.deletingLastPathComponent().deletingLastPathComponent()
        let folder = prefix.appendingPathComponent("share/areawatch/maplibre").path
        return FileManager.default.fileExists(atPath: folder + "/maplibre-gl.js") ? folder : nil
    }

    /// Only the two known names are served (no path is ever built from the request).
    func asset(_ name: String) -> Asset? { assets[name] }
}
