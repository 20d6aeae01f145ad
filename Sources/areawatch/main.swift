import AreaWatchIngest
import AreaWatchCore
import AreaWatchQuery
import Foundation

let args = Array(CommandLine.arguments.dropFirst())
let precision = Int(args[0])!
let strategy = GridStrategy(rawValue: args[1])!
var builder = IncidentColumnsBuilder()
var t = Date()
for path in args.dropFirst(2) {
    let (sha, bytes) = try FileDigest.sha256(path: path)
    _ = try FileIngester.ingest(path: path, sha256: sha, bytes: bytes, options: IngestOptions(), into: &builder, rejects: nil)
}
FileHandle.standardError.write("parse \(Date().timeIntervalSince(t)) \(builder.columns.count)\n".data(using: .utf8)!)
t = Date()
let asOf = TimeParser.parse("2018-07-31T23:59:59Z")!.seconds
let index = IncidentIndex(columns: builder.columns, parameters: QueryParameters(asOf: asOf))
FileHandle.standardError.write("index \(Date().timeIntervalSince(t)) \(index.count) \(index.rtree.count)\n".data(using: .utf8)!)
t = Date()
let grid = index.grid(precision: precision, strategy: strategy, threads: 2)
FileHandle.standardError.write("grid \(Date().timeIntervalSince(t)) \(grid.cells.count)\n".data(using: .utf8)!)
var out = "geohash,lat,lon,n_current,n_previous,r_current,r_previous,delta,pct,handled,class\n"
for c in grid.cells {
    let centre = c.cell.centre
    let pct = c.yearOverYear.pct.map { NumberFormat.fixed($0, decimals: 4) } ?? ""
    out += "\(c.cell.string),\(NumberFormat.fixed(centre.lat, decimals: 6)),\(NumberFormat.fixed(centre.lon, decimals: 6)),\(c.nCurrent),\(c.nPrevious),\(c.rCurrent),\(c.rPrevious),\(c.yearOverYear.delta),\(pct),\(c.handled),\(c.safetyClass.rawValue)\n"
}
print(out, terminator: "")
