import AreaWatchCore
import Glibc

/// Maps the members of a parsed JSON record to incident fields (SPEC §2.3 names, `--column`
/// overrides) and builds the incident: the JSON counterpart of `FieldAssignment`.
final class JSONRecordMapper {
    private let overrides: [(field: Int, name: String)]
    /// Each override's `--column` text and the name it asks for, for a message.
    private let overrideTexts: [(mapping: String, name: String)]
    /// Whether any record of the file had a member of each override's name (SPEC §2.3: a mapping
    /// no record has is a usage error, decided at the end of the file; JSON has no header).
    @exclusivity(unchecked) private var overrideSeen: [Bool]
    /// Records mapped so far (objects; a file of none is not checked).
    @exclusivity(unchecked) private var mappedRecords = 0
    /// Member name bytes → (field slot, rank) or nil; a record's few names repeat in every
    /// record, so a short list compared byte-wise beats hashing a String per member.
    // Unchecked exclusivity: one reader owns its mapper, and the checks were a fifth of the
    // WatchMe parse profile (`swift_beginAccess` per member of every record).
    @exclusivity(unchecked) private var resolved: [(name: [UInt8], slot: Int, rank: Int)] = []
    @exclusivity(unchecked) private var lastAtPosition: [Int] = []
    @exclusivity(unchecked) private var attributes = AttributeWriter()
    @exclusivity(unchecked) private var attributeMembers: [(key: Int, value: Int)] = []
    /// One slot per field, then the TIME member of `--column time=DATE+TIME`.
    /// (Fixed size, so owned buffers written in place: an Array would check its uniqueness on
    /// every write, and these are written for every member of every record.)
    private let slotNode: GrowableBuffer<Int>
    private let slotRank: GrowableBuffer<Int>
    private let idSlot = 3
    private static let pointSlot = IncidentField.allCases.firstIndex(of: .point)!
    private static let timePartSlot = IncidentField.allCases.count
    private static let slotCount = IncidentField.allCases.count + 1
    private let joinsTime: Bool
    private let pointGiven: Bool
    private let categories = TextInterner()
    private let times: TimeReader

    init(options: ReaderOptions) {
        let overrides = options.columns
        var list = overrides.names.sorted { $0.key.rawValue < $1.key.rawValue }.map { field, name in
            (field: IncidentField.allCases.firstIndex(of: field)!, name: name, mapping: "\(field.rawValue)=\(name)")
        }
        if let parts = overrides.timeParts {
            // Member names are not known in advance: in JSON `A+B` always joins two members.
            let mapping = list.first { $0.field == 2 }!.mapping
            list.removeAll { $0.field == 2 }
            list.append((field: 2, name: parts.date, mapping: mapping))
            list.append((field: JSONRecordMapper.timePartSlot, name: parts.time, mapping: mapping))
        }
        self.overrides = list.map { (field: $0.field, name: normalizedName($0.name)) }
        overrideTexts = list.map { (mapping: $0.mapping, name: $0.name) }
        overrideSeen = [Bool](repeating: false, count: list.count)
        joinsTime = overrides.timeParts != nil
        pointGiven = overrides.names[.point] != nil
        times = TimeReader(options: options)
        var slots = GrowableBuffer<Int>(capacity: JSONRecordMapper.slotCount)
        slots.append(repeating: 0, count: JSONRecordMapper.slotCount)
        slotNode = slots
        var ranks = GrowableBuffer<Int>(capacity: JSONRecordMapper.slotCount)
        ranks.append(repeating: 0, count: JSONRecordMapper.slotCount)
        slotRank = ranks
    }

    /// The field slot and rank of a member name (rank -1 for an explicit `--column`).
    /// `position`: the member's place in its record. Records of one file list their members in
    /// the same order, so the entry found at this place last time is tried first.
    private func resolve(_ name: Span<UInt8>, position: Int) -> (slot: Int, rank: Int) {
        if position < lastAtPosition.count {
            let entry = resolved[lastAtPosition[position]]
            if Bytes.equal(entry.name.span, name) { return (entry.slot, entry.rank) }
        }
        for (k, entry) in resolved.enumerated() where Bytes.equal(entry.name.span, name) {
            if position < 64 {
                if position < lastAtPosition.count {
                    lastAtPosition[position] = k
                } else if position == lastAtPosition.count {
                    lastAtPosition.append(k)
                }
            }
            return (entry.slot, entry.rank)
        }
        let normalized = normalizedName(name)
        var result = (slot: -1, rank: Int.max)
        if let k = overrides.firstIndex(where: { $0.name == normalized }) {
            result = (overrides[k].field, -1)
            overrideSeen[k] = true
        } else {
            for (slot, field) in IncidentField.allCases.enumerated() {
                if overrides.contains(where: { $0.field == slot }) || (pointGiven && slot <= 1) { continue }
                if let rank = field.aliases.firstIndex(of: normalized) {
                    result = (slot, rank)
                    break
                }
            }
        }
        // At most 256 names of at most 256 bytes are kept (64 KiB), whatever names a file has.
        if resolved.count < 256 && name.count <= 256 {
            resolved.append((name.copiedArray, result.slot, result.rank))
            if position < 64 {
                if position < lastAtPosition.count {
                    lastAtPosition[position] = resolved.count - 1
                } else if position == lastAtPosition.count {
                    lastAtPosition.append(resolved.count - 1)
                }
            }
        }
        return result
    }

