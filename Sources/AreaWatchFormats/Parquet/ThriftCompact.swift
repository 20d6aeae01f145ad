/// The part of the Thrift compact protocol that a Parquet footer and page headers need:
/// structs, i32/i64 (zigzag varints), bool, binary/string, lists, field-id deltas and stop.
///
/// A field header is one byte `(delta << 4) | type` when the id is 1…15 above the previous
/// field's id in the same struct, else the type byte followed by the id as a zigzag varint.
/// Each struct (a field or a list element) starts counting ids from 0 again and ends with a
/// stop byte (0); the enclosing struct's count resumes after it.
struct ThriftCompactWriter {
    /// The compact protocol's type codes of a field header or a list element.
    enum FieldType: UInt8 {
        case boolTrue = 1, boolFalse = 2, byte = 3, i16 = 4, i32 = 5, i64 = 6, double = 7
        case binary = 8, list = 9, set = 10, map = 11, structure = 12
    }

    private(set) var bytes: [UInt8] = []
    private var lastFieldID: Int16 = 0
    private var enclosing: [Int16] = []

    init() {}

    // MARK: Primitive encodings

    /// Unsigned LEB128: seven bits per byte, low groups first, high bit set on all but the last.
    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// Zigzag maps signed to unsigned so small magnitudes stay small: 0→0, −1→1, 1→2, −2→3.
    static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    // MARK: Fields

    mutating func fieldHeader(_ id: Int16, _ type: FieldType) {
        let delta = Int(id) - Int(lastFieldID)
        if delta > 0 && delta <= 15 {
            bytes.append(UInt8(delta << 4) | type.rawValue)
        } else {
            bytes.append(type.rawValue)
            Self.appendVarint(Self.zigzag(Int64(id)), to: &bytes)
        }
        lastFieldID = id
    }

    mutating func i16(_ id: Int16, _ value: Int16) {
        fieldHeader(id, .i16)
        Self.appendVarint(Self.zigzag(Int64(value)), to: &bytes)
    }

    mutating func i32(_ id: Int16, _ value: Int32) {
        fieldHeader(id, .i32)
        Self.appendVarint(Self.zigzag(Int64(value)), to: &bytes)
    }

    mutating func i64(_ id: Int16, _ value: Int64) {
        fieldHeader(id, .i64)
        Self.appendVarint(Self.zigzag(value), to: &bytes)
    }

    /// A bool field carries its value in the header's type nibble.
    mutating func bool(_ id: Int16, _ value: Bool) {
        fieldHeader(id, value ? .boolTrue : .boolFalse)
    }

    mutating func binary(_ id: Int16, _ value: [UInt8]) {
        fieldHeader(id, .binary)
        appendBinary(value)
    }

    mutating func string(_ id: Int16, _ value: String) {
        binary(id, Array(value.utf8))
    }

    /// A struct-typed field: `body` writes its fields.
    mutating func structure(_ id: Int16, _ body: (inout ThriftCompactWriter) -> Void) {
        fieldHeader(id, .structure)
        structBody(body)
    }

    /// The stop byte that ends the outermost struct (nested ones end themselves).
    mutating func stop() {
        bytes.append(0)
    }

    // MARK: Lists

    /// A list header: `(size << 4) | type` for fewer than 15 elements, else `0xF0 | type` and
    /// the size as a varint.
    mutating func listHeader(_ id: Int16, _ element: FieldType, count: Int) {
        fieldHeader(id, .list)
        if count < 15 {
            bytes.append(UInt8(count << 4) | element.rawValue)
        } else {
            bytes.append(0xF0 | element.rawValue)
            Self.appendVarint(UInt64(count), to: &bytes)
        }
    }

    mutating func i32List(_ id: Int16, _ values: [Int32]) {
        listHeader(id, .i32, count: values.count)
        for v in values { Self.appendVarint(Self.zigzag(Int64(v)), to: &bytes) }
    }

    mutating func stringList(_ id: Int16, _ values: [String]) {
        listHeader(id, .binary, count: values.count)
        for v in values { appendBinary(Array(v.utf8)) }
    }

    /// A list of structs, `body(element, writer)` writing each one's fields.
    mutating func structList<T>(_ id: Int16, _ elements: [T], _ body: (T, inout ThriftCompactWriter) -> Void) {
        listHeader(id, .structure, count: elements.count)
        for element in elements { structBody { body(element, &$0) } }
    }

    // MARK: Private

    private mutating func appendBinary(_ value: [UInt8]) {
        Self.appendVarint(UInt64(value.count), to: &bytes)
        bytes.append(contentsOf: value)
    }

    private mutating func structBody(_ body: (inout ThriftCompactWriter) -> Void) {
        enclosing.append(lastFieldID)
        lastFieldID = 0
        body(&self)
        bytes.append(0)
        lastFieldID = enclosing.removeLast()
    }
}
