import Dispatch

/// Work started on another thread at once; `value()` waits for it and returns its result or
/// rethrows its error. For a stage that can run beside the caller's own work (a file's digest
/// beside its parse, one report file beside the others).
public final class BackgroundWork<Value, Failure: Error>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    // Written once by the worker before `done` is signalled, read only after waiting on it.
    private var outcome: Result<Value, Failure>?

    public init(_ work: @escaping @Sendable () throws(Failure) -> Value) {
        DispatchQueue.global().async { [self] in
            do throws(Failure) { outcome = .success(try work()) } catch { outcome = .failure(error) }
            done.signal()
        }
    }

    /// Waits for the work to end; any thread may wait, any number of times (each waiter passes
    /// the signal on to the next).
    public func wait() {
        done.wait()
        done.signal()
    }

    /// The work's result, after waiting for it.
    public func value() throws(Failure) -> Value {
        wait()
        return try outcome!.get()
    }
}

/// A value handed to another thread that only that thread uses meanwhile (a store connection,
/// a class that is not `Sendable`).
public final class Unchecked<T>: @unchecked Sendable {
    public let value: T
    public init(_ value: T) { self.value = value }
}
