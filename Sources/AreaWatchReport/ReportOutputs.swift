import AreaWatchCore
import AreaWatchQuery

/// The report's files but summary.json as a graph of outputs (docs/DECISIONS.md, "Concurrency"):
/// each node names the files it writes and the nodes it reads, and the graph runs them on one
/// thread per core. Nodes are declared longest first, since a ready node declared earlier starts
/// earlier: the widget tiles feed the two tile outputs, which end the stage when they start late.
/// Which files a run writes is said once, by the node that writes them.
struct ReportOutputs: Sendable {
    let content: ReportContent
    let changes: ReportChanges
    let directory: AtomicDirectory

    /// The tile folder's name among the files: its bytes are the tiles' sum.
    static let tileFolder = "tiles/"

    /// The order summary.json lists the files in (FORMATS.md, summary.json `files`).
    static let listingOrder: [String] = [
        "nearrepeat.csv", "grid.csv", "grid.csvt", "grid.prj", "grid.parquet", GeoPackageFiles.name,
        "areas.geojson", "areas.csv", "areas.parquet", TimeseriesCSV.name, "poi.csv", "breakdown.csv",
        "ehsa.csv", "ehsa.prj", "ehsa.geojson", "ehsa.parquet", tileFolder, "grid.pmtiles", "grid.geojson",
        "report.html"
    ]

    /// Writes every output: the files written, in listing order, and the JSON tiles' count and
    /// bytes when tiles are written.
    func write() throws -> (files: [String], tiles: (count: Int, bytes: Int64)?) {
        // One thread more than cores: a writer blocks in the kernel (writes, syncs of the tile
        // files) and the spare thread keeps the cores busy meanwhile.
        let graph = OutputGraph(threads: Concurrency.processorCount + 1)
        // grid.gpkg first: the longest node, one thread in SQLite from start to end.
        if content.formats.contains(.gpkg) {
            let (c, changes, directory) = (content, changes, directory)
            graph.add(writing: [GeoPackageFiles.name]) {
                try GeoPackageFiles.write(c, changes: changes, to: try directory.file(GeoPackageFiles.name))
            }
        }
        let tileFiles = addTiles(to: graph)
        addGridFiles(to: graph)
        addTables(to: graph)
        try graph.run()
        let rank = Dictionary(uniqueKeysWithValues: Self.listingOrder.enumerated().map { ($0.element, $0.offset) })
        // A name missing from the listing order goes last, by name, rather than failing a report.
        let files = graph.files.sorted { (rank[$0] ?? .max, $0) < (rank[$1] ?? .max, $1) }
        return (files, try tileFiles?.value)
    }

    /// The widget tiles, built once for both of their outputs: the JSON tiles and grid.pmtiles.
    private func addTiles(to graph: OutputGraph) -> WorkGraph.Node<(count: Int, bytes: Int64)>? {
        let (c, changes, directory) = (content, changes, directory)
        guard let zooms = c.tileZooms, c.formats.contains(.tiles) || c.formats.contains(.pmtiles) else { return nil }
        let tiles = graph.add(writing: []) {
            let tiles = WidgetTiles.build(c.grid, changes: changes.grid, zooms: zooms)
            return (tiles: tiles, version: WidgetTiles.version(tiles, disclosure: c.disclosure))
        }
        if c.formats.contains(.pmtiles) {
            graph.add(writing: ["grid.pmtiles"], after: [tiles]) {
                let (built, version) = try tiles.value
                try GridArchive.write(
                    built, grid: c.grid, zooms: zooms, disclosure: c.disclosure,
                    attribution: c.attribution, dataBounds: c.dataBounds, version: version,
                    to: try directory.file("grid.pmtiles"))
            }
        }
        guard c.formats.contains(.tiles) else { return nil }
        return graph.add(writing: [Self.tileFolder], after: [tiles]) {
            let (built, version) = try tiles.value
            let written = try WidgetTiles.write(
                built, grid: c.grid, zooms: zooms, disclosure: c.disclosure,
                attribution: c.attribution, dataBounds: c.dataBounds, version: version,
                publicURL: c.publicURL, into: directory)
            return (count: written.tiles, bytes: written.bytes)
        }
    }

