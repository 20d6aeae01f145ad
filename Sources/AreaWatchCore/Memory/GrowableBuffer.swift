/// A growable array that owns its storage: freed (its elements deinitialized) when the buffer
/// ends, and non-copyable, so no copy of it can alias the storage or free it twice.
///
/// Why not `Array`: the parsers append a node or a byte per token, and through a class field an
/// Array checks uniqueness and capacity on every append; here an append is one compare and one
/// store. For plain (bitwise-copyable) elements growing is a `memcpy` and deinitializing is
/// nothing.
///
/// Invariants: `0 <= count <= capacity`; `storage[0..<count]` is initialized, the rest is not;
/// indices are checked in debug builds (`assert`), not in release builds, where the hot loops
/// use them.
public struct GrowableBuffer<Element>: ~Copyable {
    @usableFromInline var storage: UnsafeMutablePointer<Element>
    @usableFromInline var storedCount = 0
    @usableFromInline var storedCapacity: Int

    /// Room for `capacity` elements (at least one) before the first growth.
    public init(capacity: Int = 16) {
        storedCapacity = max(1, capacity)
        storage = .allocate(capacity: storedCapacity)
    }

    public var count: Int {
        @inlinable @inline(__always) get { storedCount }
    }

    public var capacity: Int {
        @inlinable @inline(__always) get { storedCapacity }
    }

    deinit {
        storage.deinitialize(count: storedCount)
        storage.deallocate()
    }

    @inlinable
    public var isEmpty: Bool { count == 0 }
    @inlinable
    public var last: Element? { count > 0 ? storage[count - 1] : nil }

    @inlinable @inline(__always)
    public subscript(_ i: Int) -> Element {
        get {
            assert(i >= 0 && i < count, "index out of range")
            return storage[i]
        }
        nonmutating set {
            assert(i >= 0 && i < count, "index out of range")
            storage[i] = newValue
        }
    }

    /// The element is moved in: an element holding references (an `Incident`'s texts) is not
    /// retained again and released by the caller.
    @inlinable @inline(__always)
    public mutating func append(_ element: consuming Element) {
        if count == capacity { grow(toAtLeast: count + 1) }
        (storage + count).initialize(to: consume element)
        storedCount += 1
    }

    /// Sets every element to `value` in place.
    @inlinable
    public func fill(with value: Element) {
        storage.update(repeating: value, count: count)
    }

    @inlinable
    public mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        guard let source = elements.baseAddress, !elements.isEmpty else { return }
        reserveCapacity(count + elements.count)
        (storage + count).initialize(from: source, count: elements.count)
        storedCount += elements.count
    }

    @inlinable
    public mutating func append(repeating element: Element, count n: Int) {
        precondition(n >= 0, "negative count")
        reserveCapacity(count + n)
        (storage + count).initialize(repeating: element, count: n)
        storedCount += n
    }

    /// Appends what `fill` initializes in the spare capacity, at most `maxCount` elements (room
    /// for them is made first); `fill` returns how many it initialized, from the start of the
    /// spare room.
    @inlinable
    public mutating func appendUninitialized<E: Error>(
        maxCount: Int, _ fill: (UnsafeMutableBufferPointer<Element>) throws(E) -> Int
    ) throws(E) {
        reserveCapacity(count + maxCount)
        let written = try fill(UnsafeMutableBufferPointer(start: storage + count, count: maxCount))
        precondition(written >= 0 && written <= maxCount, "wrote outside the spare room")
        storedCount += written
    }

    @inlinable @inline(__always)
    public mutating func removeLast() {
        precondition(count > 0, "removeLast of an empty buffer")
        storedCount -= 1
        (storage + storedCount).deinitialize(count: 1)
    }

    /// Empties the buffer; the capacity stays.
    @inlinable
    public mutating func removeAll() {
        storage.deinitialize(count: storedCount)
        storedCount = 0
    }

    /// Drops the first `n` elements (all when `n >= count`); the rest move to the front.
    @inlinable
    public mutating func removeFirst(_ n: Int) {
        precondition(n >= 0, "negative count")
        let k = min(n, count)
        storage.deinitialize(count: k)
        if k < count { storage.moveInitialize(from: storage + k, count: count - k) }
        storedCount -= k
    }

    /// Makes room for `n` elements in all: at least double the capacity, so appends stay
    /// amortized O(1).
    @inlinable
    public mutating func reserveCapacity(_ n: Int) {
        if n > capacity { grow(toAtLeast: n) }
    }

    /// Moves the elements to storage for exactly `newCapacity` (at least `count`, at least one),
    /// to shrink a buffer after a rare large use, or to size it exactly.
    @inlinable
    public mutating func reallocate(capacity newCapacity: Int) {
        precondition(newCapacity >= count, "capacity below count")
        let moved = UnsafeMutablePointer<Element>.allocate(capacity: max(1, newCapacity))
        moved.moveInitialize(from: storage, count: count)
        storage.deallocate()
        storage = moved
        storedCapacity = max(1, newCapacity)
    }

    /// Calls `body` with the elements, valid only inside the call.
    @inlinable
    public func withUnsafeBufferPointer<R, E: Error>(
        _ body: (UnsafeBufferPointer<Element>) throws(E) -> R
    ) throws(E) -> R {
        try body(UnsafeBufferPointer(start: storage, count: count))
    }

    /// The elements as a view that stays valid until the buffer's next mutation or its end, for
    /// callers that hand the bytes on (a parser reading a captured value); nothing may write
    /// through it.
    @inlinable
    public var unsafeElements: UnsafeBufferPointer<Element> {
        UnsafeBufferPointer(start: storage, count: count)
    }

    /// The storage's first element, for callers that read or write `count` elements in place
    /// under the same validity rule as `unsafeElements`.
    @inlinable
    public var unsafeBaseAddress: UnsafeMutablePointer<Element> { storage }

    @inlinable
    mutating func grow(toAtLeast needed: Int) {
        reallocate(capacity: max(needed, 2 * capacity))
    }
}

/// Sending a buffer moves it (it cannot be copied), so no two threads ever hold one storage.
extension GrowableBuffer: @unchecked Sendable where Element: Sendable {}
