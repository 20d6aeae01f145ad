import AreaWatchCore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The access log: lines gathered in memory and written to stderr in blocks (at 32 KiB, by the
/// reload poller every interval, and at shutdown): a `write` per request would add a system call
/// to every answer, a large share of a lookup's own cost (docs/PERFORMANCE.md).
final class AccessLog: Sendable {
    private let buffer = Mutex<[UInt8]>([])
    static let blockBytes = 32 << 10

    init() { buffer.withLock { $0.reserveCapacity(Self.blockBytes * 2) } }

    /// `PEER "METHOD TARGET" STATUS BYTES MILLISECONDSms`, the target escaped as terminal text and
    /// cut at 2,048 characters; BYTES the body bytes sent (0 for HEAD).
    static func line(
        peer: String, method: String, target: String, status: Int, bytes: Int,
        microseconds: Int64
    ) -> String {
        let fraction = String(microseconds % 1000)
        return "\(peer) \"\(method) \(TerminalText.escaped(String(target.prefix(2048))))\" \(status) \(bytes) "
            + "\(microseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)ms"
    }

    func append(_ line: String) {
        let block = buffer.withLock { buffer -> [UInt8]? in
            buffer.append(contentsOf: line.utf8)
            buffer.append(10)
            return buffer.count >= Self.blockBytes ? Self.take(&buffer) : nil
        }
        if let block { write(block) }
    }

    /// The lines not yet written (the tests read them without writing).
    func pendingText() -> String {
        buffer.withLock { String(decoding: $0, as: UTF8.self) }
    }

    func flush() {
        write(buffer.withLock { Self.take(&$0) })
    }

    /// The buffer's lines, leaving it empty (its capacity kept).
    private static func take(_ buffer: inout [UInt8]) -> [UInt8] {
        defer { buffer.removeAll(keepingCapacity: true) }
        return buffer
    }

    private func write(_ bytes: [UInt8]) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            done += n
        }
    }
}
