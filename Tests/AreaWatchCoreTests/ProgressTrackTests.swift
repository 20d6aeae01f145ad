import AreaWatchCore
import Testing

@Suite("Progress bars")
struct ProgressTrackTests {
    @Test("the percent never goes back, and is 100 only on the last step")
    func monotoneAndHonest() {
        var random = SplitMix64(seed: testSeed(0x9_2801))
        for _ in 0..<200 {
            var track = ProgressTrack()
            let total = Double(1 + random.next() % 5_000_000)
            var shown = -1
            for _ in 0..<Int(random.next() % 40) {
                // Wavering estimates: anything from 0 to just below the total.
                let done = (random.unit() * total).rounded(.down)
                let step = track.advance("ingest a.csv", done: min(done, total - 1), total: total, detail: "")
                #expect(step.percent >= shown && step.percent < 100 && !step.final)
                shown = step.percent
            }
            let last = track.advance("ingest a.csv", done: total, total: total, detail: "")
            #expect(last.final && last.percent == 100 && last.fraction == 1)
        }
    }

    @Test("percent is the fraction rounded down: 1,999,768 of 1,999,769 is 99")
    func roundedDown() {
        var track = ProgressTrack()
        #expect(track.advance("load", done: 1_999_768, total: 1_999_769, detail: "").percent == 99)
        #expect(track.advance("load", done: 0, total: 0, detail: "").final, "an empty input is complete at once")
    }

    @Test("a repeated last step is not shown twice; the same label later starts a new bar")
    func repeatsAndNewBars() {
        var track = ProgressTrack()
        let first = track.advance("ingest a.csv", done: 50, total: 100, detail: "5 records")
        #expect(first.started && !first.shownBefore)
        track.didShow(first, detail: "5 records")
        let done = track.advance("ingest a.csv", done: 100, total: 100, detail: "10 records")
        #expect(done.final && !done.repeated && !done.started && done.shownBefore)
        track.didShow(done, detail: "10 records")
        #expect(track.advance("ingest a.csv", done: 100, total: 100, detail: "10 records").repeated)
        // Another file of the same name: its bar starts from nothing, not at 100 %.
        let next = track.advance("ingest a.csv", done: 10, total: 100, detail: "1 records")
        #expect(next.started && next.percent == 10 && !next.shownBefore)
        #expect(track.advance("ingest b.csv", done: 5, total: 100, detail: "").started)
    }

    @Test("AREAWATCH_PROGRESS: auto, always, never; anything else is auto with a problem")
    func setting() {
        #expect(ProgressDisplay.choose(setting: nil, terminal: true) == (.bar, nil))
        #expect(ProgressDisplay.choose(setting: "", terminal: false) == (.throttledLines, nil))
        #expect(ProgressDisplay.choose(setting: "auto", terminal: false) == (.throttledLines, nil))
        #expect(ProgressDisplay.choose(setting: "ALWAYS", terminal: true) == (.everyUpdate, nil))
        #expect(ProgressDisplay.choose(setting: "never", terminal: true) == (.off, nil))
        let odd = ProgressDisplay.choose(setting: "yes", terminal: true)
        #expect(odd.display == .bar && odd.problem?.contains("AREAWATCH_PROGRESS=yes") == true)
    }

    @Test("grouped counts match a plain digit-by-digit grouping")
    func grouped() {
        #expect(NumberFormat.grouped(0) == "0")
        #expect(NumberFormat.grouped(999) == "999")
        #expect(NumberFormat.grouped(1000) == "1,000")
        #expect(NumberFormat.grouped(1_999_769) == "1,999,769")
        #expect(NumberFormat.grouped(-65_536) == "-65,536")
        #expect(NumberFormat.grouped(Int.min) == "-9,223,372,036,854,775,808")
        var random = SplitMix64(seed: testSeed(0x9_2802))
        for _ in 0..<2000 {
            let v = Int(truncatingIfNeeded: random.next()) >> Int(random.next() % 63)
            var digits = Array(String(v.magnitude))
            var groups: [String] = []
            while digits.count > 3 {
                groups.insert(String(digits.suffix(3)), at: 0)
                digits.removeLast(3)
            }
            groups.insert(String(digits), at: 0)
            #expect(NumberFormat.grouped(v) == (v < 0 ? "-" : "") + groups.joined(separator: ","))
        }
    }
}
