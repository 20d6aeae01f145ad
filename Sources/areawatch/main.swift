import AreaWatchIngest
import AreaWatchCore
import AreaWatchStore
import Foundation

let args = Array(CommandLine.arguments.dropFirst())
let store = try IncidentStore(path: args[0], create: true)
let rejects = try RejectsWriter(path: "/tmp/rejects.csv")
for path in args.dropFirst() {
    let start = Date()
    let (sha, bytes) = try FileDigest.sha256(path: path)
    if try store.hasIngested(sha256: sha) { print("skip", path); continue }
    let tx = try FileTransaction(store: store, source: path, expectedRows: Int(bytes / 80))
    do {
        var sink = tx
        let r = try FileIngester.ingest(path: path, sha256: sha, bytes: bytes, options: IngestOptions(), into: &sink, rejects: rejects)
        let t1 = Date().timeIntervalSince(start)
        try tx.commit(IngestLogEntry(file: path, sha256: sha, bytes: bytes, records: r.records, accepted: r.accepted, updated: r.updated, duplicates: r.duplicates, rejected: r.rejected, startedAt: 0, finishedAt: 0))
        try rejects.endFile()
        print(path, r.format, "bulk", tx.bulk, "records", r.records, "accepted", r.accepted, "ins", r.inserted, "upd", r.updated, "dup", r.duplicates, "rej", r.rejected, t1, Date().timeIntervalSince(start))
    } catch let e as InputError {
        tx.rollback()
        rejects.discardFile()
        print("INPUT ERROR", e)
    }
}
try rejects.commit()
let s = try store.stats()
print(s.incidents, s.spatialIndexEntries, s.bounds as Any, s.categories.prefix(3))
let t = Date()
let cols = try store.loadColumns()
print("load", cols.count, Date().timeIntervalSince(t))
print(try store.check())
