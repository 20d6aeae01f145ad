import AreaWatchCore
import Testing

@testable import AreaWatchIngest

/// The ingest's buffers on their own (the parsers' property tests exercise them only through
/// whole files): the captured-bytes buffer, the read window over a source, and a parsed block.
/// `make test-asan` runs these under the address sanitizer.
struct OwnedBuffersTests {
    @Test func byteBufferAppendsDropsAndReadsInPlace() throws {
        let buffer = ByteBuffer(capacity: 1)
        buffer.append(Array("hello, ".utf8))
        let world = Array("world".utf8)
        buffer.append(world.span)
        #expect(Array(buffer.bytes) == Array("hello, world".utf8))
        buffer.removeFirst(7)
        #expect(Array(buffer.bytes) == Array("world".utf8))
        let source = ByteSource(bytes: Array(repeating: 7, count: 10_000), name: "seven.bin", readLimit: 3_000)
        let read = try buffer.append(readingAtMost: 4_096) { room throws(InputError) in
            try source.read(into: room.baseAddress!, capacity: room.count)
        }
        #expect(read == 3_000 && buffer.count == 3_005)
        #expect(buffer.bytes.suffix(3_000).allSatisfy { $0 == 7 })
        buffer.removeFirst(1 << 20)
        #expect(buffer.isEmpty)
    }

    /// Reading a source through the window, keeping an unfinished "record" of growing length
    /// across refills as the scanners do: every byte arrives once, in order, at its offset, and
    /// the window grows for a long record and shrinks back after it.
    @Test(arguments: [1, 7, 64, 1_000])
    func chunkWindowDeliversEveryByteOnce(chunk: Int) throws {
        var random = SplitMix64(seed: 0xC4_0000 + UInt64(chunk))
        let content = (0..<50_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let reads = 1 + Int(random.next() % 5_000)
        let source = ByteSource(bytes: content, name: "window.bin", readLimit: reads)
        let buffer = ChunkBuffer(source: source, chunkSize: chunk)
        var delivered: [UInt8] = []
        var position = 0
        var largestWindow = 0
        while true {
            // Consume a record of random length (sometimes far longer than the chunk).
            let want = random.next() % 20 == 0 ? 20 * chunk + 5 : 1 + Int(random.next() % UInt64(2 * chunk))
            while buffer.end - position < want {
                let (more, shift) = try buffer.refill()
                position -= shift
                largestWindow = max(largestWindow, buffer.end)
                if !more { break }
            }
            let take = min(want, buffer.end - position)
            if take == 0 { break }
            #expect(Int(buffer.baseOffset) + position == delivered.count)
            delivered += buffer.slice(position, position + take)
            position += take
            buffer.release(upTo: position)
        }
        #expect(delivered == content, "chunk \(chunk), reads of \(reads)")
        #expect(largestWindow >= 20 * chunk)
    }

    @Test func aBorrowedBlockIsReadInPlaceAndNeverRefilled() throws {
        var bytes = Array("a,b\n1,2\n".utf8)
        try bytes.withUnsafeMutableBufferPointer { block in
            let buffer = ChunkBuffer(borrowing: block, source: ByteSource(bytes: [], name: "block.csv"))
            #expect(buffer.slice(0, buffer.end).baseAddress == UnsafePointer(block.baseAddress))
            #expect(buffer.atEOF && buffer.end == 8)
            let refilled = try buffer.refill()
            #expect(!refilled.more && refilled.shift == 0)
        }
    }

    @Test func aParsedBlockKeepsItsIncidentsInOrderUntilReleased() {
        let block = ParsedBlock(
            bytes: {
                var bytes = GrowableBuffer<UInt8>(capacity: 4)
                bytes.append(repeating: ASCII.lf, count: 100_000)
                return bytes
            }())
        #expect(block.unsafeBytes.count == 100_000)
        for i in 0..<5_000 {
            block.append(
                Incident(
                    key: "k\(i)", time: Int64(i), precision: .second, lat: 1, lon: 2,
                    category: i % 2 == 0 ? "burglary" : nil),
                key: i % 3 == 0 ? .idless(digest: UInt64(i)) : .id)
            if i == 2_500 { block.append(ParsedBlock.Reject(reason: .invalidTime, line: 9, idHint: nil, excerpt: nil)) }
        }
        #expect(block.acceptedCount == 5_000)
        #expect(block.rejects.map(\.acceptedBefore) == [2_501])
        let incidents = block.incidents.unsafeBaseAddress, keys = block.keys.unsafeBaseAddress
        #expect((0..<5_000).allSatisfy { incidents[$0].key == "k\($0)" && incidents[$0].time == Int64($0) })
        #expect(
            (0..<5_000).allSatisfy { i in
                if case .idless(let digest) = keys[i] { return i % 3 == 0 && digest == UInt64(i) }
                return i % 3 != 0
            })
        block.release()
        #expect(block.acceptedCount == 0 && block.rejects.isEmpty && block.unsafeBytes.isEmpty)
    }
}
