import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The widget tiles, `lookup` and `serve`'s `/v1/safety` of an H3 grid (SPEC §18) end to end
/// through the built binary: every tile against grid.csv of the same report, regrouped by the
/// test with H3's own parents; every answer against the cell `latLngToCell` gives at R.
@Suite("H3 widget tiles, lookup and /v1/safety (SPEC §18)", .timeLimit(.minutes(60)))
struct H3TilesCLITests {
    static let zooms = 10...14

    /// The resolution the tiles of zoom `z` carry: R at the highest zoom, (3·d + 1) / 4 coarser d
    /// zooms below.
    static func resolution(zoom z: Int) -> Int { max(0, 9 - (3 * (zooms.upperBound - z) + 1) / 4) }

    /// One report at resolution 9 with the JSON tiles (grid.pmtiles left out), shared by the tests.
    static func report(_ tmp: TempDir) throws -> String {
        let out = tmp.sub("h3")
        try areawatchOK(
            ["report", "--input"] + H3GridCLITests.inputs + [
                "--out", out, "--as-of", Datasets.asOf, "--grid", "h3:9", "--tile-zooms", "10-14",
                "--formats", "csv,tiles", "--quiet"
            ])
        return out
    }

    @Test("each zoom's tiles hold every cell's parent at its resolution, in the tile of its centre, with the worst r")
    func tilesAgainstGridCSV() throws {
        let tmp = try TempDir()
        let out = try Self.report(tmp)
        let meta = try JSON.parse(try readBytes(out + "/tiles/tilejson.json"))
        #expect(meta["areawatch"]?["grid"]?.string == "h3:9" && meta["areawatch"]?["precision"] == nil, "\(meta)")
        #expect(meta["areawatch"]?["cell_format"]?.string == "cells: {h3: [r_current, r_previous, class, change]}")
        let rows = StrictCSV.parse(try readBytes(out + "/grid.csv")).dictionaries
        #expect(rows.count > 100, "too few cells to exercise merging")
        for z in Self.zooms {
            let r = Self.resolution(zoom: z)
            // The expected tiles: grid.csv's cells grouped by their parent at r, the worst spot kept.
            var expected: [String: [String: [String]]] = [:]
            // Per parent its children's largest r_previous, and the first child with the largest
            // r_current (ascending index, as grid.csv lists them), whose class and change it shows.
            var worst: [String: (row: [String: String], current: Int, previous: Int)] = [:]
            for row in rows {
                let cell = try #require(H3Cell(row["h3"] ?? ""))
                let parent = cell.parent(resolution: r).text
                let current = Int(row["r_current"] ?? "") ?? -1, previous = Int(row["r_previous"] ?? "") ?? -1
                guard var known = worst[parent] else {
                    worst[parent] = (row, current, previous)
                    continue
                }
                if current > known.current { (known.row, known.current) = (row, current) }
                known.previous = max(known.previous, previous)
                worst[parent] = known
            }
            for (parent, w) in worst {
                let centre = try #require(H3Cell(parent)).centre
                let tile = TileID(lat: centre.lat, lon: centre.lon, zoom: z)
                let change = w.row["change"].flatMap { $0.isEmpty ? nil : $0 } ?? "none"
                expected["\(tile.x)/\(tile.y)", default: [:]][parent] = [
                    "\(w.current)", "\(w.previous)", classify(w.current), change
                ]
            }
            var got: [String: [String: [String]]] = [:]
            let xs = try FileManager.default.contentsOfDirectory(atPath: out + "/tiles/\(z)")
            for x in xs {
                for name in try FileManager.default.contentsOfDirectory(atPath: out + "/tiles/\(z)/\(x)") {
                    let tile = try JSON.parse(try readBytes(out + "/tiles/\(z)/\(x)/\(name)"))
                    #expect(tile["grid"]?.string == "h3:\(r)" && tile["precision"] == nil, "\(z)/\(x)/\(name)")
                    for (key, value) in tile["cells"]?.members ?? [] {
                        let v = value.array ?? []
                        got["\(x)/\(name.dropLast(5))", default: [:]][key] = v.map {
                            $0.int.map(String.init) ?? $0.string ?? ""
                        }
                    }
                }
            }
            #expect(got == expected, "zoom \(z) (resolution \(r))")
        }
    }

