import AreaWatchCore
import Dispatch
import Glibc

/// A bounded hand-over of incident batches from the thread that parses a file to the thread that
/// writes them (the store, or the in-memory table): on two cores, parsing and writing overlap.
/// Batches keep file order, so keys, outcomes and everything written are exactly those of the
/// one-thread path; memory is bounded by `capacity` batches.
final class IncidentChannel: @unchecked Sendable {
    // Each at one address for as long as the channel lives, as pthreads requires.
    private let mutexValue = PinnedValue(pthread_mutex_t())
    private let changedValue = PinnedValue(pthread_cond_t())
    private var mutex: UnsafeMutablePointer<pthread_mutex_t> { mutexValue.pointer }
    private var changed: UnsafeMutablePointer<pthread_cond_t> { changedValue.pointer }
    private var queue: [[Incident]] = []
    private var head = 0
    private var finished = false
    private var cancelled = false
    private let capacity: Int

    init(capacity: Int = 4) {
        self.capacity = capacity
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        pthread_cond_destroy(changed)
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Producer: waits while the queue is full; false when the consumer gave up.
    func put(_ batch: [Incident]) -> Bool {
        locked {
            while queue.count - head >= capacity && !cancelled { pthread_cond_wait(changed, mutex) }
            guard !cancelled else { return false }
            queue.append(batch)
            pthread_cond_broadcast(changed)
            return true
        }
    }

    /// Producer: no more batches.
    func finish() {
        locked {
            finished = true
            pthread_cond_broadcast(changed)
        }
    }

    /// Consumer: the next batch, or nil once the producer finished and the queue is empty.
    func take() -> [Incident]? {
        locked {
            while head == queue.count && !finished { pthread_cond_wait(changed, mutex) }
            guard head < queue.count else { return nil }
            let batch = queue[head]
            queue[head] = []
            head += 1
            if head > 64 {
                queue.removeFirst(head)
                head = 0
            }
            pthread_cond_broadcast(changed)
            return batch
        }
    }

    /// Consumer: stop the producer (its next `put` returns false).
    func cancel() {
        locked {
            cancelled = true
            pthread_cond_broadcast(changed)
        }
    }
}

/// The parsing half of a pipelined ingest, run on its own thread.
final class ParsingTask: @unchecked Sendable {
    var report: FileIngestReport
    var error: (any Error)?
    private let work: (ParsingTask) throws -> Void
    private let done = DispatchSemaphore(value: 0)

    init(report: FileIngestReport, work: @escaping (ParsingTask) throws -> Void) {
        self.report = report
        self.work = work
    }

    func start() {
        DispatchQueue.global().async { [self] in
            do { try work(self) } catch { self.error = error }
            done.signal()
        }
    }

    func wait() {
        done.wait()
    }
}

/// Thrown inside the parsing thread when the writer stopped; never escapes.
struct PipelineCancelled: Error {}
