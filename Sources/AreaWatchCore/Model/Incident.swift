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

/// Where ingest delivers accepted incidents: the SQLite store, or the in-memory table of the
/// ad-hoc `--input` path. Both apply the same key semantics.
public protocol IncidentSink {
    mutating func write(_ incident: Incident) throws -> WriteOutcome
    /// Writes `incidents` in order, as many `write` calls would, handing each outcome to `outcome`.
    /// The incidents are read where the reader left them (the parallel CSV reader's blocks); a
    /// sink may overlap their memory accesses (the ad-hoc key table loads slots ahead).
    mutating func write(contentsOf incidents: UnsafeBufferPointer<Incident>, outcome: (WriteOutcome) -> Void) throws
    /// True when the sink tells keys apart by their `KeyHash` alone and never reads a key's text.
    /// A reader may then hash each key on the thread that parses it, never build its text, and
    /// hand the incidents with their keys empty to `write(contentsOf:keyHashes:outcome:)`.
    var identifiesKeysByHash: Bool { get }
    /// `write(contentsOf:outcome:)` with each incident's key given as `keyHashes[k]` (its `key`
    /// is not read); only called when `identifiesKeysByHash`.
    mutating func write(
        contentsOf incidents: UnsafeBufferPointer<Incident>, keyHashes: UnsafeBufferPointer<KeyHash>,
        outcome: (WriteOutcome) -> Void) throws
}

extension IncidentSink {
    public mutating func write(contentsOf incidents: UnsafeBufferPointer<Incident>, outcome: (WriteOutcome) -> Void)
        throws
    {
        for incident in incidents { outcome(try write(incident)) }
    }

    public var identifiesKeysByHash: Bool { false }

    public mutating func write(
        contentsOf incidents: UnsafeBufferPointer<Incident>, keyHashes: UnsafeBufferPointer<KeyHash>,
        outcome: (WriteOutcome) -> Void
    ) throws {
        preconditionFailure("keys as hashes were handed to a sink that reads their text")
    }
}
