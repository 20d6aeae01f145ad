import AreaWatchCore
import Glibc

/// The inbox's files for the nightly job. The inbox is where other parties drop files, so its
/// entries are examined with `lstat` and never trusted: a symbolic link is followed only when it
/// resolves inside the inbox (or the config allows links out, `follow_links_outside`), folders
/// already on the way down are not entered again (a link loop ends the branch, it does not hang
/// the job), and the walk goes at most `maxDepth` folders deep. It enters only folders that
/// some pattern could match below, and every entry a pattern would have taken but the walk
/// could not is listed with its reason (`skipped`): a link skipped is news, a file no pattern
/// names is not.
struct InboxWalk {
    struct Skipped: Equatable {
        /// The entry's path as the inbox shows it (inbox folder, then the relative path).
        var path: String
        var reason: String
    }

    /// Folders below the inbox the walk goes into; deeper ones are skipped with a reason.
    static let maxDepth = 32

    let folder: String
    let include: [InboxPattern]
    let followLinksOutside: Bool

    private(set) var files: [String] = []
    private(set) var skipped: [Skipped] = []
    /// The real path of the inbox folder: a link is inside when its target lies below it.
    private var realFolder = ""
    /// Folders entered through a link, by identity, with the link's path (each link target once).
    private var linkedFolders: [FileIdentity: String] = [:]

    init(folder: String, include: [InboxPattern], followLinksOutside: Bool) {
        self.folder = folder
        self.include = include
        self.followLinksOutside = followLinksOutside
    }

    /// Walks the inbox: `files` sorted by path, `skipped` in walk order.
    mutating func run() throws {
        var info = stat()
        guard stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, let real = realpath(folder, nil) else {
            throw JobError(.inputOrStore, "\(folder): the inbox folder does not exist")
        }
        realFolder = String(cString: real)
        free(real)
        guard InboxWalk.entries(of: folder) != nil else {
            let reason = String(cString: strerror(errno))
            throw JobError(.inputOrStore, "\(folder): the inbox folder cannot be read (\(reason))")
        }
        walk([], ancestors: [FileIdentity(info)])
        files.sort()
    }

    private func path(_ relative: [String]) -> String {
        relative.isEmpty ? folder : folder + "/" + relative.joined(separator: "/")
    }

    private func matches(_ relative: [String]) -> Bool { include.contains { $0.matches(relative) } }
    private func mayHoldMatches(_ relative: [String]) -> Bool { include.contains { $0.couldMatch(below: relative) } }

    /// One folder's entries, in name order. `ancestors`: the folders from the inbox down to this
    /// one, by identity (a folder among them reached again is a loop).
    private mutating func walk(_ relative: [String], ancestors: [FileIdentity]) {
        guard let names = InboxWalk.entries(of: path(relative)) else {
            skip(relative, "cannot be read: \(String(cString: strerror(errno)))")
            return
        }
        for name in names {
            let child = relative + [name]
            var info = stat()
            guard lstat(path(child), &info) == 0 else { continue } // gone since the listing
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                if matches(child) { files.append(path(child)) }
            case S_IFDIR:
                guard mayHoldMatches(child) else { continue }
                enter(child, FileIdentity(info), ancestors: ancestors, throughLink: false)
            case S_IFLNK:
                follow(child, ancestors: ancestors)
            default:
                if matches(child) { skip(child, "not a regular file (\(InboxWalk.kind(info.st_mode)))") }
            }
        }
    }

    /// A folder met on the walk, by its own name or through a link.
    private mutating func enter(
        _ relative: [String], _ identity: FileIdentity, ancestors: [FileIdentity],
        throughLink: Bool
    ) {
        if let loop = ancestors.firstIndex(of: identity) {
            let target = loop == 0 ? "the inbox folder itself" : "its own folder \(path(Array(relative.prefix(loop))))"
            skip(relative, "a loop: it leads back to \(target)")
            return
        }
        if relative.count > InboxWalk.maxDepth {
            skip(relative, "more than \(InboxWalk.maxDepth) folders below the inbox")
            return
        }
        if throughLink {
            if let earlier = linkedFolders[identity] {
                skip(relative, "a link to a folder already walked through \(earlier)")
                return
            }
            linkedFolders[identity] = path(relative)
        }
        walk(relative, ancestors: ancestors + [identity])
    }

    /// A symbolic link: followed when its target lies inside the inbox (or links out are allowed).
    private mutating func follow(_ relative: [String], ancestors: [FileIdentity]) {
        let asFile = matches(relative), asFolder = mayHoldMatches(relative)
        guard asFile || asFolder else { return }
        guard let resolved = realpath(path(relative), nil) else {
            let error = errno
            switch error {
            case ENOENT: skip(relative, "a dangling link (its target does not exist)")
            case ELOOP: skip(relative, "a loop of links")
            default: skip(relative, "a link that cannot be followed: \(String(cString: strerror(error)))")
            }
            return
        }
        let target = String(cString: resolved)
        free(resolved)
        let inside = realFolder == "/" || target == realFolder || target.hasPrefix(realFolder + "/")
        guard inside || followLinksOutside else {
            skip(relative, "a link to outside the inbox (not followed; [inbox] follow_links_outside = true follows it)")
            return
        }
        var info = stat()
        guard stat(target, &info) == 0 else {
            skip(relative, "a link that cannot be followed: \(String(cString: strerror(errno)))")
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            if asFile { files.append(path(relative)) }
        case S_IFDIR:
            if asFolder { enter(relative, FileIdentity(info), ancestors: ancestors, throughLink: true) }
        default:
            if asFile { skip(relative, "a link to what is not a regular file (\(InboxWalk.kind(info.st_mode)))") }
        }
    }

    private mutating func skip(_ relative: [String], _ reason: String) {
        skipped.append(Skipped(path: path(relative), reason: reason))
    }

    /// A folder's entry names (without `.` and `..`), sorted; nil when it cannot be opened.
    private static func entries(of path: String) -> [String]? {
        DirectoryListing.entries(of: path)?.map(\.name).sorted()
    }

    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFDIR: return "a folder"
        default: return "of an unknown kind"
        }
    }
}

/// A file's identity on this machine: device and inode.
struct FileIdentity: Hashable {
    let device: UInt64
    let inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
