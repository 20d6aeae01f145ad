import Glibc

/// A glob of the nightly job's inbox (`include`, `[[inbox.files]] pattern`; docs/CONFIG.md,
/// "Patterns"): a path relative to the inbox folder with `/` between folders. Within one name
/// `*`, `?`, `[…]` and `\` mean what fnmatch(3) makes of them (`*` never crosses a `/`, and it
/// matches names starting with `.` too); a whole component `**` matches any number of folders,
/// none included. A pattern that can never match a path of the walk is refused when the config
/// is read, never accepted to match nothing.
public struct InboxPattern: Sendable, Equatable, CustomStringConvertible {
    public let text: String
    /// The components between `/`; `**` stands for any run of names.
    let components: [String]

    /// Deeper patterns could only match paths the walk never reaches (`InboxWalk.maxDepth`).
    static let maxComponents = 64
    static let maxBytes = 4096

    public init(_ text: String) throws(InboxPatternError) {
        if let problem = InboxPattern.problem(in: text) { throw InboxPatternError(pattern: text, problem: problem) }
        self.text = text
        components = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    }

    public var description: String { text }

    /// Why `text` can never match an inbox path, or nil when it can.
    static func problem(in text: String) -> String? {
        if text.isEmpty { return "an empty pattern matches no file" }
        if text.utf8.count > maxBytes { return "longer than \(maxBytes) bytes" }
        if text.utf8.contains(0) { return "holds a NUL byte" }
        if text.hasPrefix("/") { return "an absolute path: patterns are relative to the inbox folder" }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count > maxComponents { return "more than \(maxComponents) names deep" }
        for part in parts {
            switch part {
            case "": return "an empty name (`//`, or `/` at the end): it matches no file"
            case "..": return "`..` leads out of the inbox: patterns name files inside it"
            case ".": return "a `.` name matches no path (paths in the inbox are written without `./`)"
            default: if let problem = malformed(part) { return problem }
            }
        }
        return nil
    }

    /// A bracket expression left open or a trailing `\` (fnmatch would read both as plain
    /// characters, which is never what was meant).
    private static func malformed(_ name: Substring) -> String? {
        let bytes = Array(name.utf8)
        var i = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "\\"):
                guard i + 1 < bytes.count else { return "ends in `\\`, which escapes nothing" }
                i += 2
            case UInt8(ascii: "["):
                guard let end = bracketEnd(bytes, from: i) else { return "a `[` that is never closed by `]`" }
                if let problem = bracketProblem(bytes[(i + 1)..<end]) { return problem }
                i = end + 1
            default:
                i += 1
            }
        }
        return nil
    }

    /// The index of the `]` closing the bracket expression that opens at `start`, or nil. A `]`
    /// right after `[` (or `[!`, `[^`) is a member; `[:class:]` and the like are skipped whole.
    private static func bracketEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var i = start + 1
        if i < bytes.count && (bytes[i] == UInt8(ascii: "!") || bytes[i] == UInt8(ascii: "^")) { i += 1 }
        if i < bytes.count && bytes[i] == UInt8(ascii: "]") { i += 1 }
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "]"):
                return i
            case UInt8(ascii: "\\"):
                i += 2
            case UInt8(ascii: "[") where i + 1 < bytes.count && ":.=".utf8.contains(bytes[i + 1]):
                let kind = bytes[i + 1]
                var j = i + 2
                while j + 1 < bytes.count && !(bytes[j] == kind && bytes[j + 1] == UInt8(ascii: "]")) { j += 1 }
                guard j + 1 < bytes.count else { return nil }
                i = j + 2
            default:
                i += 1
            }
        }
        return nil
    }

    /// An unknown `[:class:]` name inside a bracket expression (fnmatch fails on it).
    private static func bracketProblem(_ inside: ArraySlice<UInt8>) -> String? {
        let text = String(decoding: inside, as: UTF8.self)
        var rest = Substring(text)
        while let open = rest.firstRange(of: "[:") {
            guard let close = rest[open.upperBound...].firstRange(of: ":]") else { break }
            let name = String(rest[open.upperBound..<close.lowerBound])
            if !characterClasses.contains(name) { return "an unknown character class `[:\(name):]`" }
            rest = rest[close.upperBound...]
        }
        return nil
    }

    private static let characterClasses: Set<String> = [
        "alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "xdigit"
    ]

    // MARK: - Matching

    /// Whether the path (its names, from the inbox folder down) matches.
    func matches(_ path: [String]) -> Bool {
        states(after: path).contains(components.count)
    }

    /// Whether some path below the folder `path` could match: the walk enters only such folders.
    func couldMatch(below path: [String]) -> Bool {
        states(after: path).contains { $0 < components.count }
    }

    /// The pattern positions reachable after matching `path` name by name (a set of indices
    /// into `components`; `components.count` means all matched). Linear in the path: no
    /// backtracking whatever the number of `**`.
    private func states(after path: [String]) -> Set<Int> {
        var current = closure([0])
        for name in path {
            var next: Set<Int> = []
            for i in current where i < components.count {
                if components[i] == "**" {
                    next.insert(i)
                    // A trailing `**` matches everything below its folder: one name or more.
                    if i == components.count - 1 { next.insert(i + 1) }
                } else if fnmatch(components[i], name, 0) == 0 {
                    next.insert(i + 1)
                }
            }
            current = closure(next)
            if current.isEmpty { break }
        }
        return current
    }

    /// `states` plus, for every `**` reached before the last component, the position after it
    /// (no folder matched: `a/**/b.csv` matches `a/b.csv`).
    private func closure(_ states: Set<Int>) -> Set<Int> {
        var result = states
        var pending = Array(states)
        while let i = pending.popLast() {
            if i < components.count - 1 && components[i] == "**" && result.insert(i + 1).inserted {
                pending.append(i + 1)
            }
        }
        return result
    }
}

/// A pattern refused when the config is read (a usage error naming it).
public struct InboxPatternError: Error, Sendable, CustomStringConvertible {
    public let pattern: String
    public let problem: String

    public var description: String { "pattern \"\(pattern)\": \(problem)" }
}
