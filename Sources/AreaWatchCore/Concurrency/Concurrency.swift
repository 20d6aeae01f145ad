import Dispatch
import Glibc

/// The engine's threads (docs/DECISIONS.md, "Concurrency"): data-parallel parts on every core
/// (`map`), one piece of work beside the caller's (`overlap`), a few dependent outputs
/// (`WorkGraph`), hand-off between a producer and a consumer (`BoundedChannel`), and `Mutex`
/// from Synchronization as the one lock.
public enum Concurrency {
    /// Cores the process may use: the default of every thread setting.
    public static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// `perCore` parts for each core: how finely to cut work whose parts differ in cost, so the
    /// cores that free up first take more of them, on any machine.
    public static func parts(perCore: Int, cores: Int = processorCount) -> Int {
        max(1, perCore * max(1, cores))
    }

    /// `[body(0), …, body(n − 1)]`, the calls made on up to `n` cores at once: one result per part
    /// of work split in advance, in part order whatever the schedule.
    public static func map<T>(_ n: Int, _ body: @Sendable (Int) -> T) -> [T] {
        guard n > 1 else { return n == 1 ? [body(0)] : [] }
        return [T](unsafeUninitializedCapacity: n) { buffer, count in
            let output = UnsafeMutableSendableBuffer(buffer)
            DispatchQueue.concurrentPerform(iterations: n) { output.base.initializeElement(at: $0, to: body($0)) }
            count = n
        }
    }

    /// `other` on another thread while `here` runs on this one; returns once both have ended
    /// (nothing outlives the call). `here`'s error is thrown first, then `other`'s.
    public static func overlap<A: Sendable, B>(
        _ other: @Sendable () throws -> A,
        with here: () throws -> B
    ) throws -> (A, B) {
        try withoutActuallyEscaping(other) { other in
            let beside = Beside(other)
            let mine = Result { try here() }
            let theirs = beside.result()
            let b = try mine.get()
            return (try theirs.get(), b)
        }
    }
}

/// `overlap`'s other thread: started at once, joined by `result()`.
private final class Beside<A: Sendable>: @unchecked Sendable {
    private let done = DispatchGroup()
    // Written by the worker before `done` is left, read only after waiting on it.
    private var outcome: Result<A, any Error>?
    // The work is `overlap`'s non-escaping closure: the worker lets go of it before `done` is
    // left, so no reference to it outlives the call (the queue's block holds only `self`).
    private var work: (@Sendable () throws -> A)?

    init(_ work: @escaping @Sendable () throws -> A) {
        self.work = work
        done.enter()
        DispatchQueue.global().async { [self] in
            run()
            done.leave()
        }
    }

    private func run() {
        outcome = Result { try work!() }
        work = nil
    }

    func result() -> Result<A, any Error> {
        done.wait()
        return outcome!
    }
}
