// swift-tools-version:6.1
import PackageDescription

let package = Package(
    // Linux only (docs/DECISIONS.md): durability uses syncfs and the keyer MADV_HUGEPAGE.
    name: "areawatch",
    products: [
        .executable(name: "areawatch", targets: ["areawatch"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-algorithms.git", from: "1.2.1"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        // Already Hummingbird's: `serve`'s connection handler sits in its NIO pipeline (docs/DECISIONS.md).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1")
    ],
    targets: [
        // System libraries: SQLite (linked; SpatiaLite is loaded with the first store connection, see
        // docs/DECISIONS.md), zlib (gzip: tiles, archives) and zstd (the Parquet files' pages).
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev", "libspatialite-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CZstd", providers: [.apt(["libzstd-dev"])]),
        // The few Linux calls Swift's Glibc module does not expose (renameat2).
        .target(name: "CAreaWatchSystem"),
        // Loops written for one instruction set, each called only where the CPU has it, beside a
        // portable Swift loop (the near-repeat test's counting, AVX2).
        .target(name: "CAreaWatchKernels"),

        // Uber's H3 library v4, vendored unchanged (Sources/CH3/README.md): the H3 grids of SPEC §18.
        .target(
            name: "CH3", exclude: ["LICENSE", "VERSION", "README.md"],
            cSettings: [.define("NDEBUG")]),

        .target(name: "AreaWatchCore", dependencies: ["CH3"]),
        // The file formats written and read on both sides of the report (docs/FORMATS.md): PMTiles,
        // the vector tiles' wire format, gzip, Parquet. The report writes them, `serve` reads them.
        .target(name: "AreaWatchFormats", dependencies: ["AreaWatchCore", "CZlib", "CZstd"]),
        .target(
            name: "AreaWatchIngest",
            dependencies: [
                "AreaWatchCore", "CAreaWatchSystem", "CZlib",
                .product(name: "Crypto", package: "swift-crypto")
            ]),
        .target(name: "AreaWatchStore", dependencies: ["AreaWatchCore", "CAreaWatchSystem", "CSQLite", "CZlib"]),
        .target(name: "AreaWatchQuery", dependencies: ["AreaWatchCore", "CAreaWatchSystem", "CAreaWatchKernels"]),
        .target(
            name: "AreaWatchReport",
            dependencies: [
                "AreaWatchCore", "AreaWatchQuery", "AreaWatchFormats", "CAreaWatchSystem",
                // grid.gpkg is written through the store's SQLite wrapper (a lower stage).
                "AreaWatchStore",
                // Partial sorts: the HTML report's top cells among every cell of a grid.
                .product(name: "Algorithms", package: "swift-algorithms")
            ]),
        .target(
            name: "AreaWatchJobs",
            dependencies: [
                "AreaWatchCore", "AreaWatchIngest", "AreaWatchStore", "AreaWatchQuery", "AreaWatchReport",
                "CAreaWatchSystem",
                .product(name: "TOMLKit", package: "TOMLKit"),
                // Settings are declared once as option groups; the TOML config is read through them.
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ]),
        // `areawatch serve` (SPEC §14): the HTTP API, the map and the PMTiles reader over a report folder.
        .target(
            name: "AreaWatchServe",
            dependencies: [
                "AreaWatchReport", "AreaWatchFormats", "AreaWatchCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras")
            ]),
        // Fuzzing (docs/RELIABILITY.md): invariants shared by the three targets, which are libFuzzer
        // binaries when built by `make fuzz` and replay tools in the normal build.
        .target(name: "AreaWatchFuzzing", dependencies: ["AreaWatchIngest", "AreaWatchQuery", "AreaWatchCore"]),
        .executableTarget(name: "FuzzCSV", dependencies: ["AreaWatchFuzzing"]),
        .executableTarget(name: "FuzzJSON", dependencies: ["AreaWatchFuzzing"]),
        .executableTarget(name: "FuzzValues", dependencies: ["AreaWatchFuzzing"]),
        // The incremental grid state's night against a full recompute (issue 33), built on demand:
        // `swift build -c release --product bench-grid-state`.
        .executableTarget(
            name: "bench-grid-state", dependencies: ["AreaWatchQuery", "AreaWatchCore"], path: "Benchmarks/GridState"),
        .executableTarget(
            name: "areawatch",
            dependencies: [
                "AreaWatchJobs", "AreaWatchServe", "AreaWatchReport", "AreaWatchStore", "AreaWatchQuery",
                "AreaWatchIngest", "AreaWatchCore", "CAreaWatchSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ]),

        // Helpers shared by the test targets (scratch folders, a reader of Parquet files).
        // The tests' own Parquet reader decompresses zstd pages with the library itself.
        .target(
            name: "AreaWatchTestSupport", dependencies: ["AreaWatchFormats", "CZstd"],
            path: "Tests/AreaWatchTestSupport"),
        // Fixtures: h3-py's golden H3 values (Tools/h3_golden.py).
        .testTarget(name: "AreaWatchCoreTests", dependencies: ["AreaWatchCore"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "AreaWatchFormatsTests",
            dependencies: ["AreaWatchFormats", "AreaWatchCore", "AreaWatchTestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "AreaWatchIngestTests",
            dependencies: [
                "AreaWatchIngest", "AreaWatchQuery", "AreaWatchCore", "AreaWatchTestSupport",
                "AreaWatchFuzzing",
                .product(name: "Crypto", package: "swift-crypto")
            ],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "AreaWatchStoreTests",
            dependencies: ["AreaWatchStore", "AreaWatchIngest", "AreaWatchCore", "AreaWatchTestSupport"]),
        .testTarget(
            name: "AreaWatchQueryTests", dependencies: ["AreaWatchQuery", "AreaWatchIngest"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "AreaWatchReportTests",
            dependencies: [
                "AreaWatchReport", "AreaWatchFormats", "AreaWatchQuery", "AreaWatchCore", "AreaWatchTestSupport",
                // The tests' own reader of grid.pmtiles, which shares no code with the writer.
                "CZlib"
            ],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "AreaWatchServeTests",
            dependencies: [
                "AreaWatchServe", "AreaWatchReport", "AreaWatchFormats", "AreaWatchQuery", "AreaWatchCore",
                "AreaWatchTestSupport",
                // The connection handler in NIO's embedded channel, behind the real HTTP/1.1 parser.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras")
            ],
            resources: [.copy("Fixtures")]),
        // End-to-end tests of the built `areawatch` binary; AreaWatchStore only to inspect and damage
        // stores with SQL. `swift build --build-tests` builds the binary too (see the Makefile).
        .testTarget(
            name: "AreaWatchCLITests", dependencies: ["AreaWatchStore", "AreaWatchTestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: [.unsafeFlags(["-O"])])
    ]
)

// Every module's members are visible only in files that import it (SE-0444): a file names what it
// uses, and a target declares every module its files import.
for target in package.targets where target.type != .system && !["CAreaWatchSystem", "CH3"].contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
