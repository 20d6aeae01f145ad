/// How precisely a source gave an incident's time (SPEC §1).
public enum TimePrecision: String, Sendable, Hashable, CaseIterable {
    case second, day, month
}

/// One incident as every stage sees it (SPEC §1).
///
/// `attributes` is the canonical JSON object text of the extra input fields (keys sorted), or nil
/// when there are none: one string instead of a dictionary keeps ingest at one allocation per
/// field that survives, and makes "same content" a plain string comparison.
public struct Incident: Sendable, Hashable {
    public var key: String
    /// UTC epoch seconds.
    public var time: Int64
    public var precision: TimePrecision
    public var lat: Double
    public var lon: Double
    public var category: String?
    public var handled: Bool?
    public var description: String?
    public var user: String?
    public var attributes: String?

    @inlinable
    public init(
        key: String, time: Int64, precision: TimePrecision, lat: Double, lon: Double,
        category: String? = nil, handled: Bool? = nil, description: String? = nil,
        user: String? = nil, attributes: String? = nil
    ) {
        self.key = key
        self.time = time
        self.precision = precision
        self.lat = lat
        self.lon = lon
        self.category = category
        self.handled = handled
        self.description = description
        self.user = user
        self.attributes = attributes
    }

    /// Whether two incidents carry the same stored content (SPEC §4: every field but the key).
    public func hasSameContent(as other: Incident) -> Bool {
        time == other.time && precision == other.precision
            && lat.bitPattern == other.lat.bitPattern && lon.bitPattern == other.lon.bitPattern
            && category == other.category && handled == other.handled
            && description == other.description && user == other.user
            && attributes == other.attributes
    }
}

/// What a sink did with one incident (SPEC §4).
public enum WriteOutcome: Sendable, Equatable {
    /// A key not seen before.
    case inserted
    /// A known key whose content changed; the later record wins.
    case updated
    /// A known key with identical content; nothing changed.
    case duplicate
}

/// How a sink tells incidents' keys apart (SPEC §4).
public enum KeyIdentity: Sendable, Equatable {
    /// By the key's text: the sink reads each incident's `key`.
    case text
    /// By the key's `KeyHash` alone, never reading its text. A reader may then hash each key on
    /// the thread that parses it, never build its text, and hand batches whose `keyHashes` are
    /// set and whose incidents' keys are empty.
    case hash
}

/// Incidents a reader hands a sink, in file order, lent for one `write` call: the memory stays
/// the reader's (the parallel CSV reader's blocks are read where they were parsed, never copied)
/// and is valid only during the call, which is why the batch cannot be copied.
public struct IncidentBatch: ~Copyable {
    public let incidents: UnsafeBufferPointer<Incident>
    /// Each incident's key as its hash, when the reader hashed the keys (only for a sink whose
    /// `keyIdentity` is `.hash`); the incidents' `key` texts are then empty.
    public let keyHashes: UnsafeBufferPointer<KeyHash>?

    public init(_ incidents: UnsafeBufferPointer<Incident>, keyHashes: UnsafeBufferPointer<KeyHash>? = nil) {
        precondition(keyHashes == nil || keyHashes!.count == incidents.count, "one key hash per incident")
        self.incidents = incidents
        self.keyHashes = keyHashes
    }

    public var count: Int { incidents.count }

    /// Each incident in order, for a sink that reads keys as text (`KeyIdentity.text`).
    public func forEach(_ body: (Incident) throws -> Void) rethrows {
        precondition(keyHashes == nil, "keys as hashes were handed to a sink that reads their text")
        for incident in incidents { try body(incident) }
    }
}

/// Where ingest delivers accepted incidents: the SQLite store, the in-memory table of the ad-hoc
/// `--input` path, the scale-out buckets. Every sink applies the same key semantics.
public protocol IncidentSink {
    /// How the sink tells keys apart; readers hash keys where they parse them only for `.hash`.
    var keyIdentity: KeyIdentity { get }
    /// Writes the batch's incidents in order, as one at a time would, handing each outcome to
    /// `outcome`. A sink may overlap their memory accesses (the ad-hoc key table loads slots ahead).
    mutating func write(_ batch: borrowing IncidentBatch, outcome: (WriteOutcome) -> Void) throws
}

extension IncidentSink {
    public var keyIdentity: KeyIdentity { .text }

    /// One incident, as a batch of one.
    public mutating func write(_ incident: Incident) throws -> WriteOutcome {
        var written = WriteOutcome.duplicate
        try withUnsafePointer(to: incident) { pointer in
            try write(IncidentBatch(UnsafeBufferPointer(start: pointer, count: 1))) { written = $0 }
        }
        return written
    }
}