    /// At the end of a file: the first `--column` mapping no record had a member for, as a
    /// message naming the member and the closest name seen; nil when all were found, or when no
    /// record was read.
    func unmatchedMapping() -> String? {
        guard mappedRecords > 0, let k = overrideSeen.firstIndex(of: false) else { return nil }
        let (mapping, name) = overrideTexts[k]
        let seen = resolved.map { String(decoding: $0.name, as: UTF8.self) }
        let hint = ClosestName.closest(to: name, among: seen).map { "; the closest is \(ClosestName.quoted($0))" } ?? ""
        return "--column \(ClosestName.cut(mapping)): no record of the file (\(mappedRecords) read) has a member "
            + ClosestName.quoted(name) + hint
    }

    static func rawValue(_ tape: JSONTape, _ index: Int) -> RawValue {
        let node = tape.node(index)
        switch node.kind {
        case .string: return RawValue(kind: .text, bytes: tape.string(index))
        case .number: return RawValue(kind: .number, bytes: tape.rawBytes(index))
        case .trueValue: return RawValue(kind: .boolean, bytes: tape.rawBytes(index), bool: true)
        case .falseValue: return RawValue(kind: .boolean, bytes: tape.rawBytes(index), bool: false)
        case .null: return RawValue(kind: .null, bytes: tape.rawBytes(index))
        case .object, .array: return RawValue(kind: .composite, bytes: tape.rawBytes(index))
        }
    }

    /// Builds a record from an incident object (forms 1–4). `memberID` is the key of an
    /// id → post map, which is the record's id; `coordinates` replaces lat/lon (GeoJSON).
    func map(
        _ tape: JSONTape, object: Int?, memberID: String?, location: RecordLocation,
        coordinates: Result<(lat: RawValue, lon: RawValue), RejectReason>? = nil,
        featureID: RawValue? = nil
    ) -> SourceRecord {
        mappedRecords += 1
        slotNode.fill(with: -1)
        slotRank.fill(with: .max)
        attributeMembers.removeAll(keepingCapacity: true)
        var k = object.map { $0 + 1 } ?? 0
        let end = object.map { Int(tape.node($0).next) } ?? 0
        var position = 0
        while k < end {
            let v = k + 1
            let (slot, rank) = resolve(tape.string(k).span, position: position)
            position += 1
            let usable = slot >= 0 && !(coordinates != nil && slot <= 1) && !(memberID != nil && slot == idSlot)
            if usable && rank < slotRank[slot] {
                if slotNode[slot] >= 0 { attributeMembers.append((slotNode[slot] - 1, slotNode[slot])) }
                slotNode[slot] = v
                slotRank[slot] = rank
            } else {
                attributeMembers.append((k, v))
            }
            k = Int(tape.node(v).next)
        }
        let attributeText = attributeText(tape)
        func value(_ slot: Int) -> RawValue {
            slotNode[slot] >= 0 ? JSONRecordMapper.rawValue(tape, slotNode[slot]) : .absent
        }

        var lat = value(0), lon = value(1)
        var coordinates = coordinates
        if pointGiven && coordinates == nil { coordinates = PointText.split(value(JSONRecordMapper.pointSlot)) }
        if let coordinates {
            switch coordinates {
            case .success(let c):
                lat = c.lat
                lon = c.lon
            case .failure(let reason):
                return .rejected(
                    reason, location: location, idHint: idText(tape, memberID: memberID, featureID: featureID))
            }
        }
        var idValue = value(idSlot)
        if let featureID, !featureID.isEmpty { idValue = featureID }
        // Checked first, then built: no `Result<Incident, …>` to take apart for every record (the
        // copy of the incident into the record remains).
        let checked: RecordBuilder.Checked
        switch RecordBuilder.check(lat: lat, lon: lon, time: timeValue(tape), times: times) {
        case .failure(let reason):
            return .rejected(reason, location: location, idHint: memberID ?? RecordBuilder.nonEmptyText(idValue))
        case .success(let c):
            checked = c
        }
        // A member name is the record's id unless it is empty or blank: then no id, as for fields.
        var key = RecordBuilder.nonEmptyText(idValue) ?? ""
        if var memberID, !memberID.withUTF8({ RawValue(kind: .text, bytes: $0).isEmpty }) { key = memberID }
        return .accepted(
            RecordBuilder.incident(
                checked, key: key, category: value(4), handled: value(5), description: value(6),
                user: value(7), attributes: attributeText, categories: categories))
    }

