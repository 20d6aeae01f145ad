import AreaWatchCore

/// Readers of the query stage's auxiliary inputs: named areas (`--areas`) and points of
/// interest (`--poi`). Unlike incident files these are configuration: a bad feature is an input
/// error naming it, not a reject.
public enum FeatureReaders {
    /// Polygon / MultiPolygon features of a GeoJSON FeatureCollection, named by `idProperty`
    /// (falling back to the feature `id`, then to the feature's position).
    public static func areas(path: String, idProperty: String) throws(InputError) -> [NamedArea] {
        let (tape, bytes, features) = try featureCollection(path)
        defer { withExtendedLifetime(bytes) {} }
        var areas: [NamedArea] = []
        for (i, feature) in tape.elements(of: features).enumerated() {
            let position = "features[\(i)]"
            guard tape.node(feature).kind == .object,
                let geometry = JSONRecordMapper.member(tape, of: feature, named: "geometry"),
                tape.node(geometry).kind == .object,
                let type = JSONRecordMapper.member(tape, of: geometry, named: "type"),
                let coordinates = JSONRecordMapper.member(tape, of: geometry, named: "coordinates")
            else {
                throw InputError(file: path, position: position, message: "feature without a geometry")
            }
            let typeName = tape.node(type).kind == .string ? String(decoding: tape.string(type), as: UTF8.self) : ""
            var polygons: [GeoPolygon] = []
            switch typeName {
            case "Polygon":
                polygons = [try polygon(tape, coordinates, path: path, position: position)]
            case "MultiPolygon":
                guard tape.node(coordinates).kind == .array else {
                    throw InputError(
                        file: path, position: position, message: "MultiPolygon coordinates must be an array")
                }
                for part in tape.elements(of: coordinates) {
                    polygons.append(try polygon(tape, part, path: path, position: position))
                }
            default:
                throw InputError(
                    file: path, position: position,
                    message: "geometry type \"\(typeName)\" is not Polygon or MultiPolygon")
            }
            let area = NamedArea(
                id: name(tape, feature: feature, property: idProperty) ?? String(i), polygons: polygons)
            if let problem = area.problem { throw InputError(file: path, position: position, message: problem) }
            areas.append(area)
        }
        return areas
    }

    /// `properties[property]` of every feature of an areas file, in the order of `areas(path:idProperty:)`
    /// (SPEC §17): only a JSON number is a population; `null` or no member is `missing`, anything
    /// else (a string, even of digits, a boolean, an object) is `notNumeric`, never an error.
    public static func areaPopulations(path: String, property: String) throws(InputError) -> [AreaPopulation] {
        let (tape, bytes, features) = try featureCollection(path)
        defer { withExtendedLifetime(bytes) {} }
        return tape.elements(of: features).map { feature -> AreaPopulation in
            guard tape.node(feature).kind == .object,
                let properties = JSONRecordMapper.member(tape, of: feature, named: "properties"),
                tape.node(properties).kind == .object,
                let value = JSONRecordMapper.member(tape, of: properties, named: property)
            else { return .missing }
            let raw = JSONRecordMapper.rawValue(tape, value)
            switch raw.kind {
            case .null, .absent: return .missing
            case .number:
                guard let v = DecimalParsing.parse(raw.bytes.span), v.isFinite else { return .notNumeric }
                return .value(v)
            case .text, .boolean, .composite: return .notNumeric
            }
        }
    }

    /// The parsed file and its `features` array node; the bytes back the tape and must outlive it.
    private static func featureCollection(_ path: String) throws(InputError) -> (JSONTape, ByteBuffer, Int) {
        let (tape, bytes) = try parseWhole(path)
        guard tape.node(0).kind == .object,
            let features = JSONRecordMapper.member(tape, of: 0, named: "features"), tape.node(features).kind == .array
        else {
            throw InputError(file: path, message: "not a GeoJSON FeatureCollection (no \"features\" array)")
        }
        return (tape, bytes, features)
    }

    /// Points of interest: a CSV with a name column and latitude/longitude columns (SPEC §2.3
    /// names), or GeoJSON Point features with a `name` property.
    public static func pointsOfInterest(path: String) throws(InputError) -> [PointOfInterest] {
        let source = try ByteSource(path: path)
        let buffer = ChunkBuffer(source: source)
        try InputReader.skipBOM(buffer)
        var first: UInt8 = 0
        while buffer.end == buffer.start || isSpace(buffer[buffer.start]) {
            if buffer.start < buffer.end {
                buffer.release(upTo: buffer.start + 1)
                continue
            }
            guard try buffer.refill().more else { throw InputError(file: path, message: "empty file") }
        }
        first = buffer[buffer.start]
        if first == ASCII.openBrace { return try geoJSONPoints(path) }
        return try csvPoints(buffer, path: path)
    }

    private static func isSpace(_ b: UInt8) -> Bool {
        b == ASCII.space || b == ASCII.tab || b == ASCII.lf || b == ASCII.cr
    }

