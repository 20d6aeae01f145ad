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
