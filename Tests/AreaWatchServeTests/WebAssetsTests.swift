import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchServe

/// Where `serve` finds MapLibre GL JS: an option or the environment first, then the folder
/// `make web` fills, then the one `make install` puts beside an installed binary.
@Suite struct WebAssetsTests {
    /// `PREFIX/bin/areawatch` and, when `withMapLibre`, `PREFIX/share/areawatch/maplibre`.
    func prefix(withMapLibre: Bool) throws -> (TempDir, String) {
        let tmp = try TempDir()
        let binary = try tmp.file("prefix/bin/areawatch", "binary")
        if withMapLibre {
            try tmp.file("prefix/share/areawatch/maplibre/maplibre-gl.js", "// js")
            try tmp.file("prefix/share/areawatch/maplibre/maplibre-gl.css", "/* css */")
        }
        return (tmp, binary)
    }

    @Test("an installed binary finds PREFIX/share/areawatch/maplibre, through a link too")
    func installedFolder() throws {
        let (tmp, binary) = try prefix(withMapLibre: true)
        let expected = URL(fileURLWithPath: tmp.sub("prefix/share/areawatch/maplibre")).resolvingSymlinksInPath().path
        #expect(WebAssets.installedFolder(executable: binary) == expected)
        try tmp.folder("elsewhere")
        try FileManager.default.createSymbolicLink(atPath: tmp.sub("elsewhere/areawatch"), withDestinationPath: binary)
        #expect(WebAssets.installedFolder(executable: tmp.sub("elsewhere/areawatch")) == expected)
        let assets = WebAssets(folder: WebAssets.installedFolder(executable: binary))
        #expect(assets.available)
    }

    @Test("no installed folder without maplibre-gl.js; the option and the environment come first")
    func order() throws {
        let (_, bare) = try prefix(withMapLibre: false)
        #expect(WebAssets.installedFolder(executable: bare) == nil)
        let (_, installed) = try prefix(withMapLibre: true)
        #expect(
            WebAssets.locate(option: "/opt/x", environment: ["AREAWATCH_WEB_DIR": "/env"], executable: installed).folder
                == "/opt/x")
        #expect(
            WebAssets.locate(option: nil, environment: ["AREAWATCH_WEB_DIR": "/env"], executable: installed).folder
                == "/env")
    }
}
