import Foundation

// Test helpers shared by the test targets: scratch folders that clean up after themselves.

/// Folders that live until the test process ends (shared fixtures).
public enum ScratchRegistry {
    nonisolated(unsafe) private static var paths: [String] = []
    private static let lock = NSLock()
    nonisolated(unsafe) private static var installed = false

    public static func register(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        paths.append(path)
        if !installed {
            installed = true
            atexit { ScratchRegistry.removeAll() }
        }
    }

    public static func removeAll() {
        lock.lock()
        let all = paths
        paths = []
        lock.unlock()
        for p in all { try? FileManager.default.removeItem(atPath: p) }
    }
}

/// A scratch folder, removed when the value goes away (or at exit when `keepUntilExit`).
public final class TempDir: @unchecked Sendable {
    public let path: String
    private let removeOnDeinit: Bool

    public init(_ label: String = "areawatch-test", keepUntilExit: Bool = false) throws {
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("\(label)-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: made)
        removeOnDeinit = !keepUntilExit
        if keepUntilExit { ScratchRegistry.register(path) }
    }

    deinit {
        if removeOnDeinit { try? FileManager.default.removeItem(atPath: path) }
    }

    public func sub(_ name: String) -> String { path + "/" + name }

    /// Writes `text` (UTF-8) to `name` inside the folder (creating folders) and returns its path.
    @discardableResult
    public func file(_ name: String, _ text: String) throws -> String {
        try file(name, bytes: Array(text.utf8))
    }

    @discardableResult
    public func file(_ name: String, bytes: [UInt8]) throws -> String {
        let target = path + "/" + name
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        return target
    }

    @discardableResult
    public func folder(_ name: String) throws -> String {
        let target = path + "/" + name
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        return target
    }
}
