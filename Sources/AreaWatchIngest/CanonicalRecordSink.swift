import AreaWatchCore
import Crypto

/// The scale-out ingest's sink (SPEC §15): each accepted incident of one file becomes a
/// `CanonicalRecord`, appended in file order to the `AWREC` buffer of its key bucket, so that every
/// record of one key — from every file — meets in one de-duplication task.
///
/// It keeps no table of keys: de-duplication within and across files is the later stage's work,
/// done in file order as one ingest does it.
public struct CanonicalRecordSink: IncidentSink {
    public private(set) var buckets: [BinaryWriter]
    public private(set) var count = 0
    private var scratch: [UInt8] = []

    public init(fileIndex: UInt32, buckets: Int) {
        precondition(buckets >= 1)
        self.buckets = (0..<buckets).map { _ in CanonicalRecord.header(fileIndex: fileIndex) }
    }

    /// The bucket of a key digest: its high word modulo the bucket count.
    public static func bucket(keyHigh: UInt64, buckets: Int) -> Int { Int(keyHigh % UInt64(buckets)) }

    public mutating func write(_ batch: borrowing IncidentBatch, outcome: (WriteOutcome) -> Void) {
        batch.forEach { incident in
            let record = canonical(incident)
            record.encode(to: &buckets[CanonicalRecordSink.bucket(keyHigh: record.keyHigh, buckets: buckets.count)])
            count += 1
            // Every record is new to this sink; the de-duplication stage counts inserts, updates
            // and duplicates over all files.
            outcome(.inserted)
        }
    }

    mutating func canonical(_ incident: Incident) -> CanonicalRecord {
        var key = incident.key
        let keyDigest = key.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
        let (high, low) = keyDigest.withUnsafeBytes {
            (
                $0.loadUnaligned(fromByteOffset: 0, as: UInt64.self).bigEndian,
                $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self).bigEndian
            )
        }
        return CanonicalRecord(
            keyHigh: high, keyLow: low, content: contentDigest(incident), lat: incident.lat,
            lon: incident.lon, time: incident.time, handled: IncidentColumns.code(incident.handled),
            category: incident.category)
    }

    /// SHA-256 over every stored field but the key, each length-prefixed or fixed-width so that
    /// no two different contents serialize alike (SPEC §4 "content").
    mutating func contentDigest(_ i: Incident) -> UInt64 {
        var w = BinaryWriter(capacity: 128)
        swap(&w.bytes, &scratch)
        w.bytes.removeAll(keepingCapacity: true)
        w.i64(i.time)
        w.string(i.precision.rawValue)
        w.f64(i.lat)
        w.f64(i.lon)
        w.optionalString(i.category)
        w.i8(IncidentColumns.code(i.handled))
        w.optionalString(i.description)
        w.optionalString(i.user)
        w.optionalString(i.attributes)
        let digest = w.bytes.withUnsafeBytes { SHA256.hash(data: $0) }
        swap(&w.bytes, &scratch)
        return digest.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self).bigEndian }
    }
}
