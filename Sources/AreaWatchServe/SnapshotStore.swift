import Foundation
import Synchronization

/// The current snapshot of DIR, replaced whole when a new report folder is published in DIR's
/// place. `refresh()` compares DIR's identity (two `stat`s) with the snapshot's and, when it
/// changed, loads the new folder fully before swapping it in; requests meanwhile keep the old one.
public final class SnapshotStore: Sendable {
    public let folder: String
    private let state: Mutex<(snapshot: ReportSnapshot, lastFailure: String?)>

    public init(folder: String) throws {
        self.folder = folder
        state = Mutex((try Self.loadStable(folder), nil))
    }

    public var current: ReportSnapshot {
        state.withLock { $0.snapshot }
    }

    /// Loads DIR again if it now names another folder; returns a message to log when the check
    /// found a new generation or a problem (each problem once). Called by one poller at a time.
    @discardableResult
    public func refresh() -> String? {
        let old = current
        guard let now = FolderIdentity.current(folder) else {
            return report("\(folder) is missing or has no marker; still serving the report as of \(old.asOf ?? "?")")
        }
        guard now != old.identity else { return nil }
        do {
            let fresh = try Self.loadStable(folder)
            state.withLock { $0 = (fresh, nil) }
            return "loaded a new report folder (as of \(fresh.asOf ?? "?"), generation \(fresh.identity))"
        } catch {
            return report(
                "cannot load the new report folder: \(error); still serving the report as of \(old.asOf ?? "?")")
        }
    }

    private func report(_ message: String) -> String? {
        state.withLock { state in
            guard state.lastFailure != message else { return nil }
            state.lastFailure = message
            return message
        }
    }

    /// A snapshot of the folder DIR named from before the load to after it: if another was
    /// published meanwhile, the load is repeated (a few times, then the last one is an error).
    static func loadStable(_ folder: String) throws -> ReportSnapshot {
        var attempt = 0
        while true {
            let loaded = try ReportSnapshot(folder: folder)
            if FolderIdentity.current(folder) == loaded.identity { return loaded }
            attempt += 1
            if attempt == 5 {
                throw SnapshotError(path: folder, message: "replaced while being read, 5 times in a row")
            }
        }
    }
}
