import Glibc
import Testing

@testable import AreaWatchCore

/// The owned memory types on their own: contents through growth and moves, the open-addressing
/// table against a Dictionary, and that ending an owner gives its memory back. `make test-asan`
/// runs these under the address sanitizer (out-of-bounds access, use after free, leaks).
struct GrowableBufferTests {
    @Test func appendsThroughGrowthKeepEveryElement() {
        var buffer = GrowableBuffer<Int32>(capacity: 1)
        for i in 0..<10_000 { buffer.append(Int32(i)) }
        #expect(buffer.count == 10_000)
        #expect(buffer.capacity >= 10_000)
        #expect((0..<10_000).allSatisfy { buffer[$0] == Int32($0) })
        #expect(buffer.last == 9_999)
    }

    @Test func editsMatchAnArray() {
        let seed = testSeed(0x6B0F_FE12)
        var random = SplitMix64(seed: seed)
        var buffer = GrowableBuffer<UInt8>(capacity: 3)
        var model: [UInt8] = []
        for step in 0..<5_000 {
            switch random.int(0...5) {
            case 0, 1:
                let b = UInt8(truncatingIfNeeded: random.next())
                buffer.append(b)
                model.append(b)
            case 2:
                let run = (0..<random.int(0...40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                run.withUnsafeBufferPointer { buffer.append(contentsOf: $0) }
                model += run
            case 3:
                let n = random.int(0...8)
                buffer.removeFirst(n)
                model.removeFirst(min(n, model.count))
            case 4:
                if !model.isEmpty {
                    buffer.removeLast()
                    model.removeLast()
                }
            default:
                if !model.isEmpty {
                    let i = random.int(0...(model.count - 1))
                    buffer[i] = 7
                    model[i] = 7
                }
            }
            let same = buffer.withUnsafeBufferPointer { Array($0) } == model
            #expect(same, "seed \(seed), step \(step)")
            if !same { return }
        }
    }

    @Test func appendUninitializedKeepsOnlyWhatWasWritten() {
        var buffer = GrowableBuffer<UInt8>(capacity: 2)
        buffer.append(1)
        buffer.appendUninitialized(maxCount: 100) { room in
            #expect(room.count == 100)
            for k in 0..<5 { room[k] = UInt8(10 + k) }
            return 5
        }
        #expect(Array(buffer.unsafeElements) == [1, 10, 11, 12, 13, 14])
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try buffer.appendUninitialized(maxCount: 4) { _ throws(Stop) -> Int in throw Stop() }
        }
        #expect(buffer.count == 6)
    }

    @Test func removeAllKeepsTheCapacity() {
        var buffer = GrowableBuffer<Double>(capacity: 4)
        buffer.append(repeating: 0.5, count: 1_000)
        let capacity = buffer.capacity
        buffer.removeAll()
        #expect(buffer.isEmpty && buffer.last == nil)
        #expect(buffer.capacity == capacity)
        buffer.append(2)
        #expect(buffer[0] == 2)
    }

    /// A moved buffer is the same storage under a new owner; the old name is gone (the compiler
    /// rejects any use of it), so no second owner can free it.
    @Test func movingTransfersTheStorage() {
        var first = GrowableBuffer<UInt64>(capacity: 8)
        first.append(42)
        let address = first.unsafeBaseAddress
        var second = consume first
        #expect(second.unsafeBaseAddress == address)
        second.append(43)
        #expect(Array(second.unsafeElements) == [42, 43])
    }

    /// Buffers that end give their storage back: 1 GiB made, written and dropped leaves the
    /// resident memory near where it was (a leak would keep all of it; the margin is for tests
    /// running alongside and for freed memory the allocator or the sanitizer holds on to).
    @Test func endingABufferFreesItsStorage() {
        let before = processMemory(field: 1)
        for _ in 0..<1_024 {
            var buffer = GrowableBuffer<UInt8>(capacity: 1 << 20)
            buffer.append(repeating: 1, count: 1 << 20)
            #expect(buffer.count == 1 << 20)
        }
        #expect(processMemory(field: 1) - before < 512 << 20)
    }
}

struct OpenAddressingTableTests {
    /// A map from nonzero keys to rows on the table (the key table's design: the slot holds the
    /// row + 1, rows hold the keys), with a home function that crowds keys together.
    struct RowMap: ~Copyable {
        var table: OpenAddressingTable<UInt32>
        var keys: [UInt64] = []
        let crowding: UInt64

        init(capacity: Int, crowding: UInt64) {
            table = OpenAddressingTable(capacity: capacity)
            self.crowding = crowding
        }

        func home(_ key: UInt64, _ capacity: Int) -> Int { Int(key % crowding) % capacity }

