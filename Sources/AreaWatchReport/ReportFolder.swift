import Glibc

/// `--out DIR` is refused: replacing it could delete what areawatch did not write (SPEC §8).
public struct ReportFolderRefused: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String

    public var description: String { "refusing to replace \(path): \(reason); nothing was changed" }
}

/// Which folders a report may replace (SPEC §8): one that does not exist, an empty one, or a
/// report folder areawatch wrote — it carries the marker file. Never a folder that holds the
/// store, an inbox, a rejects file or an input, whatever it carries.
public enum ReportFolder {
    /// Written first into every report folder.
    public static let markerName = ".areawatch-report"
    static let markerText = "Written by areawatch: this folder is replaced whole by the next report written to it.\n"

    /// Report folders of versions before the marker: only files areawatch writes, and its summary.
    static let legacyEntries: Set<String> = [
        "grid.geojson", "grid.csv", "grid.csvt", "areas.geojson", "areas.csv", "poi.csv", "breakdown.csv",
        "tiles", "grid.pmtiles", "ehsa.csv", "ehsa.geojson", "summary.json", "report.html",
    ]

    /// Throws `ReportFolderRefused` unless `path` may be replaced; `protected` are paths (files
    /// or folders, existing or not) that must not be inside it or equal to it.
    public static func checkReplaceable(_ path: String, protecting protected: [String]) throws {
        let target = canonical(path)
        for p in protected where !p.isEmpty {
            let c = canonical(p)
            if c == target || c.hasPrefix(target == "/" ? "/" : target + "/") {
                throw ReportFolderRefused(path: path, reason: "it holds \(p)")
            }
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { return }  // absent: created
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw ReportFolderRefused(path: path, reason: (info.st_mode & S_IFMT) == S_IFLNK
                                      ? "it is a symbolic link, not a report folder" : "it is not a folder")
        }
        let entries = entryNames(path)
        if entries.isEmpty || entries.contains(markerName) { return }
        if entries.contains("summary.json"), entries.allSatisfy({ legacyEntries.contains($0) }) { return }
        throw ReportFolderRefused(
            path: path, reason: "it is not empty and is not a report folder areawatch wrote (no \(markerName) marker); "
                + "choose a new or empty folder")
    }

    /// Whether a leftover work folder (`.NAME.tmp-PID`) is areawatch's: empty, marked, or holding
    /// only report files (an earlier version's, or one whose removal was cut short).
    static func isReportWork(_ path: String) -> Bool {
        let entries = entryNames(path)
        return entries.contains(markerName) || entries.allSatisfy { legacyEntries.contains($0) }
    }

    /// The marker's content (a work folder gets it before anything else).
    static func writeMarker(into folder: String) throws {
        try BufferedFile.write(markerText, to: folder + "/" + markerName)
    }

    /// Absolute path with links resolved as far as the path exists (`realpath` of the longest
    /// existing prefix, then the rest as written).
    static func canonical(_ path: String) -> String {
        var existing = path.isEmpty ? "." : path
        var rest: [String] = []
        while true {
            if let resolved = realpath(existing, nil) {
                defer { free(resolved) }
                var result = String(cString: resolved)
                for part in rest.reversed() where part != "." && !part.isEmpty {
                    if part == ".." {
                        result = AtomicDirectory.split(result).parent
                    } else {
                        result += (result.hasSuffix("/") ? "" : "/") + part
                    }
                }
                return result
            }
            let (parent, name) = AtomicDirectory.split(existing)
            rest.append(name)
            if parent == existing { return path }
            existing = parent
        }
    }

    static func entryNames(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
