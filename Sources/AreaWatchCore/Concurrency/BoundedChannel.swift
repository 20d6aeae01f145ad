import Dispatch
import Synchronization

/// A bounded, ordered hand-off from one producer thread to one consumer thread: `send` waits
/// while `capacity` elements are waiting, `receive` waits for the next element. The producer ends
/// with `finish()`; the consumer may give up with `cancel()`, after which `send` returns false.
/// Memory is bounded by `capacity` elements; the order is the order sent.
public final class BoundedChannel<Element: Sendable>: Sendable {
    private struct State {
        var queue: [Element?] = []
        var head = 0
        var finished = false
        var cancelled = false
    }

    private let state = Mutex(State())
    /// One signal per free place, plus the one `cancel()` adds (passed on by each woken sender).
    private let places = DispatchSemaphore(value: 0)
    /// One signal per waiting element, plus the one `finish()` adds (passed on by each receiver
    /// that finds the queue empty).
    private let elements = DispatchSemaphore(value: 0)
    public let capacity: Int

    public init(capacity: Int) {
        precondition(capacity > 0, "a channel holds at least one element")
        self.capacity = capacity
        // Signalled rather than given as the initial value: a semaphore may not end below its
        // initial value, and a cancelled channel ends with its places taken.
        for _ in 0..<capacity { places.signal() }
    }

    /// Producer: waits for a free place; false (and `element` dropped) once the consumer cancelled.
    public func send(_ element: Element) -> Bool {
        places.wait()
        let accepted = state.withLock { s -> Bool in
            guard !s.cancelled else { return false }
            s.queue.append(element)
            return true
        }
        if accepted { elements.signal() } else { places.signal() }
        return accepted
    }

    /// Producer: no more elements; the consumer receives those waiting, then nil.
    public func finish() {
        state.withLock { $0.finished = true }
        elements.signal()
    }

    /// Consumer: the next element, or nil once the producer finished and none is left.
    public func receive() -> Element? {
        elements.wait()
        let next = state.withLock { s -> Element? in
            guard s.head < s.queue.count else { return nil }
            let element = s.queue[s.head]
            s.queue[s.head] = nil
            s.head += 1
            if s.head >= 64 && s.head * 2 >= s.queue.count {
                s.queue.removeFirst(s.head)
                s.head = 0
            }
            return element
        }
        if next == nil { elements.signal() } else { places.signal() }
        return next
    }

    /// Consumer: stop the producer (its waiting and later `send`s return false).
    public func cancel() {
        state.withLock { $0.cancelled = true }
        places.signal()
    }
}
