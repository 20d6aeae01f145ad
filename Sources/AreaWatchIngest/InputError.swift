/// A file that cannot be ingested at all (SPEC §3 "input error"): not CSV or JSON, unreadable,
/// or truncated mid-structure. Nothing of the file is kept; the command exits 2.
public struct InputError: Error, Sendable, Equatable, CustomStringConvertible {
    public let file: String
    /// Where the problem is, e.g. `line 12, column 4` or `byte 1048576`; empty when the file as
    /// a whole is the problem.
    public let position: String
    public let message: String
    /// The options, not the file, are at fault: a `--column` mapping names a column or member
    /// the file does not have. Nothing of the file is kept either way; the command exits 1
    /// (SPEC §11, usage) instead of 2.
    public let isUsage: Bool

    public init(file: String, position: String = "", message: String, isUsage: Bool = false) {
        self.file = file
        self.position = position
        self.message = message
        self.isUsage = isUsage
    }

    /// One line: `FILE: POSITION: MESSAGE`, with line breaks and other control characters of the
    /// file name or of input text quoted in the message written as escapes.
    public var description: String {
        InputError.oneLine(position.isEmpty ? "\(file): \(message)" : "\(file): \(position): \(message)")
    }

    static func oneLine(_ text: String) -> String {
        func isBreaking(_ u: Unicode.Scalar) -> Bool {
            (u.value < 0x20 && u != "\t") || u.value == 0x7F || u.value == 0x85 || u.value == 0x2028
                || u.value == 0x2029
        }
        guard text.unicodeScalars.contains(where: isBreaking) else { return text }
        var out = String.UnicodeScalarView()
        for u in text.unicodeScalars {
            switch u {
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\r": out.append(contentsOf: "\\r".unicodeScalars)
            case _ where isBreaking(u):
                out.append(contentsOf: "\\u{\(String(u.value, radix: 16, uppercase: true))}".unicodeScalars)
            default: out.append(u)
            }
        }
        return String(out)
    }
}
