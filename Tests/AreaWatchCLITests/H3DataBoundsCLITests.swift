import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

/// The tiles' `data_bounds` of an H3 report (SPEC §8, §18) end to end through the built binary:
/// the union of the boxes of the boundary vertices of the H3 cells at the report's resolution that
/// hold at least `--min-cell-count` bundled incidents (read by the test's own model), in
/// tilejson.json.
@Suite("H3 data_bounds (SPEC §8, §18)", .timeLimit(.minutes(60)))
struct H3DataBoundsCLITests {
    /// The union of the boundary boxes of the cells at `resolution` holding at least `k` incidents,
    /// as `[west, south, east, north]` (no bundled cell crosses the antimeridian or holds a pole).
    static func expected(_ incidents: [ModelIncident], resolution: Int, k: Int) -> [Double] {
        var perCell: [H3Cell: Int] = [:]
        for i in incidents { perCell[H3.cell(lat: i.lat, lon: i.lon, resolution: resolution), default: 0] += 1 }
        let vertices = perCell.filter { $0.value >= k }.keys.flatMap(\.boundary)
        return [
            vertices.map(\.lon).min()!, vertices.map(\.lat).min()!,
            vertices.map(\.lon).max()!, vertices.map(\.lat).max()!
        ]
    }

    static func dataBounds(_ json: JSON?) throws -> [Double] {
        let items = try #require(json?.array, "no data_bounds in \(String(describing: json))")
        return try items.map { try #require(Double($0.numberText ?? "")) }
    }

    @Test("report --grid h3:9: data_bounds is the union of the boundary boxes of the cells holding ≥ K incidents")
    func dataBoundsAreTheCellUnion() throws {
        let incidents = try Model.all()
        let tmp = try TempDir()
        for (k, resolution) in [(1, 9), (5, 9), (3, 6)] {
            let out = tmp.sub("h3-\(resolution)-k\(k)")
            try areawatchOK(
                ["report", "--input"] + Datasets.all + [
                    "--out", out, "--as-of", Datasets.asOf, "--grid", "h3:\(resolution)", "--tile-zooms", "9-12",
                    "--min-cell-count", "\(k)", "--formats", "csv,tiles", "--quiet"
                ])
            let want = Self.expected(incidents, resolution: resolution, k: k)
            let meta = try JSON.parse(try readBytes(out + "/tiles/tilejson.json"))
            let got = try Self.dataBounds(meta["areawatch"]?["data_bounds"])
            #expect(got == want, "h3:\(resolution) K=\(k): \(got) vs \(want)")
            // The box is drawn from cell vertices, not the incidents: wider than the incidents' box.
            #expect(got[0] < incidents.map(\.lon).min()! || k > 1)
        }
    }
}
