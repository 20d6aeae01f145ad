import Dispatch
import Synchronization

/// Work declared as nodes with their inputs, run by `run()` on a few threads: a node starts once
/// every input has ended, the ready node added first starts first, and `run()` returns
/// when every node has ended (structured: nothing outlives it). A node whose input failed does
/// not run; the first error in the order the nodes were added is rethrown.
///
/// A node's result is read by the nodes that name it as an input (`node.value`), or after
/// `run()`.
public final class WorkGraph: Sendable {
    /// A node's handle: its place in the graph and, once it has run, its result.
    public final class Node<Value: Sendable>: Sendable, WorkGraphInput {
        public let index: Int
        fileprivate let result = Mutex<Result<Value, any Error>?>(nil)

        fileprivate init(index: Int) { self.index = index }

        /// The result: valid in a node that names this one as an input, or after `run()`.
        public var value: Value {
            get throws {
                guard let result = result.withLock({ $0 }) else { preconditionFailure("node \(index) has not run") }
                return try result.get()
            }
        }
    }

    /// Thrown by `value` of a node that did not run because an input failed.
    public struct InputFailed: Error {}

    private struct Work: Sendable {
        let inputs: [Int]
        /// Runs the node and stores its result; false when it failed.
        let body: @Sendable () -> Bool
        /// Stores `InputFailed` as the result of a node that is not run.
        let skip: @Sendable () -> Void
        let failure: @Sendable () -> (any Error)?
    }

    private let nodes = Mutex<[Work]>([])
    private let threads: Int

    /// `threads`: at most this many nodes run at once (the caller's thread is one of them).
    public init(threads: Int = Concurrency.processorCount) {
        self.threads = max(1, threads)
    }

    /// Adds a node that runs `body` after every node of `inputs` has ended.
    @discardableResult
    public func add<Value: Sendable>(
        after inputs: [any WorkGraphInput] = [],
        _ body: @escaping @Sendable () throws -> Value
    ) -> Node<Value> {
        nodes.withLock { nodes in
            let node = Node<Value>(index: nodes.count)
            nodes.append(
                Work(
                    inputs: inputs.map(\.index),
                    body: {
                        let outcome = Result { try body() }
                        node.result.withLock { $0 = outcome }
                        if case .failure = outcome { return false }
                        return true
                    },
                    skip: {
                        node.result.withLock { $0 = .failure(InputFailed()) }
                    },
                    failure: {
                        guard case .failure(let error) = node.result.withLock({ $0 }) else { return nil }
                        return error
                    }))
            return node
        }
    }

    /// Runs every node; returns when all have ended, rethrowing the first failure.
    public func run() throws {
        let work = nodes.withLock { $0 }
        let schedule = Schedule(work: work, workers: min(threads, max(1, work.count)))
        let group = DispatchGroup()
        for _ in 1..<schedule.workers { DispatchQueue.global().async(group: group) { schedule.serve() } }
        schedule.serve()
        group.wait()
        // An input precedes its dependents, so the first failure is never an `InputFailed`.
        if let error = work.lazy.compactMap({ $0.failure() }).first { throw error }
    }

    /// One run's state: which nodes wait on how many inputs, which are ready, which failed.
    private final class Schedule: Sendable {
        struct State {
            var waitingOn: [Int]
            var dependents: [[Int]]
            var failed: [Bool]
            /// Nodes whose inputs have all ended, not started yet.
            var ready: [Int]
            var ended = 0
        }

        let work: [Work]
        let workers: Int
        private let state: Mutex<State>
        /// One signal per node that becomes ready and one per thread once every node has ended.
        private let wake = DispatchSemaphore(value: 0)

        init(work: [Work], workers: Int) {
            self.work = work
            self.workers = workers
            var dependents = [[Int]](repeating: [], count: work.count)
            for (k, w) in work.enumerated() {
                for input in w.inputs {
                    precondition(input < k, "a node's inputs are added before it")
                    dependents[input].append(k)
                }
            }
            let ready = work.indices.filter { work[$0].inputs.isEmpty }
            state = Mutex(
                State(
                    waitingOn: work.map(\.inputs.count), dependents: dependents,
                    failed: [Bool](repeating: false, count: work.count), ready: ready))
            for _ in ready { wake.signal() }
            if work.isEmpty { for _ in 0..<workers { wake.signal() } }
        }

        /// One thread's loop: take the ready node declared first, run it, release its dependents;
        /// leave once every node has ended.
        func serve() {
            while true {
                wake.wait()
                let picked = state.withLock { s -> (Int, Bool)? in
                    guard let first = s.ready.indices.min(by: { s.ready[$0] < s.ready[$1] }) else { return nil }
                    let k = s.ready.remove(at: first)
                    return (k, s.failed[k])
                }
                guard let (k, skip) = picked else { return }
                let ok: Bool
                if skip {
                    work[k].skip()
                    ok = false
                } else {
                    ok = work[k].body()
                }
                let signals = state.withLock { s -> Int in
                    var released = 0
                    for d in s.dependents[k] {
                        if !ok { s.failed[d] = true }
                        s.waitingOn[d] -= 1
                        if s.waitingOn[d] == 0 {
                            s.ready.append(d)
                            released += 1
                        }
                    }
                    s.ended += 1
                    return released + (s.ended == work.count ? workers : 0)
                }
                for _ in 0..<signals { wake.signal() }
            }
        }
    }
}

/// A node as another node's input, whatever its value's type.
public protocol WorkGraphInput: Sendable {
    var index: Int { get }
}
