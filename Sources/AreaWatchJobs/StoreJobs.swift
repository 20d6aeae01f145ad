import AreaWatchStore

/// `areawatch stats`: what the store holds.
public enum StatsJob {
    public static func run(storePath: String) throws -> StoreStats {
        try IncidentStore(path: storePath, mode: .readOnly).stats()
    }
}

/// `areawatch check`: SQLite's integrity check and SpatiaLite's spatial index check.
public enum CheckJob {
    /// The problems found; empty when the store is sound.
    public static func run(storePath: String) throws -> [String] {
        try IncidentStore(path: storePath, mode: .readOnly).check()
    }
}