    private static func csvPoints(_ buffer: ChunkBuffer, path: String) throws(InputError) -> [PointOfInterest] {
        let scanner = CSVScanner(buffer: buffer, delimiter: 44, maxRecordBytes: 1 << 20)
        guard try scanner.next() else { throw InputError(file: path, message: "empty file") }
        let header = (0..<scanner.fieldCount).map { String(decoding: scanner.field($0), as: UTF8.self).trimming() }
        let assignment = FieldAssignment(names: header, overrides: ColumnOverrides())
        let normalized = header.map(normalizedName)
        guard assignment.hasCoordinates,
            let nameColumn = normalized.firstIndex(of: "name") ?? normalized.firstIndex(of: "id")
                ?? assignment.attributeColumns.first
        else {
            throw InputError(
                file: path, position: "line 1", message: "a POI file needs name, latitude and longitude columns")
        }
        var points: [PointOfInterest] = []
        while try scanner.next() {
            guard scanner.fieldCount == header.count, !scanner.quotingError,
                let lat = DecimalParsing.parse(
                    RawValue(kind: .text, bytes: scanner.field(assignment.column(.lat))).trimmed.span),
                let lon = DecimalParsing.parse(
                    RawValue(kind: .text, bytes: scanner.field(assignment.column(.lon))).trimmed.span),
                (-90...90).contains(lat), (-180...180).contains(lon)
            else {
                throw InputError(
                    file: path, position: "line \(scanner.recordLine)",
                    message: "not a point of interest with valid coordinates")
            }
            points.append(
                PointOfInterest(name: String(decoding: scanner.field(nameColumn), as: UTF8.self), lat: lat, lon: lon))
        }
        return points
    }

    private static func geoJSONPoints(_ path: String) throws(InputError) -> [PointOfInterest] {
        let (tape, bytes) = try parseWhole(path)
        defer { withExtendedLifetime(bytes) {} }
        guard let features = JSONRecordMapper.member(tape, of: 0, named: "features"), tape.node(features).kind == .array
        else {
            throw InputError(file: path, message: "not a GeoJSON FeatureCollection (no \"features\" array)")
        }
        var points: [PointOfInterest] = []
        for (i, feature) in tape.elements(of: features).enumerated() {
            guard tape.node(feature).kind == .object,
                case .success(let c) = JSONRecordMapper.pointCoordinates(tape, feature: feature),
                let lat = RecordBuilder.coordinate(c.lat), let lon = RecordBuilder.coordinate(c.lon),
                (-90...90).contains(lat), (-180...180).contains(lon)
            else {
                throw InputError(
                    file: path, position: "features[\(i)]", message: "not a Point feature with valid coordinates")
            }
            points.append(
                PointOfInterest(name: name(tape, feature: feature, property: "name") ?? String(i), lat: lat, lon: lon))
        }
        return points
    }

    /// The feature's `properties[property]`, else its `id`, as text.
    private static func name(_ tape: JSONTape, feature: Int, property: String) -> String? {
        if let properties = JSONRecordMapper.member(tape, of: feature, named: "properties"),
            tape.node(properties).kind == .object,
            let value = JSONRecordMapper.member(tape, of: properties, named: property)
        {
            let raw = JSONRecordMapper.rawValue(tape, value)
            if !raw.isEmpty { return raw.text }
        }
        if let id = JSONRecordMapper.member(tape, of: feature, named: "id") {
            let raw = JSONRecordMapper.rawValue(tape, id)
            if !raw.isEmpty { return raw.text }
        }
        return nil
    }

    private static func polygon(_ tape: JSONTape, _ node: Int, path: String, position: String) throws(InputError)
        -> GeoPolygon
    {
        guard tape.node(node).kind == .array else {
            throw InputError(file: path, position: position, message: "polygon coordinates must be an array of rings")
        }
        var rings: [[(lon: Double, lat: Double)]] = []
        for ring in tape.elements(of: node) {
            guard tape.node(ring).kind == .array else {
                throw InputError(
                    file: path, position: position, message: "a polygon ring must be an array of positions")
            }
            var points: [(lon: Double, lat: Double)] = []
            for point in tape.elements(of: ring) {
                let xy = tape.node(point).kind == .array ? tape.elements(of: point) : []
                guard xy.count >= 2, tape.node(xy[0]).kind == .number, tape.node(xy[1]).kind == .number,
                    let lon = DecimalParsing.parse(tape.rawBytes(xy[0]).span),
                    let lat = DecimalParsing.parse(tape.rawBytes(xy[1]).span),
                    lon.isFinite, lat.isFinite
                else {
                    throw InputError(file: path, position: position, message: "a ring position must be [lon, lat]")
                }
                points.append((lon, lat))
            }
            guard points.count >= 3 else {
                throw InputError(file: path, position: position, message: "a polygon ring needs at least 3 positions")
            }
            rings.append(points)
        }
        guard !rings.isEmpty else { throw InputError(file: path, position: position, message: "polygon without rings") }
        return GeoPolygon(rings: rings)
    }

    /// A whole (small) JSON file on a tape.
    /// The tape reads its strings from the returned bytes: keep both alive together.
    private static func parseWhole(_ path: String) throws(InputError) -> (JSONTape, ByteBuffer) {
        let source = try ByteSource(path: path)
        let bytes = ByteBuffer(capacity: 1 << 20)
        // Read straight into the buffer's spare room: no chunk copied twice.
        while try bytes.append(
            readingAtMost: 1 << 20,
            { room throws(InputError) in
                try source.read(into: room.baseAddress!, capacity: room.count)
            }) > 0
        {
            if bytes.count > 1 << 30 { throw InputError(file: path, message: "larger than 1 GiB") }
        }
        if bytes.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        let tape = JSONTape()
        let failure = tape.parse(bytes.bytes, maxDepth: 64)
        if let failure {
            throw InputError(file: path, message: failure == .truncated ? "truncated JSON" : "not valid JSON")
        }
        return (tape, bytes)
    }
}
