import Glibc

/// Zeroed memory for a large table that is probed at random: from 2 MiB on it is mapped on its
/// own, aligned to 2 MiB and advised for transparent huge pages, so random probes of a 100+ MB
/// table do not miss the TLB on nearly every access as well as the cache. Smaller blocks come
/// from `calloc`. The advice is only advice: where the kernel declines, 4 KiB pages work the same.
///
/// Non-copyable: the one owner unmaps or frees the block when it ends.
public struct HugePageAllocation: ~Copyable {
    public static let hugePageBytes = 2 << 20

    /// The first byte, aligned to `hugePageBytes` when the block is mapped.
    public let base: UnsafeMutableRawPointer
    public let byteCount: Int
    /// The whole mapping (with its alignment slack), nil when the block came from `calloc`.
    private let mapping: UnsafeMutableRawPointer?
    private let mappedBytes: Int

    /// `byteCount` zero bytes (at least one). Stops the process when memory is exhausted, as
    /// Swift's own allocations do.
    public init(zeroedBytes byteCount: Int) {
        precondition(byteCount >= 0, "negative size")
        self.byteCount = byteCount
        let page = Self.hugePageBytes
        if byteCount >= page,
            let raw = mmap(nil, byteCount + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            raw != MAP_FAILED
        {
            mapping = raw
            mappedBytes = byteCount + page
            let aligned = (Int(bitPattern: raw) + page - 1) & ~(page - 1)
            base = UnsafeMutableRawPointer(bitPattern: aligned)!
            _ = madvise(base, byteCount, MADV_HUGEPAGE)
        } else {
            guard let block = calloc(max(1, byteCount), 1) else { fatalError("out of memory") }
            mapping = nil
            mappedBytes = 0
            base = block
        }
    }

    deinit {
        if let mapping { munmap(mapping, mappedBytes) } else { free(base) }
    }

    /// Whether the block is a mapping of its own aligned to a huge page (large blocks, unless
    /// `mmap` failed).
    public var isHugePageAligned: Bool { mapping != nil }

    /// Advises the whole 2 MiB pages inside `buffer` for transparent huge pages, before its first
    /// touch: memory about to be filled once, front to back (a large array read from a file), then
    /// takes one page fault and one zeroing per 2 MiB instead of per 4 KiB. Only advice: a buffer
    /// of less than a huge page, or a kernel that declines, keeps 4 KiB pages.
    public static func adviseHugePages(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let start = buffer.baseAddress else { return }
        let page = hugePageBytes
        let first = (Int(bitPattern: start) + page - 1) & ~(page - 1)
        let end = (Int(bitPattern: start) + buffer.count) & ~(page - 1)
        guard end > first, let aligned = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(aligned, end - first, MADV_HUGEPAGE)
    }

    /// The block as `count` values of `T` (`count * stride` must fit in it).
    public func bound<T: BitwiseCopyable>(to type: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        precondition(count * MemoryLayout<T>.stride <= byteCount, "block too small")
        return base.bindMemory(to: T.self, capacity: count)
    }
}
