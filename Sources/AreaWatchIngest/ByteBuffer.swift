/// A growable byte buffer whose storage is handed out as `UnsafeBufferPointer` views; a view
/// stays valid until the next mutation (unlike a pointer escaped from an Array's closure).
final class ByteBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 4096) {
        self.capacity = max(16, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }
    var isEmpty: Bool { count == 0 }

    func removeAll() {
        count = 0
    }

    func append(_ data: UnsafeBufferPointer<UInt8>) {
        guard !data.isEmpty else { return }
        reserve(count + data.count)
        (base + count).update(from: data.baseAddress!, count: data.count)
        count += data.count
    }

    func append(_ array: [UInt8]) {
        array.withUnsafeBufferPointer { append($0) }
    }

    /// Drops the first `n` bytes.
    func removeFirst(_ n: Int) {
        let k = min(n, count)
        if k < count { base.update(from: base + k, count: count - k) }
        count -= k
    }

    private func reserve(_ needed: Int) {
        guard needed > capacity else { return }
        var newCapacity = capacity
        while newCapacity < needed { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }
}
