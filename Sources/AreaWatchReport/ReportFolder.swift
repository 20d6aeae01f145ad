import Glibc

/// `--out DIR` is refused: replacing it could delete what areawatch did not write (SPEC §8).
public struct ReportFolderRefused: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String

    public var description: String { "refusing to replace \(path): \(reason); nothing was changed" }
}

/// Which folders a report may replace (SPEC §8): one that does not exist, an empty one, or a
/// report folder areawatch wrote — it carries the marker file and holds nothing but what a report
/// writes. Never a folder whose replacement would remove the store, an inbox, a rejects file or
/// an input: neither DIR itself nor the folders publishing DIR removes or renames (`.DIR.spare`,
/// `.DIR.tmp-*`) may hold one.
public enum ReportFolder {
    /// Written first into every report folder.
    public static let markerName = ".areawatch-report"
    static let markerText = "Written by areawatch: this folder is replaced whole by the next report written to it.\n"

    /// The files a report writes at the top of its folder; below it only `tiles/` (`isReportEntry`).
    static let topFiles: Set<String> = [
        markerName, "grid.geojson", "grid.csv", "grid.csvt", "grid.prj", "areas.geojson", "areas.csv", "poi.csv",
        "breakdown.csv", "grid.pmtiles", "ehsa.csv", "ehsa.prj", "ehsa.geojson", "nearrepeat.csv", "summary.json",
        "report.html", "timeseries.csv",
        "grid.parquet", "areas.parquet", "ehsa.parquet", "grid.gpkg"
    ]

    /// Throws `ReportFolderRefused` unless `path` may be replaced; `protected` are paths (files
    /// or folders, existing or not) that must not be inside it, its spare or its work folders.
    public static func checkReplaceable(_ given: String, protecting protected: [String]) throws {
        try checkProtected(given, protecting: protected)
        // Without the trailing slash: `lstat("link/")` would follow a link.
        let path = trimmed(given)
        var info = stat()
        guard lstat(path, &info) == 0 else { return } // absent: created
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw ReportFolderRefused(
                path: path,
                reason: (info.st_mode & S_IFMT) == S_IFLNK
                    ? "it is a symbolic link, not a report folder" : "it is not a folder")
        }
        let (folders, others) = AtomicDirectory.tree(path)
        if folders.isEmpty && others.isEmpty { return }
        guard lstat(path + "/" + markerName, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw ReportFolderRefused(
                path: path,
                reason: "it is not empty and is not a report folder areawatch wrote "
                    + "(no \(markerName) marker file); choose a new or empty folder")
        }
        if let foreign = firstForeignEntry(folders: folders, others: others) {
            throw ReportFolderRefused(
                path: path,
                reason: "it holds \(foreign), which areawatch does not write; "
                    + "move it out of the folder or choose another folder")
        }
    }

    /// The protected-path part of `checkReplaceable`: no protected path may be DIR, `.DIR.spare`,
    /// a `.DIR.tmp-*` work folder, or anything inside one of them (compared with links resolved).
    static func checkProtected(_ path: String, protecting protected: [String]) throws {
        let target = canonical(trimmed(path))
        let (parent, name) = AtomicDirectory.split(target)
        let parentPrefix = parent == "/" ? "/" : parent + "/"
        for p in protected where !p.isEmpty {
            let c = canonical(p)
            if c == target || c.hasPrefix(target == "/" ? "/" : target + "/") {
                throw ReportFolderRefused(path: path, reason: "it holds \(p)")
            }
            guard c.hasPrefix(parentPrefix) else { continue }
            let child = c.dropFirst(parentPrefix.count).prefix { $0 != "/" }
            if child == "." + name + ".spare" || child.hasPrefix("." + name + ".tmp-") {
                throw ReportFolderRefused(
                    path: path,
                    reason: "\(p) is inside \(parentPrefix)\(child), which publishing the report replaces "
                        + "or removes")
            }
        }
    }

    /// Whether `relative` (a path inside a report folder) names a file a report writes: one of
    /// `topFiles`, `tiles/tilejson.json` or a tile `tiles/Z/X/Y.json`.
    static func isReportFile(_ relative: String) -> Bool {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return topFiles.contains(relative)
        case 2: return parts[0] == "tiles" && parts[1] == "tilejson.json"
        case 4:
            return parts[0] == "tiles" && isNumber(parts[1]) && isNumber(parts[2]) && parts[3].hasSuffix(".json")
                && isNumber(parts[3].dropLast(5))
        default: return false
        }
    }

    /// Whether `relative` names a folder a report writes: `tiles`, `tiles/Z`, `tiles/Z/X`.
    static func isReportFolder(_ relative: String) -> Bool {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        return parts[0] == "tiles" && parts.count <= 3 && parts.dropFirst().allSatisfy(isNumber)
    }

    private static func isNumber(_ text: Substring) -> Bool {
        !text.isEmpty && text.count <= 10 && text.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }

    /// The first entry of a tree (`AtomicDirectory.tree`) that a report does not write, or nil.
    /// Names decide: a link or special file under a report file's name is not areawatch's
    /// either, but unlinking it loses no data (it is unlinked, never written through).
    static func firstForeignEntry(folders: [String], others: [String]) -> String? {
        folders.first { !isReportFolder($0) } ?? others.first { !isReportFile($0) }
    }

    /// Whether a leftover work folder (`.NAME.tmp-PID`) holds nothing but report files (marked
    /// or not: the marker may be missing in one whose making or removal was cut short).
    static func isReportWork(_ path: String) -> Bool {
        let (folders, others) = AtomicDirectory.tree(path)
        return firstForeignEntry(folders: folders, others: others) == nil
    }

    /// The marker's content (a work folder gets it before anything else).
    static func writeMarker(into folder: String) throws {
        try BufferedFile.write(markerText, to: folder + "/" + markerName)
    }

    static func trimmed(_ path: String) -> String {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }

    /// Absolute path with links resolved as far as the path exists (`realpath` of the longest
    /// existing prefix, then the rest as written).
    public static func canonical(_ path: String) -> String {
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
}
