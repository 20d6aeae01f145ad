import AreaWatchCore
import Glibc
import Testing

@testable import AreaWatchCore

/// The slippy-map formula as the OpenStreetMap wiki gives it, written independently (asinh∘tan
/// rather than log(tan + sec)). Returns the tile and the fractional tile coordinates.
private func slippy(lat: Double, lon: Double, zoom: Int) -> (x: Int, y: Int, fx: Double, fy: Double) {
    let n = pow(2, Double(zoom))
    let fx = (lon + 180) / 360 * n
    let phi = lat * Double.pi / 180
    let fy = (1 - asinh(tan(phi)) / Double.pi) / 2 * n
    return (Int(fx.rounded(.down)), Int(fy.rounded(.down)), fx, fy)
}

@Suite("WebMercatorTiles")
struct WebMercatorTilesTests {
    @Test("zoom 0 is one tile")
    func zoomZero() {
        for (lat, lon) in [(0.0, 0.0), (85, 179.9), (-85, -180), (51.5, -0.12), (90, 180), (-90, -180)] {
            #expect(TileID(lat: lat, lon: lon, zoom: 0) == TileID(z: 0, x: 0, y: 0))
        }
        #expect(TileID(z: 0, x: 0, y: 0).description == "0/0/0")
        let b = TileID(z: 0, x: 0, y: 0).bounds
        #expect(b.minLon == -180 && b.maxLon == 180)
        #expect(abs(b.maxLat - WebMercator.maxLatitude) < 1e-12 && abs(b.minLat + WebMercator.maxLatitude) < 1e-12)
    }

    @Test("known tiles at zoom 14")
    func knownTiles() {
        #expect(TileID(lat: 51.5074, lon: -0.1278, zoom: 14).description == "14/8186/5448")
        #expect(TileID(lat: 52.52, lon: 13.405, zoom: 14).description == "14/8802/5373")
        #expect(TileID(lat: 40.6892, lon: -74.0445, zoom: 14).description == "14/4822/6161")
        #expect(TileID(lat: -33.8568, lon: 151.2153, zoom: 14).description == "14/15073/9831")
        #expect(TileID(lat: 0.0001, lon: 0.0001, zoom: 1) == TileID(z: 1, x: 1, y: 0))
        #expect(TileID(lat: -0.0001, lon: -0.0001, zoom: 1) == TileID(z: 1, x: 0, y: 1))
    }

    @Test("random points: the standard formula's tile, and its bounds contain the point")
    func randomPoints() {
        let seed = testSeed(0x711E_0001)
        var rng = SplitMix64(seed: seed)
        for _ in 0..<10_000 {
            let zoom = rng.int(0...20)
            let lat = rng.uniform(-85.05, 85.05), lon = rng.uniform(-180, 180)
            let tile = TileID(lat: lat, lon: lon, zoom: zoom)
            let ref = slippy(lat: lat, lon: lon, zoom: zoom)
            // Away from tile edges (where two formulas may round apart) the tiles must agree.
            let nearEdge = abs(ref.fx - ref.fx.rounded()) < 1e-9 || abs(ref.fy - ref.fy.rounded()) < 1e-9
            if !nearEdge {
                #expect(
                    tile.x == ref.x && tile.y == ref.y,
                    "seed \(seed): (\(lat), \(lon)) z\(zoom) → \(tile), formula \(ref.x)/\(ref.y)")
            }
            #expect(tile.z == zoom)
            let b = tile.bounds
            let tolerance = 1e-9
            #expect(
                lat >= b.minLat - tolerance && lat <= b.maxLat + tolerance && lon >= b.minLon && lon <= b.maxLon,
                "seed \(seed): (\(lat), \(lon)) z\(zoom) outside \(tile) \(b)")
            #expect(b.minLat < b.maxLat && b.minLon < b.maxLon)
        }
    }

    @Test("latitudes beyond ±85.0511° clamp to the first and last rows; longitudes to the columns")
    func clamping() {
        for zoom in [1, 5, 14, 20] {
            let last = (1 << zoom) - 1
            for lat in [85.06, 89, 90, WebMercator.maxLatitude] {
                #expect(TileID(lat: lat, lon: 10, zoom: zoom).y == 0, "lat \(lat) z\(zoom)")
            }
            for lat in [-85.06, -89, -90, -WebMercator.maxLatitude] {
                #expect(TileID(lat: lat, lon: 10, zoom: zoom).y == last, "lat \(lat) z\(zoom)")
            }
            #expect(TileID(lat: 0, lon: 180, zoom: zoom).x == last)
            #expect(TileID(lat: 0, lon: -180, zoom: zoom).x == 0)
            #expect(TileID(lat: 90, lon: 180, zoom: zoom) == TileID(z: zoom, x: last, y: 0))
            #expect(TileID(lat: -90, lon: -180, zoom: zoom) == TileID(z: zoom, x: 0, y: last))
        }
        #expect(abs(WebMercator.maxLatitude - atan(sinh(Double.pi)) * 180 / Double.pi) < 1e-12)
    }

    @Test("edges: tiles share bounds, the equator and prime meridian split zoom 1")
    func edges() {
        for zoom in [1, 3, 10] {
            #expect(WebMercator.latitude(row: 1 << (zoom - 1), zoom: zoom) == 0)
            #expect(WebMercator.longitude(column: 1 << (zoom - 1), zoom: zoom) == 0)
            #expect(WebMercator.longitude(column: 0, zoom: zoom) == -180)
            #expect(WebMercator.longitude(column: 1 << zoom, zoom: zoom) == 180)
            let a = TileID(z: zoom, x: 0, y: 0), right = TileID(z: zoom, x: 1, y: 0),
                below = TileID(z: zoom, x: 0, y: 1)
            #expect(a.bounds.maxLon == right.bounds.minLon)
            #expect(a.bounds.minLat == below.bounds.maxLat)
        }
        #expect(TileID(z: 1, x: 0, y: 1) < TileID(z: 1, x: 1, y: 0))
        #expect(TileID(z: 1, x: 1, y: 1) < TileID(z: 2, x: 0, y: 0))
    }
}