    /// The grid's own files and the page: the largest outputs.
    private func addGridFiles(to graph: OutputGraph) {
        let (c, changes, directory) = (content, changes, directory)
        if c.formats.contains(.geojson) {
            graph.add(writing: ["grid.geojson"]) {
                try GridGeoJSON.write(
                    c.grid, changes: changes.grid, to: try directory.file("grid.geojson"),
                    disclosure: c.disclosure)
            }
        }
        if c.formats.contains(.parquet) {
            graph.add(writing: ["grid.parquet"]) {
                try GridParquet.write(
                    c.grid, changes: changes.grid, disclosure: c.disclosure, version: c.engineVersion,
                    to: try directory.file("grid.parquet"))
            }
        }
        if c.formats.contains(.html) {
            graph.add(writing: ["report.html"]) {
                try BufferedFile.write(HTMLReport.render(c), to: try directory.file("report.html"))
            }
        }
        if c.formats.contains(.csv) {
            graph.add(writing: ["grid.csv", "grid.csvt", "grid.prj"]) {
                try GridCSV.write(
                    c.grid, changes: changes.grid, to: try directory.file("grid.csv"),
                    typesPath: try directory.file("grid.csvt"), disclosure: c.disclosure)
                try BufferedFile.write(CoordinateSystem.prj, to: try directory.file("grid.prj"))
            }
        }
    }

    /// The smaller tables, each on its own.
    private func addTables(to graph: OutputGraph) {
        let (c, changes, directory) = (content, changes, directory)
        let csv = c.formats.contains(.csv), geojson = c.formats.contains(.geojson)
        if csv, let nearRepeat = c.nearRepeat {
            graph.add(writing: ["nearrepeat.csv"]) {
                try NearRepeatFiles.write(nearRepeat, to: try directory.file("nearrepeat.csv"))
            }
        }
        if let areas = c.areas, csv || geojson {
            graph.add(writing: (geojson ? ["areas.geojson"] : []) + (csv ? ["areas.csv"] : [])) {
                let rates = areas.rates(c.disclosure)
                if geojson {
                    try TableWriters.writeAreasGeoJSON(
                        areas.result, areas: areas.areas, idProperty: areas.idProperty,
                        asOf: c.parameters.asOf, disclosure: c.disclosure,
                        changes: changes.areas, rates: rates,
                        to: try directory.file("areas.geojson"))
                }
                if csv {
                    try TableWriters.writeAreasCSV(
                        areas.result, idProperty: areas.idProperty, disclosure: c.disclosure,
                        changes: changes.areas, rates: rates,
                        to: try directory.file("areas.csv"))
                }
            }
        }
        if let areas = c.areas, c.formats.contains(.parquet) {
            graph.add(writing: ["areas.parquet"]) {
                try AreasParquet.write(
                    areas, disclosure: c.disclosure, changes: changes.areas,
                    version: c.engineVersion, to: try directory.file("areas.parquet"))
            }
        }
        if csv { addCSVTables(to: graph) }
        if let ehsa = c.ehsa {
            if csv {
                graph.add(writing: ["ehsa.csv", "ehsa.prj"]) {
                    try EHSACSV.write(ehsa, to: try directory.file("ehsa.csv"))
                    try BufferedFile.write(CoordinateSystem.prj, to: try directory.file("ehsa.prj"))
                }
            }
            if geojson {
                graph.add(writing: ["ehsa.geojson"]) {
                    try EHSAGeoJSON.write(ehsa, asOf: c.parameters.asOf, to: try directory.file("ehsa.geojson"))
                }
            }
            if c.formats.contains(.parquet) {
                graph.add(writing: ["ehsa.parquet"]) {
                    try EHSAParquet.write(ehsa, version: c.engineVersion, to: try directory.file("ehsa.parquet"))
                }
            }
        }
    }

    /// The tables only CSV carries: the monthly series, points of interest, the breakdown.
    private func addCSVTables(to graph: OutputGraph) {
        let (c, changes, directory) = (content, changes, directory)
        graph.add(writing: [TimeseriesCSV.name]) {
            try TimeseriesCSV.write(
                totals: c.totals, areas: c.areas?.result, disclosure: c.disclosure,
                to: try directory.file(TimeseriesCSV.name))
        }
        if let poi = c.pointsOfInterest {
            graph.add(writing: ["poi.csv"]) {
                try TableWriters.writePOI(
                    poi, disclosure: c.disclosure, changes: changes.pointsOfInterest,
                    to: try directory.file("poi.csv"))
            }
        }
        if let breakdown = c.breakdown {
            graph.add(writing: ["breakdown.csv"]) {
                try TableWriters.writeBreakdown(
                    breakdown, disclosure: c.disclosure, changes: changes.breakdown,
                    to: try directory.file("breakdown.csv"))
            }
        }
    }
}

/// The report's work graph, keeping the names of the files its nodes write.
final class OutputGraph {
    private let graph: WorkGraph
    private(set) var files: [String] = []

    init(threads: Int) { graph = WorkGraph(threads: threads) }

    /// A node that writes `files` (none for a node whose result other nodes write).
    @discardableResult
    func add<Value: Sendable>(
        writing files: [String], after inputs: [any WorkGraphInput] = [],
        _ body: @escaping @Sendable () throws -> Value
    ) -> WorkGraph.Node<Value> {
        self.files += files
        return graph.add(after: inputs, body)
    }

    func run() throws { try graph.run() }
}
