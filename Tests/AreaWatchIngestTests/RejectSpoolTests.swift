import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchIngest

/// The spool that holds a file's rejects until its commit reads back exactly what was added,
/// in memory and past its memory limit, and starts empty again for the next file.
@Suite("Reject spool")
struct RejectSpoolTests {
    static func randomRows(_ count: Int, seed: UInt64) -> [RejectSpool.Row] {
        var rng = SplitMix64(seed: seed)
        let alphabet = Array("abc,\"\n\r\t=+-@'é🚨 0123456789")
        func text(_ maxLength: Int) -> String {
            let length = Int(rng.next() % UInt64(maxLength + 1))
            return String((0..<length).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
        }
        return (0..<count).map { _ in
            // Now and then a long field: a row may straddle the spool's read chunks.
            let long = rng.next() % 2000 == 0
            return RejectSpool.Row(
                record: long ? text(200_000) : text(12), id: rng.next() % 3 == 0 ? nil : text(20),
                reason: RejectReason.allCases[Int(rng.next() % 6)], excerpt: text(200))
        }
    }

    static func readBack(_ spool: RejectSpool) throws -> [RejectSpool.Row] {
        var rows: [RejectSpool.Row] = []
        try spool.forEach { rows.append($0) }
        return rows
    }

    @Test(
        "rows read back as added: a few in memory, many spilled to the temporary file",
        arguments: [10, 3_000, 40_000])
    func roundTrip(count: Int) throws {
        let dir = try TempDir()
        let spool = RejectSpool(folder: dir.path)
        let rows = Self.randomRows(count, seed: UInt64(count))
        for row in rows {
            try spool.add(source: "f.csv", record: row.record, id: row.id, reason: row.reason, excerpt: row.excerpt)
        }
        #expect(spool.count == rows.count)
        #expect(try Self.readBack(spool) == rows)
        #expect(try Self.readBack(spool) == rows, "a second reading differs")
        // Nothing is left in the folder: the temporary file has no name.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)

        spool.removeAll()
        #expect(spool.count == 0)
        #expect(try Self.readBack(spool).isEmpty)
        let next = Self.randomRows(50, seed: 99)
        for row in next {
            try spool.add(source: "g.csv", record: row.record, id: row.id, reason: row.reason, excerpt: row.excerpt)
        }
        #expect(try Self.readBack(spool) == next)
    }

    @Test("a folder where no file can be made: the spill fails with an input error naming it")
    func unwritableFolder() throws {
        let spool = RejectSpool(folder: "/nonexistent-folder-of-areawatch")
        let row = String(repeating: "x", count: 1 << 16)
        #expect(throws: InputError.self) {
            for _ in 0..<40 { try spool.add(source: "f", record: row, id: nil, reason: .malformedRecord, excerpt: row) }
        }
    }
}
