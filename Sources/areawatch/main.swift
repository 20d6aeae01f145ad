import AreaWatchIngest
import AreaWatchCore
import Foundation

struct CountingSink: IncidentSink {
    var keys: [String: Incident] = [:]
    mutating func write(_ incident: Incident) throws -> WriteOutcome {
        if let old = keys[incident.key] {
            if old.hasSameContent(as: incident) { return .duplicate }
            keys[incident.key] = incident
            return .updated
        }
        keys[incident.key] = incident
        return .inserted
    }
}
var sink = CountingSink()
let rejects = try RejectsWriter(path: "/tmp/rejects.csv")
for path in CommandLine.arguments.dropFirst() {
    let start = Date()
    let (sha, bytes) = try FileDigest.sha256(path: path)
    do {
        let r = try FileIngester.ingest(path: path, sha256: sha, bytes: bytes, options: IngestOptions(), into: &sink, rejects: rejects)
        try rejects.endFile()
        print(path, r.format, "records", r.records, "accepted", r.accepted, "ins", r.inserted, "upd", r.updated, "dup", r.duplicates, "rej", r.rejected, r.rejectsByReason, Date().timeIntervalSince(start))
    } catch let e as InputError {
        rejects.discardFile()
        print("INPUT ERROR", e)
    }
}
try rejects.commit()
print("total", sink.keys.count)
