import Foundation
import Testing

@testable import AreaWatchIngest

/// The memory bound docs/RELIABILITY.md, DECISIONS.md and PERFORMANCE.md state for the parallel
/// CSV parse is the one `ParallelCSVIngest` keeps: the formula of blocks in flight and the block
/// sizes are read out of each document and checked against the code, so either drifting fails.
@Suite("Documented parse bounds match the code")
struct DocumentedBoundsTests {
    /// "`A × threads + B` blocks of L–H MiB" as it is written in a document.
    struct StatedBound: Equatable {
        var perThread: Int
        var extra: Int
        var smallestMiB: Int
        var largestMiB: Int
    }

    static func statedBounds(in document: String) throws -> [StatedBound] {
        let text = try String(contentsOf: packageRoot().appendingPathComponent("docs/" + document), encoding: .utf8)
        // Line breaks and indentation inside the sentence are the documents' wrapping, not meaning.
        let pattern = #/`(\d+) × threads \+ (\d+)`\s+blocks\s+of\s+(\d+)–(\d+)\s+MiB/#
        return text.matches(of: pattern).map {
            StatedBound(perThread: Int($0.1)!, extra: Int($0.2)!, smallestMiB: Int($0.3)!, largestMiB: Int($0.4)!)
        }
    }

    static let code = StatedBound(
        perThread: ParallelCSVIngest.blocksInFlight(threads: 2) - ParallelCSVIngest.blocksInFlight(threads: 1),
        extra: 2 * ParallelCSVIngest.blocksInFlight(threads: 1) - ParallelCSVIngest.blocksInFlight(threads: 2),
        smallestMiB: IngestOptions().parallelBlockBytes >> 20,
        largestMiB: ParallelCSVIngest.largestBlockBytes(target: IngestOptions().parallelBlockBytes) >> 20)

    @Test("the bound is linear in the threads, as the documents write it")
    func boundIsLinear() {
        for threads in 1...64 {
            let linear = Self.code.perThread * threads + Self.code.extra
            #expect(ParallelCSVIngest.blocksInFlight(threads: threads) == linear)
        }
        #expect(Self.code.smallestMiB << 20 == IngestOptions().parallelBlockBytes)
    }

    @Test("each document states the code's bound", arguments: ["RELIABILITY.md", "DECISIONS.md", "PERFORMANCE.md"])
    func documentStatesTheBound(document: String) throws {
        let stated = try Self.statedBounds(in: document)
        #expect(!stated.isEmpty, "docs/\(document) no longer states the blocks in flight as `A × threads + B`")
        for bound in stated {
            #expect(bound == Self.code, "docs/\(document) states \(bound), the code keeps \(Self.code)")
        }
    }

    /// The attack table's row on this fix quotes the old bound as what was wrong; no other line may.
    @Test("no document states the old `cores + 1` bound")
    func oldBoundIsGone() throws {
        for document in ["RELIABILITY.md", "DECISIONS.md", "PERFORMANCE.md"] {
            let text = try String(contentsOf: packageRoot().appendingPathComponent("docs/" + document), encoding: .utf8)
            let stating = text.split(separator: "\n").filter { !$0.hasPrefix("|") && $0.contains("cores + 1") }
            #expect(stating.isEmpty, "docs/\(document) still states `cores + 1` blocks: \(stating)")
        }
    }
}