        mutating func rowOrInsert(_ key: UInt64) -> Int? {
            if 4 * (keys.count + 1) > 3 * table.capacity {
                let keys = self.keys, crowding = self.crowding, capacity = table.capacity * 2 + 1
                table = table.rehashed(capacity: capacity) { slot in
                    Int(keys[Int(slot) - 1] % crowding) % capacity
                }
            }
            let i = table.probe(from: home(key, table.capacity)) { keys[Int($0) - 1] == key }
            if !table[i].isEmpty { return Int(table[i]) - 1 }
            keys.append(key)
            table[i] = UInt32(keys.count)
            return nil
        }
    }

    @Test(arguments: [1 as UInt64, 3, 1_000, UInt64.max])
    func findsWhatADictionaryFinds(crowding: UInt64) {
        let seed = testSeed(0x7AB1_E000 ^ crowding)
        var random = SplitMix64(seed: seed)
        var map = RowMap(capacity: 5, crowding: crowding)
        var model: [UInt64: Int] = [:]
        let distinct = crowding == 1 ? 300 : 20_000
        for step in 0..<(2 * distinct) {
            let key = 1 + random.next() % UInt64(distinct)
            let row = map.rowOrInsert(key)
            #expect(row == model[key], "seed \(seed), step \(step)")
            if model[key] == nil { model[key] = model.count }
        }
        #expect(map.keys.count == model.count)
    }

    @Test func aProbeWrapsAtTheEnd() {
        let table = OpenAddressingTable<UInt64>(capacity: 7)
        table[5] = 11
        table[6] = 12
        #expect(table.probe(from: 5) { _ in false } == 0)
        #expect(table.probe(from: 6) { $0 == 11 } == 0)
        #expect(table.probe(from: 5) { $0 == 12 } == 6)
    }

    @Test func copiesAreIndependentAndRemoveAllEmpties() {
        let table = OpenAddressingTable<UInt64>(capacity: 100)
        table[3] = 9
        let copy = table.copy()
        copy[3] = 10
        copy[4] = 1
        #expect(table[3] == 9 && table[4] == 0)
        #expect(copy[3] == 10)
        copy.removeAll()
        #expect((0..<100).allSatisfy { copy[$0] == 0 })
        #expect(table[3] == 9)
    }

    @Test func aLargeTableStartsEmptyOnItsOwnMapping() {
        let table = OpenAddressingTable<UInt64>(capacity: 1 << 20)
        #expect((0..<(1 << 20)).allSatisfy { table[$0].isEmpty })
        #expect(Int(bitPattern: table.addressForPrefetch(ofSlot: 0)) % HugePageAllocation.hugePageBytes == 0)
    }
}

struct HugePageAllocationTests {
    @Test(arguments: [
        0, 1, 4_096, HugePageAllocation.hugePageBytes - 1, HugePageAllocation.hugePageBytes,
        3 * HugePageAllocation.hugePageBytes + 5
    ])
    func isZeroedWritableAndAlignedWhenLarge(bytes: Int) {
        let block = HugePageAllocation(zeroedBytes: bytes)
        let raw = UnsafeMutableRawBufferPointer(start: block.base, count: bytes)
        #expect(raw.allSatisfy { $0 == 0 })
        for k in stride(from: 0, to: bytes, by: 4_093) { raw[k] = 0xAB }
        if bytes > 0 { raw[bytes - 1] = 0xCD }
        #expect(block.isHugePageAligned == (bytes >= HugePageAllocation.hugePageBytes))
        if block.isHugePageAligned {
            #expect(Int(bitPattern: block.base) % HugePageAllocation.hugePageBytes == 0)
        }
    }

    /// Mapped and heap blocks alike are returned when their owner ends: 4 GiB mapped and dropped
    /// leaves the process's address space near where it was (a leak would keep all of it).
    @Test func endingABlockGivesItBack() {
        let before = processMemory(field: 0)
        for _ in 0..<512 {
            let large = HugePageAllocation(zeroedBytes: 8 << 20)
            large.base.storeBytes(of: 1, as: UInt8.self)
            let small = HugePageAllocation(zeroedBytes: 100_000)
            small.base.storeBytes(of: 1, as: UInt8.self)
        }
        #expect(processMemory(field: 0) - before < 1 << 30)
    }
}

/// The process's memory from /proc/self/statm, in bytes: `field` 0 is all it has mapped
/// (VmSize), 1 what is resident (RSS).
func processMemory(field: Int) -> Int {
    let fd = open("/proc/self/statm", O_RDONLY)
    guard fd >= 0 else { return 0 }
    defer { close(fd) }
    var text = [UInt8](repeating: 0, count: 256)
    let n = text.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    let fields = text.prefix(max(0, n)).split(separator: 32)
    guard field < fields.count, let pages = Int(String(decoding: fields[field], as: UTF8.self)) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