    private func slotValue(_ tape: JSONTape, _ slot: Int) -> RawValue {
        slotNode[slot] >= 0 ? JSONRecordMapper.rawValue(tape, slotNode[slot]) : .absent
    }

    /// The time member, or `DATE TIME` joined from two (SPEC §2.5; an absent TIME is empty).
    private func timeValue(_ tape: JSONTape) -> RawValue {
        guard joinsTime else { return slotValue(tape, 2) }
        return times.join(textual(slotValue(tape, 2)), textual(slotValue(tape, JSONRecordMapper.timePartSlot)))
    }

    /// JSON numbers join as their token text.
    private func textual(_ v: RawValue) -> RawValue {
        v.kind == .number ? RawValue(kind: .text, bytes: v.bytes) : v
    }

    /// The value behind a reject reason of the record last mapped (for a message).
    func currentValue(_ tape: JSONTape, for reason: RejectReason) -> String? {
        switch reason {
        case .missingTime, .invalidTime: return timeValue(tape).text
        case .missingCoordinates, .invalidCoordinates, .nullIsland:
            if pointGiven { return slotValue(tape, JSONRecordMapper.pointSlot).text }
            return "\(slotValue(tape, 0).text ?? ""), \(slotValue(tape, 1).text ?? "")"
        case .malformedRecord: return nil
        }
    }

    private func idText(_ tape: JSONTape, memberID: String?, featureID: RawValue?) -> String? {
        if let memberID { return memberID }
        if let featureID, !featureID.isEmpty { return featureID.text }
        return slotNode[idSlot] >= 0
            ? RecordBuilder.nonEmptyText(JSONRecordMapper.rawValue(tape, slotNode[idSlot])) : nil
    }

    /// Canonical attribute text: names in byte order, the first of equal names kept.
    private func attributeText(_ tape: JSONTape) -> String? {
        guard !attributeMembers.isEmpty else { return nil }
        attributes.reset()
        if attributeMembers.count > 1 {
            attributeMembers.sort { a, b in
                let x = tape.string(a.key), y = tape.string(b.key)
                if Bytes.equal(x.span, y.span) { return a.key < b.key }
                return Bytes.less(x.span, y.span)
            }
        }
        var previous: UnsafeBufferPointer<UInt8>?
        for (key, value) in attributeMembers {
            let name = tape.string(key)
            if let p = previous, Bytes.equal(p.span, name.span) { continue }
            previous = name
            attributes.add(name: name.span, value: JSONRecordMapper.rawValue(tape, value))
        }
        return attributes.finish()
    }

    /// Coordinates of a GeoJSON feature's geometry: null/absent → missing, not a Point with two
    /// numbers → invalid (SPEC §2.1 form 5).
    static func pointCoordinates(_ tape: JSONTape, feature: Int) -> Result<(lat: RawValue, lon: RawValue), RejectReason>
    {
        guard let geometry = member(tape, of: feature, named: "geometry"), tape.node(geometry).kind != .null else {
            return .failure(.missingCoordinates)
        }
        guard tape.node(geometry).kind == .object,
            let type = member(tape, of: geometry, named: "type"), tape.node(type).kind == .string,
            Bytes.equal(tape.string(type).span, "Point".utf8.span)
        else {
            return .failure(.invalidCoordinates)
        }
        guard let coords = member(tape, of: geometry, named: "coordinates"), tape.node(coords).kind == .array else {
            return .failure(.missingCoordinates)
        }
        // The first two elements, without an array of all of them.
        let end = Int(tape.node(coords).next)
        let first = coords + 1
        guard first < end else { return .failure(.missingCoordinates) }
        let second = Int(tape.node(first).next)
        guard second < end else { return .failure(.invalidCoordinates) }
        let lon = rawValue(tape, first), lat = rawValue(tape, second)
        guard lon.kind == .number || lon.kind == .text, lat.kind == .number || lat.kind == .text else {
            return .failure(lon.kind == .null || lat.kind == .null ? .missingCoordinates : .invalidCoordinates)
        }
        return .success((lat, lon))
    }

    /// The first member of an object with this exact name (no allocation: called a few times
    /// per GeoJSON feature).
    static func member(_ tape: JSONTape, of object: Int, named name: String) -> Int? {
        member(tape, of: object, bytes: name.utf8.span)
    }

    static func member(_ tape: JSONTape, of object: Int, bytes wanted: Span<UInt8>) -> Int? {
        var k = object + 1
        let end = Int(tape.node(object).next)
        while k < end {
            let v = k + 1
            if Bytes.equal(wanted, tape.string(k).span) { return v }
            k = Int(tape.node(v).next)
        }
        return nil
    }
}