    @Test("lookup --json and /v1/safety answer with the cell latLngToCell gives at R, and grid.csv's r")
    func lookupAndServe() throws {
        let tmp = try TempDir()
        let out = try Self.report(tmp)
        let rows = StrictCSV.parse(try readBytes(out + "/grid.csv")).dictionaries
        let byCell = Dictionary(uniqueKeysWithValues: rows.map { ($0["h3"] ?? "", $0) })
        let incidents = try Model.police().suffix(2).flatMap(\.incidents)
        // Incident locations (cells in the grid), and points between them and beyond the data.
        var points = stride(from: 0, to: incidents.count, by: max(1, incidents.count / 25)).map {
            (incidents[$0].lat, incidents[$0].lon)
        }
        points += [(53.7248, -1.8612), (53.9, -1.5), (53.70001, -1.99999)]
        let server = try Spawned(["serve", out, "--port", "0"])
        defer { server.kill(SIGKILL) }
        let base = try ServeCommandTests().waitForListening(server)
        var found = 0
        for (lat, lon) in points {
            let at = ["--lat", "\(lat)", "--lon", "\(lon)"]
            let lookup = try areawatchOK(["lookup", "--tiles", out + "/tiles"] + at + ["--json"])
            let answer = try JSON.parse(lookup.stdout)
            let cell = H3.cell(lat: lat, lon: lon, resolution: 9).text
            #expect(answer["h3"]?.string == cell && answer["geohash"] == nil, "\(lat), \(lon): \(answer)")
            if let row = byCell[cell] {
                found += 1
                #expect(answer["found"]?.bool == true && answer["current"]?.int == Int(row["r_current"] ?? ""))
                #expect(
                    answer["previous"]?.int == Int(row["r_previous"] ?? "") && answer["class"]?.string == row["class"])
            } else {
                #expect(answer["found"]?.bool == false && answer["current"]?.int == 0, "\(answer)")
            }
            let served = try HTTP.get(base + "/v1/safety?lat=\(lat)&lon=\(lon)")
            #expect(served.status == 200 && served.body == lookup.stdout, "\(served.body)")
            let text = try areawatchOK(["lookup", "--tiles", out + "/tiles"] + at)
            #expect(text.stdout.contains("cell \(cell) in tile 14/"), "\(text.stdout)")
        }
        #expect(found >= 20, "the points should mostly fall in reported cells")
    }

    @Test("grid.pmtiles of an H3 grid: every cell in the vector tile of its centre, drawn as h3-py's hexagon")
    func pmtilesHexagons() throws {
        let tmp = try TempDir()
        let out = tmp.sub("h3")
        try areawatchOK(
            ["report", "--input"] + H3GridCLITests.inputs + [
                "--out", out, "--as-of", Datasets.asOf, "--grid", "h3:9", "--quiet"
            ])
        let summary = try JSON.parse(try readBytes(out + "/summary.json"))
        #expect(summary["files"]?["grid.pmtiles"]?.int ?? 0 > 0, "grid.pmtiles is written by default")
        guard let python = findTool("python3") else {
            print("skipped: python3 is not installed")
            return
        }
        let script = packageRoot + "/Tests/AreaWatchCLITests/Fixtures/check_h3_pmtiles.py"
        let r = try runTool(python, [script, out], timeout: 300)
        if r.status == 3 {
            print("skipped: \(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) (make test-deps installs them)")
            return
        }
        #expect(r.status == 0 && r.stdout.hasPrefix("ok: "), "\(r)")
        print(r.stdout)
    }
}
