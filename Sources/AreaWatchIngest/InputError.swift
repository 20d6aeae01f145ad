/// A file that cannot be ingested at all (SPEC §3 "input error"): not CSV or JSON, unreadable,
/// or truncated mid-structure. Nothing of the file is kept; the command exits 2.
public struct InputError: Error, Sendable, Equatable, CustomStringConvertible {
    public let file: String
    /// Where the problem is, e.g. `line 12, column 4` or `byte 1048576`; empty when the file as
    /// a whole is the problem.
    public let position: String
    public let message: String

    public init(file: String, position: String = "", message: String) {
        self.file = file
        self.position = position
        self.message = message
    }

    /// One line: `FILE: POSITION: MESSAGE`.
    public var description: String {
        position.isEmpty ? "\(file): \(message)" : "\(file): \(position): \(message)"
    }
}
