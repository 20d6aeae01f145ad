import AreaWatchCore
import AreaWatchQuery
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchReport

/// grid.pmtiles against the JSON tiles of the same report folder (SPEC §14: decoded, every tile
/// lists exactly the cells of its zoom's JSON tiles that overlap its extent grown by 256 units,
/// clipped to it, with the JSON tiles' values).
@Suite("grid.pmtiles", .serialized)
struct GridArchiveTests {
    /// A city of 30,000 incidents around Leeds: skewed Gaussian hotspots of 80 m to 2 km over a
    /// uniform background, times over three years, so cells range from 1 to hundreds of incidents
    /// and lower zooms merge many cells.
    static func city() -> ReportContent {
        var rng = SplitMix64(seed: 0xC17)
        let asOf = UTCTime.epochSeconds(CivilTime(year: 2024, month: 6, day: 30, hour: 12))
        var columns = IncidentColumns()
        let hotspots = (0..<25).map { _ in
            (
                lat: 53.80 + (rng.unit() - 0.5) * 0.2, lon: -1.55 + (rng.unit() - 0.5) * 0.34,
                sigma: 0.0008 + rng.unit() * rng.unit() * 0.018, weight: rng.unit() * rng.unit()
            )
        }
        let total = hotspots.reduce(0) { $0 + $1.weight }
        func normal() -> Double { (-2 * log(max(rng.unit(), 1e-300))).squareRoot() * cos(2 * Double.pi * rng.unit()) }
        for _ in 0..<30_000 {
            var lat = 53.80 + (rng.unit() - 0.5) * 0.24, lon = -1.55 + (rng.unit() - 0.5) * 0.4
            if rng.unit() < 0.85 {
                var pick = rng.unit() * total
                var h = hotspots[0]
                for candidate in hotspots {
                    h = candidate
                    pick -= candidate.weight
                    if pick <= 0 { break }
                }
                lat = h.lat + h.sigma * 0.6 * normal()
                lon = h.lon + h.sigma * normal()
            }
            columns.append(
                lat: lat, lon: lon, time: asOf - Int64(rng.unit() * 3 * 365 * 86_400), handled: nil, category: nil)
        }
        let parameters = QueryParameters(asOf: asOf, radius: 500)
        let index = IncidentIndex(columns: columns, parameters: parameters)
        return ReportContent(
            parameters: parameters, grid: index.grid(precision: 7), totals: index.totals(), tileZooms: 8...14,
            disclosure: Disclosure(), areas: nil, pointsOfInterest: nil, breakdown: nil, sourceKind: "files",
            sourcePath: nil, inputs: [], timings: [], attribution: "Test data", engineVersion: "9.9.9-test")
    }

    static func readTile(_ path: String) throws -> [String: [Any]] {
        let data = try #require(FileManager.default.contents(atPath: path))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object["cells"] as? [String: [Any]])
    }

    /// Every JSON tile of a report folder by tile id (computed with the tests' own Hilbert curve).
    static func jsonTiles(_ folder: String) throws -> [UInt64: (z: Int, x: Int, y: Int, path: String)] {
        var out: [UInt64: (Int, Int, Int, String)] = [:]
        let root = folder + "/tiles"
        for z in try FileManager.default.contentsOfDirectory(atPath: root) where Int(z) != nil {
            for x in try FileManager.default.contentsOfDirectory(atPath: "\(root)/\(z)") {
                for name in try FileManager.default.contentsOfDirectory(atPath: "\(root)/\(z)/\(x)") {
                    let y = try #require(Int(name.dropLast(5)))
                    out[PMTilesTests.slowTileID(Int(z)!, Int(x)!, y)] = (
                        Int(z)!, Int(x)!, y, "\(root)/\(z)/\(x)/\(name)"
                    )
                }
            }
        }
        return out
    }

