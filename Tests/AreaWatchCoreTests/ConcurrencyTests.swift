import Glibc
import Synchronization
import Testing

@testable import AreaWatchCore

/// The concurrency primitives (docs/DECISIONS.md, "Concurrency") against what they promise:
/// order, bounds, dependencies, errors; random schedules drawn from a seed.
struct ConcurrencyTests {
    struct Failure: Error, Equatable { let name: String }

    @Test func mapKeepsPartOrder() {
        for n in [0, 1, 2, 7, 100] {
            #expect(Concurrency.map(n) { $0 * $0 } == (0..<n).map { $0 * $0 })
        }
    }

    @Test func partsFollowTheCoreCount() {
        #expect(Concurrency.parts(perCore: 8, cores: 2) == 16)
        #expect(Concurrency.parts(perCore: 8, cores: 1) == 8)
        #expect(Concurrency.parts(perCore: 2, cores: 0) == 2)
        #expect(Concurrency.parts(perCore: 8) == 8 * Concurrency.processorCount)
    }

    @Test func overlapRunsBothAndReturnsBoth() throws {
        let started = Atomic<Int>(0)
        let (a, b) = try Concurrency.overlap(
            { () -> Int in
                started.add(1, ordering: .relaxed)
                return 1
            },
            with: { () -> String in
                started.add(1, ordering: .relaxed)
                return "b"
            })
        #expect(a == 1 && b == "b" && started.load(ordering: .relaxed) == 2)
    }

    @Test func overlapThrowsTheCallersErrorFirstAndWaitsForTheOther() {
        let ended = Atomic<Bool>(false)
        #expect(throws: Failure(name: "here")) {
            _ = try Concurrency.overlap(
                { () throws -> Int in
                    usleep(20_000)
                    ended.store(true, ordering: .relaxed)
                    throw Failure(name: "other")
                }, with: { () throws -> Int in throw Failure(name: "here") })
        }
        let otherEnded = ended.load(ordering: .relaxed)
        #expect(otherEnded)
        #expect(throws: Failure(name: "other")) {
            _ = try Concurrency.overlap({ () throws -> Int in throw Failure(name: "other") }, with: { 2 })
        }
    }

    /// Random graphs: every node runs once, after all its inputs, at most `threads` at once.
    @Test(arguments: [1, 2, 3, 8])
    func workGraphRespectsInputsAndTheThreadBound(threads: Int) throws {
        var random = SplitMix64(seed: testSeed(0x5EED_0001) &+ UInt64(threads))
        for _ in 0..<30 {
            let n = random.int(1...25)
            let graph = WorkGraph(threads: threads)
            let log = Mutex<[Int]>([])
            let running = Atomic<Int>(0), most = Atomic<Int>(0)
            var nodes: [WorkGraph.Node<Int>] = []
            var inputs: [[Int]] = []
            for k in 0..<n {
                let mine = (0..<k).filter { _ in random.bool(0.2) }
                inputs.append(mine)
                let pause = UInt32(random.int(0...300))
                let before = mine.map { nodes[$0] }
                nodes.append(
                    graph.add(after: before) { () throws -> Int in
                        let now = running.add(1, ordering: .relaxed).newValue
                        _ = most.max(now, ordering: .relaxed)
                        usleep(pause)
                        let sum = try before.reduce(k) { $0 + (try $1.value) }
                        log.withLock { $0.append(k) }
                        running.subtract(1, ordering: .relaxed)
                        return sum
                    })
            }
            try graph.run()
            let order = log.withLock { $0 }
            #expect(order.sorted() == Array(0..<n))
            let position = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
            for k in 0..<n { for i in inputs[k] { #expect(position[i]! < position[k]!) } }
            #expect(most.load(ordering: .relaxed) <= threads)
            // Each value is its index plus its inputs' values: recomputed serially.
            var expected: [Int] = []
            for k in 0..<n { expected.append(inputs[k].reduce(k) { $0 + expected[$1] }) }
            #expect(try nodes.map { try $0.value } == expected)
        }
    }

    @Test func anEmptyGraphRuns() throws {
        try WorkGraph(threads: 3).run()
    }

    @Test func workGraphSkipsTheDependentsOfAFailureAndRethrowsTheFirst() throws {
        let graph = WorkGraph(threads: 2)
        let ran = Mutex<Set<String>>([])
        let a = graph.add { () throws -> Int in throw Failure(name: "a") }
        let b = graph.add { () -> Int in
            ran.withLock { _ = $0.insert("b") }
            return 2
        }
        let c = graph.add(after: [a, b]) { () -> Int in
            ran.withLock { _ = $0.insert("c") }
            return 3
        }
        let d = graph.add(after: [c]) { () -> Int in
            ran.withLock { _ = $0.insert("d") }
            return 4
        }
        _ = graph.add { () throws -> Int in throw Failure(name: "e") }
        #expect(throws: Failure(name: "a")) { try graph.run() }
        #expect(ran.withLock { $0 } == ["b"])
        #expect(throws: WorkGraph.InputFailed.self) { try d.value }
        #expect(try b.value == 2)
    }

    /// One producer, one consumer: everything arrives in order, never more than `capacity` waiting.
    @Test(arguments: [1, 2, 5])
    func channelKeepsOrderWithinItsBound(capacity: Int) throws {
        let channel = BoundedChannel<Int>(capacity: capacity)
        let sent = Atomic<Int>(0), received = Atomic<Int>(0), widest = Atomic<Int>(0)
        let count = 2_000
        let (_, got) = try Concurrency.overlap(
            {
                for k in 0..<count {
                    #expect(channel.send(k))
                    let waiting =
                        sent.add(1, ordering: .sequentiallyConsistent).newValue
                        - received.load(ordering: .sequentiallyConsistent)
                    _ = widest.max(waiting, ordering: .relaxed)
                }
                channel.finish()
            },
            with: { () -> [Int] in
                var got: [Int] = []
                while let k = channel.receive() {
                    received.add(1, ordering: .sequentiallyConsistent)
                    got.append(k)
                    if k % 97 == 0 { usleep(200) }
                }
                return got
            })
        #expect(got == Array(0..<count))
        // A send counted just before the consumer counts its receive: one over the bound at most.
        #expect(widest.load(ordering: .relaxed) <= capacity + 1)
        #expect(channel.receive() == nil)
    }

    @Test func cancelReleasesAWaitingProducer() throws {
        let channel = BoundedChannel<[Int]>(capacity: 2)
        let (accepted, _) = try Concurrency.overlap(
            { () -> Int in
                var accepted = 0
                for k in 0..<100 {
                    guard channel.send([k]) else { break }
                    accepted += 1
                }
                return accepted
            },
            with: {
                #expect(channel.receive() == [0])
                channel.cancel()
            })
        // Two waiting places, the one received, and none after the cancel.
        #expect(accepted >= 1 && accepted <= 3)
        #expect(!channel.send([1000]))
    }
}
