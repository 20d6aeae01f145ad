import Glibc

/// A folder's entries as `readdir(3)` gives them, without `.` and `..`, in no particular order:
/// the one loop over `readdir` (every caller sorts or filters what it needs).
public enum DirectoryListing {
    /// An entry: its name, and its kind as the folder records it (`DT_UNKNOWN` on file systems
    /// that do not record it: ask `lstat` then).
    public struct Entry: Sendable, Equatable {
        public let name: String
        public let type: UInt8

        /// A folder (not a link to one), when the folder records kinds.
        public var isFolder: Bool { type == UInt8(DT_DIR) }
        /// The folder does not record this entry's kind.
        public var kindUnknown: Bool { type == UInt8(DT_UNKNOWN) }
    }

    /// The entries of the folder at `path`; nil when it cannot be opened.
    public static func entries(of path: String) -> [Entry]? {
        guard let dir = opendir(path) else { return nil }
        return read(dir)
    }

    /// The entries of the folder open as `descriptor`, which the listing takes over (and closes);
    /// nil when it is not a readable folder.
    public static func entries(ofDescriptor descriptor: Int32) -> [Entry]? {
        guard let dir = fdopendir(descriptor) else {
            close(descriptor)
            return nil
        }
        return read(dir)
    }

    /// The entry names of the folder at `path`; empty when it cannot be opened.
    public static func names(of path: String) -> [String] {
        entries(of: path)?.map(\.name) ?? []
    }

    private static func read(_ dir: OpaquePointer) -> [Entry] {
        defer { closedir(dir) }
        var out: [Entry] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { out.append(Entry(name: name, type: entry.pointee.d_type)) }
        }
        return out
    }
}