    /// Decodes the archive of `folder` and compares it with the JSON tiles; returns the cells seen.
    static func compare(_ folder: String, minCellCount: Int) throws -> Int {
        let archive = try DecodedArchive(
            Array(try #require(FileManager.default.contents(atPath: folder + "/grid.pmtiles"))))
        let h = archive.header
        #expect(h.clustered == 1 && h.internalCompression == 2 && h.tileCompression == 2 && h.tileType == 1)
        #expect(h.minZoom == 8 && h.maxZoom == 14 && h.centerZoom == 8)
        #expect(
            h.rootOffset == 127 && h.metadataOffset == h.rootOffset + h.rootLength
                && h.leafOffset == h.metadataOffset + h.metadataLength
                && h.tileDataOffset == h.leafOffset + h.leafLength
                && h.tileDataOffset + h.tileDataLength == archive.bytes.count)
        #expect(
            h.bounds[0] < h.center[0] && h.center[0] < h.bounds[2] && h.bounds[1] < h.center[1]
                && h.center[1] < h.bounds[3])
        #expect(archive.metadata["as_of"] as? String == "2024-06-30T12:00:00Z")
        #expect(archive.metadata["type"] as? String == "overlay")
        // The tile set's version is the JSON tiles' (one digest of the tiles, SPEC §19).
        let tileJSONBytes = try #require(FileManager.default.contents(atPath: folder + "/tiles/tilejson.json"))
        let tileJSON = try #require(try JSONSerialization.jsonObject(with: tileJSONBytes) as? [String: Any])
        let version = try #require(archive.metadata["version"] as? String)
        #expect(
            version == tileJSON["version"] as? String && version.hasPrefix("1.") && version.hasSuffix(".0"),
            "\(version)")
        let layers = try #require(archive.metadata["vector_layers"] as? [[String: Any]])
        #expect(layers.count == 1 && layers[0]["id"] as? String == "cells" && layers[0]["minzoom"] as? Int == 8)
        #expect(
            layers[0]["fields"] as? [String: String] == [
                "geohash": "String", "r_current": "Number", "r_previous": "Number",
                "class": "String", "change": "String"
            ])
        // Entries ascend and the counts of the header agree with the directories.
        #expect(zip(archive.entries, archive.entries.dropFirst()).allSatisfy { $0.tileID + $0.runLength <= $1.tileID })
        #expect(
            h.fields[8] == archive.entries.reduce(0) { $0 + $1.runLength }
                && h.fields[9] == UInt64(archive.entries.count))

        let json = try jsonTiles(folder)
        // The model's vector tiles: every JSON cell's pieces, by tile id.
        var expectedTiles: [UInt64: (tile: TileID, cells: [String: (values: [Any], piece: CutModel.Box)])] = [:]
        for (_, t) in json {
            for (geohash, values) in try readTile(t.path) {
                let box = CutModel.globalBox(try #require(GeohashCell(geohash)).bounds, zoom: t.z)
                for (tile, piece) in CutModel.pieces(box, zoom: t.z) {
                    let id = PMTilesTests.slowTileID(tile.z, tile.x, tile.y)
                    expectedTiles[id, default: (tile, [:])].cells[geohash] = (values, piece)
                }
            }
        }
        let tiles = archive.tiles()
        #expect(Set(tiles.map(\.id)) == Set(expectedTiles.keys), "tile sets differ")
        #expect(Set(json.keys).isSubset(of: Set(tiles.map(\.id))), "every JSON tile has a vector tile")
        var cells = 0
        for (id, stored) in tiles {
            let t = try #require(expectedTiles[id])
            let expected = t.cells
            let layer = try #require(try decodeTile(try gunzip(stored)).first)
            #expect(layer.name == "cells" && layer.extent == 4096 && layer.version == 2)
            var got: [String] = []
            for f in layer.features {
                guard case .string(let geohash)? = f.properties["geohash"] else {
                    Issue.record("no geohash")
                    continue
                }
                got.append(geohash)
                let entry = try #require(expected[geohash], "\(t.tile): \(geohash) overlaps no buffered extent of it")
                    .values
                func count(_ name: String) -> Int? {
                    if case .uint(let v)? = f.properties[name] { return Int(v) }
                    return nil
                }
                #expect(count("r_current") == (entry[0] as? NSNumber)?.intValue, "\(geohash)")
                #expect(count("r_previous") == (entry[1] as? NSNumber)?.intValue, "\(geohash)")
                #expect(f.properties["class"] == .string(entry[2] as! String))
                #expect(f.properties["change"] == .string("none"))
                // Withheld means absent, never a small count.
                for name in ["r_current", "r_previous"] {
                    if let v = count(name) { #expect(v == 0 || v >= minCellCount) }
                }
                #expect(f.type == 3 && f.rings.count == 1 && f.rings[0].count == 4 && doubledArea(f.rings[0]) > 0)
                // The ring is the cell's rectangle on the global grid, clipped to the buffered tile.
                let ring = f.rings[0], piece = try #require(expected[geohash]).piece
                #expect(
                    ring[0].x == piece.x0 && ring[0].y == piece.y0 && ring[2].x == piece.x1 && ring[2].y == piece.y1,
                    "\(t.tile) \(geohash): \(ring) vs \(piece)")
                #expect(
                    ring[0].y == ring[1].y && ring[1].x == ring[2].x && ring[2].y == ring[3].y && ring[3].x == ring[0].x
                )
            }
            #expect(got == expected.keys.sorted(), "\(t.tile): cells differ from the model's")
            cells += got.count
        }
        return cells
    }

    @Test(
        "every tile decodes to exactly the cells overlapping its buffered extent, clipped, with the JSON values (30,000 incidents, zooms 8–14)"
    )
    func matchesJSONTiles() throws {
        let tmp = try TempDir()
        let content = Self.city()
        _ = try ReportWriter.write(content, to: tmp.path + "/report", clock: { 0 })
        let cells = try Self.compare(tmp.path + "/report", minCellCount: 1)
        #expect(cells > 10_000, "a realistic grid has many cells at every zoom: \(cells)")
        // Deterministic: the same content gives the same bytes.
        let tiles = WidgetTiles.build(content.grid, changes: ReportChanges(content).grid, zooms: 8...14)
        let version = WidgetTiles.version(tiles, disclosure: Disclosure())
        let again = GridArchive.archive(
            tiles, grid: content.grid, zooms: 8...14, disclosure: Disclosure(), attribution: "Test data",
            version: version)
        #expect(again == Array(try #require(FileManager.default.contents(atPath: tmp.path + "/report/grid.pmtiles"))))
        // The tiles are encoded in parts on several cores: the bytes do not depend on the parts.
        for parts in [1, 3, 64] {
            let inParts = GridArchive.archive(
                tiles, grid: content.grid, zooms: 8...14, disclosure: Disclosure(),
                attribution: "Test data", version: version, parts: parts)
            #expect(inParts == again, "\(parts) parts")
        }
    }

    @Test("the tile set's version: the same tiles give the same version, any changed value another")
    func versionFollowsTheTiles() throws {
        let content = Self.city()
        let tiles = WidgetTiles.build(content.grid, changes: ReportChanges(content).grid, zooms: 10...14)
        let version = WidgetTiles.version(tiles, disclosure: Disclosure())
        #expect(
            version
                == WidgetTiles.version(
                    WidgetTiles.build(
                        content.grid, changes: ReportChanges(content).grid,
                        zooms: 10...14), disclosure: Disclosure()))
        #expect(version.wholeMatch(of: /1\.[0-9]+\.0/) != nil, "\(version)")
        var seen: Set<String> = [version]
        for k in [0, tiles.count / 2, tiles.count - 1] {
            var changed = tiles
            changed[k].cells[0].rCurrent += 1
            #expect(seen.insert(WidgetTiles.version(changed, disclosure: Disclosure())).inserted, "tile \(k)")
            changed = tiles
            changed[k].cells[0].change = changed[k].cells[0].change == "rise" ? "none" : "rise"
            #expect(seen.insert(WidgetTiles.version(changed, disclosure: Disclosure())).inserted, "tile \(k)")
        }
        #expect(seen.insert(WidgetTiles.version(Array(tiles.dropLast()), disclosure: Disclosure())).inserted)
        #expect(
            seen.insert(WidgetTiles.version(tiles, disclosure: Disclosure(minCellCount: 5))).inserted,
            "withheld values are what the tiles publish")
    }

    @Test("the archive's parts cover every tile once, in order, with about equal cells")
    func partBounds() {
        var rng = SplitMix64(seed: 0x9A27)
        for _ in 0..<200 {
            let counts = (0..<Int(rng.next() % 300)).map { _ in
                rng.next() % 5 == 0 ? Int(rng.next() % 5000) : Int(rng.next() % 40)
            }
            let parts = 1 + Int(rng.next() % 20)
            let bounds = GridArchive.partBounds(cellCounts: counts, parts: parts)
            #expect(bounds.first == 0 && bounds.last == counts.count)
            #expect(zip(bounds, bounds.dropFirst()).allSatisfy { counts.isEmpty ? $0 == $1 : $0 < $1 }, "\(bounds)")
            #expect(bounds.count - 1 <= max(1, parts))
            // No part holds more than its share plus one tile.
            let total = counts.reduce(0, +)
            for (lo, hi) in zip(bounds, bounds.dropFirst()) where hi - lo > 1 {
                #expect(counts[lo..<(hi - 1)].reduce(0, +) * parts <= total, "\(bounds) over \(counts)")
            }
        }
    }

    @Test("--min-cell-count 3: withheld counts are absent where the JSON tile has null")
    func disclosure() throws {
        let tmp = try TempDir()
        var content = Self.city()
        content.disclosure = Disclosure(minCellCount: 3)
        _ = try ReportWriter.write(content, to: tmp.path + "/report", clock: { 0 })
        _ = try Self.compare(tmp.path + "/report", minCellCount: 3)
        var withheld = 0
        for (_, t) in try Self.jsonTiles(tmp.path + "/report") {
            withheld += try Self.readTile(t.path).values.filter { $0[0] is NSNull || $0[1] is NSNull }.count
        }
        #expect(withheld > 0, "the city has cells with 1 or 2 incidents")
    }

    @Test(
        "Python's pmtiles reader and mapbox-vector-tile decoder read the cells of the JSON tiles, cut by an independent model"
    )
    func pythonReaders() throws {
        guard let script = Bundle.module.path(forResource: "check_pmtiles", ofType: "py", inDirectory: "Fixtures")
        else {
            Issue.record("check_pmtiles.py not bundled")
            return
        }
        let tmp = try TempDir()
        var content = Self.city()
        content.disclosure = Disclosure(minCellCount: 2)
        _ = try ReportWriter.write(content, to: tmp.path + "/report", clock: { 0 })
        let check = PythonCheck.run([script, tmp.path + "/report"])
        guard let check, check.missing == nil else {
            print(
                "skipped: \(check?.missing ?? "python3 could not be started"); the check needs pmtiles and "
                    + "mapbox-vector-tile (make test-deps installs them)")
            return
        }
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.hasPrefix("ok: "), "\(check.output)")
    }
}
