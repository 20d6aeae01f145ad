/// Read access to a buffer from several threads.
struct SendableBuffer<T>: @unchecked Sendable {
    let base: UnsafeBufferPointer<T>
    init(_ base: UnsafeBufferPointer<T>) { self.base = base }
    @inline(__always) subscript(i: Int) -> T { base[i] }
}

/// A buffer written by disjoint indices from several threads.
public struct UnsafeMutableSendableBuffer<T>: @unchecked Sendable {
    public let base: UnsafeMutableBufferPointer<T>
    public init(_ base: UnsafeMutableBufferPointer<T>) { self.base = base }
    @inline(__always) public subscript(i: Int) -> T {
        get { base[i] }
        nonmutating set { base[i] = newValue }
    }
}

/// The storage of two arrays for work that writes them from several threads, each thread its own
/// indices; valid in `body` only. With the three-array form, one call where column-by-column
/// `withUnsafeMutableBufferPointer`s would nest.
@inlinable
public func withUnsafeMutableSendableBuffers<A, B, R>(
    _ a: inout [A], _ b: inout [B],
    _ body: (UnsafeMutableSendableBuffer<A>, UnsafeMutableSendableBuffer<B>) throws -> R
) rethrows -> R {
    try a.withUnsafeMutableBufferPointer { a in
        try b.withUnsafeMutableBufferPointer { b in try body(.init(a), .init(b)) }
    }
}

/// `withUnsafeMutableSendableBuffers` of three arrays.
@inlinable
public func withUnsafeMutableSendableBuffers<A, B, C, R>(
    _ a: inout [A], _ b: inout [B], _ c: inout [C],
    _ body: (UnsafeMutableSendableBuffer<A>, UnsafeMutableSendableBuffer<B>, UnsafeMutableSendableBuffer<C>) throws -> R
) rethrows -> R {
    try withUnsafeMutableSendableBuffers(&a, &b) { a, b in
        try c.withUnsafeMutableBufferPointer { c in try body(a, b, .init(c)) }
    }
}
