import AreaWatchTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// TileJSON behind a proxy (SPEC §19) through the built binary: `report --public-url` makes the
/// folder's tile URLs absolute, `serve --public-url` and `--trust-proxy` set the served ones, the
/// version follows the tiles, and every TileJSON validates against TileJSON 3.0.0's schema.
@Suite("TileJSON behind a proxy", .timeLimit(.minutes(60)))
struct TileJSONCLITests {
    static func report(_ tmp: TempDir, _ name: String, asOf: String = Datasets.asOf, _ extra: [String] = []) throws
        -> String
    {
        let out = tmp.sub(name)
        try areawatchOK(["report", "--input"] + Datasets.police + ["--out", out, "--as-of", asOf, "--quiet"] + extra)
        return out
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Problems `jsonschema` finds in `documents` (an empty list when valid); nil without it.
    static func schemaProblems(_ documents: [String: String]) throws -> [String]? {
        guard let python = findTool("python3"),
            try runTool(python, ["-c", "import jsonschema"]).status == 0
        else { return nil }
        let tmp = try TempDir()
        var paths: [String] = []
        for (name, text) in documents.sorted(by: { $0.key < $1.key }) { paths.append(try tmp.file(name, text)) }
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            for path in sys.argv[2:]:
                for e in jsonschema.Draft7Validator(schema).iter_errors(json.load(open(path))):
                    print(path.rsplit('/', 1)[-1] + ': ' + '/'.join(map(str, e.absolute_path)) + ': ' + e.message)
            """
        let r = try runTool(python, ["-c", script, try fixturePath("tilejson-3.0.0.schema.json")] + paths)
        try #require(r.status == 0, "\(r)")
        return r.stdoutLines.filter { !$0.isEmpty }
    }

    @Test(
        "report --public-url: absolute tile URLs under it, vector_layers, a version that follows the tiles; schema-valid"
    )
    func folderTileJSON() throws {
        let tmp = try TempDir()
        let relative = try readText(try Self.report(tmp, "relative") + "/tiles/tilejson.json")
        let published = try readText(
            try Self.report(tmp, "published", ["--public-url", "https://Tiles.example.org/safety/"])
                + "/tiles/tilejson.json")
        let again = try readText(
            try Self.report(tmp, "again", ["--public-url", "https://tiles.example.org/safety"])
                + "/tiles/tilejson.json")
        let earlier = try readText(
            try Self.report(tmp, "earlier", asOf: "2018-06-30T23:59:59Z") + "/tiles/tilejson.json")
        let r = try Self.object(relative), p = try Self.object(published)
        #expect(r["tiles"] as? [String] == ["{z}/{x}/{y}.json"])
        #expect(p["tiles"] as? [String] == ["https://tiles.example.org/safety/tiles/{z}/{x}/{y}.json"])
        #expect(published == again, "the same report and URL give the same bytes")
        let layers = try #require(p["vector_layers"] as? [[String: Any]])
        #expect(layers.count == 1 && layers[0]["id"] as? String == "cells")
        #expect(
            (p["areawatch"] as? [String: Any])?["cell_format"] as? String
                == "cells: {geohash: [r_current, r_previous, class, change]}")
        let version = try #require(r["version"] as? String)
        #expect(version == p["version"] as? String, "the version is the tiles', not the URL's")
        #expect(
            version != (try Self.object(earlier))["version"] as? String, "another as-of, other tiles, another version")
        guard let problems = try Self.schemaProblems(["relative.json": relative, "published.json": published]) else {
            print("skipped the schema check: python3 with jsonschema is not installed (pip install jsonschema)")
            return
        }
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test(
        "a --public-url that is not an http(s) base URL is refused with exit 1, naming it",
        arguments: [
            "ftp://tiles.example.org", "https://", "tiles.example.org", "https://tiles.example.org/a b",
            "https://tiles.example.org/?v=1", "https://tiles.example.org/#top", "https://user@tiles.example.org",
            "https://tiles.example.org:99999"
        ])
    func refused(_ url: String) throws {
        let tmp = try TempDir()
        let r = try areawatch([
            "report", "--input", Datasets.police[2], "--out", tmp.sub("out"), "--as-of", Datasets.asOf,
            "--public-url", url
        ])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("--public-url"), "\(r)")
        #expect(!exists(tmp.sub("out")))
        let s = try areawatch(["serve", tmp.path, "--public-url", url])
        #expect(s.status == 1 && s.stderr.contains("--public-url"), "\(s)")
    }

    @Test(
        "a --basemap that is not an http(s) style URL is refused with exit 1, naming it",
        arguments: [
            "ftp://tiles.example.org/style.json", "https://", "tiles.example.org/style.json",
            "https://tiles.example.org/a b", "https://tiles.example.org/style.json#top",
            "https://user@tiles.example.org/style.json", "https://tiles.example.org/\"x\"",
            "https://tiles.example.org/<script>"
        ])
    func basemapRefused(_ url: String) throws {
        let tmp = try TempDir()
        let s = try areawatch(["serve", tmp.path, "--basemap", url])
        #expect(s.status == 1 && s.stderr.contains("--basemap"), "\(s)")
        #expect(s.stderr.split(separator: "\n").filter { $0.contains("--basemap") }.count >= 1)
    }

    @Test("serve --basemap: the page is given the style URL, query included; without it, none")
    func basemapServed() throws {
        let tmp = try TempDir()
        let out = try Self.report(tmp, "report")
        let style = "https://tiles.example.org/styles/positron?key=a1&v=2"
        for (options, expected) in [
            ([String](), "\"basemap\":null"), (["--basemap", style], "\"basemap\":\"\(style)\"")
        ] {
            let server = try Spawned(["serve", out, "--port", "0", "--host", "127.0.0.1"] + options)
            defer { server.kill(SIGKILL) }
            let base = try ServeCommandTests().waitForListening(server)
            let page = try HTTP.get(base + "/")
            #expect(page.status == 200 && page.body.contains(expected), "\(options)")
            #expect(page.body.contains("\"legend\":{\"class\":[[\"safe\",\"#2e9e44\","), "the report's class colours")
        }
    }

    @Test("serve: --public-url wins; forwarded headers count with --trust-proxy only; schema-valid")
    func served() throws {
        let tmp = try TempDir()
        let out = try Self.report(tmp, "report")
        var documents: [String: String] = [:]
        for (name, options, headers, expected) in [
            ("plain", [String](), ["X-Forwarded-Host": "maps.example.org"], "http://127.0.0.1:"),
            (
                "trusted", ["--trust-proxy"], ["X-Forwarded-Host": "maps.example.org", "X-Forwarded-Proto": "https"],
                "https://maps.example.org/tiles/"
            ),
            (
                "public", ["--public-url", "https://tiles.example.org/safety", "--trust-proxy"],
                ["X-Forwarded-Host": "maps.example.org"], "https://tiles.example.org/safety/tiles/"
            )
        ] {
            let server = try Spawned(["serve", out, "--port", "0", "--host", "127.0.0.1"] + options)
            defer { server.kill(SIGKILL) }
            let base = try ServeCommandTests().waitForListening(server)
            let answer = try HTTP.get(base + "/tilejson.json", headers: headers)
            #expect(answer.status == 200, "\(name): \(answer)")
            let tiles = try #require(try Self.object(answer.body)["tiles"] as? [String])
            #expect(
                tiles.count == 1 && tiles[0].hasPrefix(expected) && tiles[0].hasSuffix("/{z}/{x}/{y}.mvt"),
                "\(name): \(tiles)")
            documents[name + ".json"] = answer.body
        }
        guard let problems = try Self.schemaProblems(documents) else {
            print("skipped the schema check: python3 with jsonschema is not installed (pip install jsonschema)")
            return
        }
        #expect(problems.isEmpty, "\(problems)")
    }
}
