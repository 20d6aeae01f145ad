import AreaWatchStore
import Foundation
import Testing

/// What a store holds, read with plain SQL (SQLite itself does the counting): the incident
/// count, a digest of every (key, time, lat, lon), the ingests log and incidents per source.
struct StoreSnapshot: Equatable, CustomStringConvertible {
    var count: Int
    var digest: UInt64
    /// `file` of every ingests row, in insertion order.
    var ingestedFiles: [String]
    /// Incidents by `source` (the input file's base name unless --source).
    var bySource: [String: Int]

    var description: String {
        "\(count) incidents, digest \(String(digest, radix: 16)), ingests \(ingestedFiles.map { ($0 as NSString).lastPathComponent }), by source \(bySource.sorted { $0.key < $1.key })"
    }
}

enum StoreProbe {
    static func open(_ path: String) throws -> SQLiteDatabase {
        try #require(exists(path), "no store at \(path)")
        return try SQLiteDatabase(path: path, create: false)
    }

    static func snapshot(_ path: String) throws -> StoreSnapshot {
        let db = try open(path)
        var digest = FNV1a()
        var count = 0
        let rows = try db.prepare("SELECT key, time, lat, lon FROM incidents ORDER BY key")
        while try rows.step() {
            digest.add((rows.string(0) ?? "").utf8)
            digest.add(0)
            digest.add(UInt64(bitPattern: rows.int64(1)))
            digest.add(rows.double(2).bitPattern)
            digest.add(rows.double(3).bitPattern)
            count += 1
        }
        var files: [String] = []
        let ingests = try db.prepare("SELECT file FROM ingests ORDER BY rowid")
        while try ingests.step() { files.append(ingests.string(0) ?? "") }
        var bySource: [String: Int] = [:]
        let sources = try db.prepare("SELECT source, count(*) FROM incidents GROUP BY source")
        while try sources.step() { bySource[sources.string(0) ?? ""] = Int(sources.int64(1)) }
        return StoreSnapshot(count: count, digest: digest.value, ingestedFiles: files, bySource: bySource)
    }

    static func strings(_ path: String, _ sql: String) throws -> [String] {
        let db = try open(path)
        let s = try db.prepare(sql)
        var out: [String] = []
        while try s.step() { out.append(s.string(0) ?? "") }
        return out
    }

    static func integer(_ path: String, _ sql: String) throws -> Int {
        Int(try open(path).integer(sql) ?? -1)
    }

    static func execute(_ path: String, _ sql: String) throws {
        try open(path).execute(sql)
    }
}
