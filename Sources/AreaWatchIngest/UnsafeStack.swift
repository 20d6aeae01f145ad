/// A growable array of plain values without Array's per-append uniqueness and capacity checks
/// through a class field: the JSON tape appends a node per token, so those checks would run for
/// every token of every record. The owner deallocates it (`free`); it never shrinks.
struct UnsafeStack<Element: BitwiseCopyable> {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(4, capacity)
        base = .allocate(capacity: self.capacity)
    }

    func free() { base.deallocate() }

    var isEmpty: Bool { count == 0 }
    var last: Element? { count > 0 ? base[count - 1] : nil }

    @inline(__always)
    mutating func append(_ e: Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: e)
        count += 1
    }

    @inline(__always)
    mutating func removeLast() { count -= 1 }

    mutating func removeAll() { count = 0 }

    @inline(__always)
    subscript(_ i: Int) -> Element {
        get { base[i] }
        nonmutating set { base[i] = newValue }
    }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity *= 2
    }
}
