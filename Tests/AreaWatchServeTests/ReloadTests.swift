import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import NIOCore
import Testing

@testable import AreaWatchServe

/// A report published in DIR's place (the report writer's atomic exchange) is picked up by
/// `SnapshotStore.refresh()`, and every snapshot is one folder generation, never a mixture.
@Suite struct ReloadTests {
    @Test func aNewFolderIsLoadedAndEachSnapshotIsOneGeneration() throws {
        let scratch = try TempDir("reload")
        let folder = scratch.sub("report")
        let asOfB = ServeFixture.asOf + 86_400
        try ServeFixture.write(to: folder)
        let store = try SnapshotStore(folder: folder)
        #expect(store.current.asOf == "2024-06-30T12:00:00Z")
        #expect(store.refresh() == nil, "nothing changed")

        // Readers check each snapshot they get against itself while the writer publishes
        // alternately two reports with different as-of dates and the poller refreshes.
        // Threads, not tasks: the cooperative pool may be busy with other suites.
        let stop = ManagedFlag(), checked = ManagedCount(), mixed = ManagedCount()
        let finished = DispatchGroup()
        for _ in 0..<2 {
            finished.enter()
            Thread.detachNewThread {
                repeat {
                    let s = store.current
                    for bytes in s.jsonTiles.values.prefix(5)
                    where !String(buffer: bytes).hasPrefix("{\"as_of\":\"\(s.asOf!)\"") { mixed.add() }
                    checked.add()
                } while !stop.value
                finished.leave()
            }
        }
        for round in 0..<6 {
            try ServeFixture.write(
                to: folder, seed: UInt64(round % 2 == 0 ? 8 : 7), asOf: round % 2 == 0 ? asOfB : ServeFixture.asOf)
            let message = store.refresh()
            #expect(message?.contains("loaded a new report folder") == true)
            #expect(store.current.asOf == (round % 2 == 0 ? "2024-07-01T12:00:00Z" : "2024-06-30T12:00:00Z"))
        }
        stop.value = true
        finished.wait()
        #expect(checked.value > 0)
        #expect(mixed.value == 0, "\(mixed.value) snapshots mixed two folders")
    }

    @Test func aMissingOrBrokenFolderKeepsTheOldSnapshot() throws {
        let scratch = try TempDir("reload")
        let folder = scratch.sub("report")
        try ServeFixture.write(to: folder)
        let store = try SnapshotStore(folder: folder)
        try FileManager.default.moveItem(atPath: folder, toPath: scratch.sub("away"))
        #expect(store.refresh()?.contains("missing") == true)
        #expect(store.refresh() == nil, "the same problem is logged once")
        #expect(store.current.asOf == "2024-06-30T12:00:00Z")
        // A folder with a marker but a broken tilejson: refused, the old one still served.
        try FileManager.default.moveItem(atPath: scratch.sub("away"), toPath: folder)
        try ServeFixture.write(to: scratch.sub("next"), asOf: ServeFixture.asOf + 86_400)
        try Data("{".utf8).write(to: URL(fileURLWithPath: scratch.sub("next/tiles/tilejson.json")))
        try FileManager.default.removeItem(atPath: folder)
        try FileManager.default.moveItem(atPath: scratch.sub("next"), toPath: folder)
        #expect(store.refresh()?.contains("cannot load the new report folder") == true)
        #expect(store.current.asOf == "2024-06-30T12:00:00Z")
    }
}

/// A flag shared with detached tasks.
final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    var value: Bool {
        get {
            lock.lock()
            defer { lock.unlock() }
            return flag
        }
        set {
            lock.lock()
            flag = newValue
            lock.unlock()
        }
    }
}

final class ManagedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() {
        lock.lock()
        n += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return n
    }
}
