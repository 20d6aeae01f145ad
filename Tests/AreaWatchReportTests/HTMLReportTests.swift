import AreaWatchCore
import AreaWatchQuery
import Foundation
import Testing

@testable import AreaWatchReport

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// report.html built from a real query run on synthetic incidents: structure, escaping,
/// determinism, disclosure and the drawn cells.
@Suite struct HTMLReportTests {
    @Test func pageIsWellFormedAndSectionsComeInOrder() throws {
        let html = HTMLReport.render(Fixture.content())
        #expect(html.hasPrefix("<!DOCTYPE html>\n"))
        let root = try XMLTree.parse(html)
        #expect(root.name == "html")
        let ids = root.descendants("section").compactMap { $0.attributes["id"] }
        #expect(ids == ["changes", "summary", "heatmap", "top-cells", "trend", "breakdown", "areas", "poi", "inputs"])
        #expect(root.descendants("footer").first?.allText.contains("Test attribution") == true)
        #expect(root.descendants("footer").first?.allText.contains("9.9.9-test") == true)
    }

    @Test func legendHasOneEntryPerClass() throws {
        let root = try XMLTree.parse(HTMLReport.render(Fixture.content()))
        let entries = root.descendants("g").filter { $0.attributes["class"] == "legend-entry" }
        #expect(entries.compactMap { $0.attributes["data-class"] }.sorted() == ["dangerous", "medium", "safe"])
    }

    @Test func dataTextIsEscaped() throws {
        let html = HTMLReport.render(Fixture.content())
        #expect(!html.contains("<script"))
        #expect(!html.contains("<b>"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("Café &lt;b&gt;bold&lt;/b&gt;"))
        #expect(html.contains("Town &lt;centre&gt; &amp; &quot;quoted&quot;"))
        #expect(html.contains("exports/day &lt;1&gt; &amp; &#39;a&#39;.csv"))
        // The escaped texts still read back as the original data.
        let root = try XMLTree.parse(html)
        #expect(root.descendants("td").contains { $0.allText == "<script>alert(1)</script>" })
    }

    @Test func sameContentGivesIdenticalBytesAndTimingsDoNotShow() {
        var a = Fixture.content()
        var b = Fixture.content()
        a.timings = [("ingest", 1.234567)]
        b.timings = [("ingest", 98.765432), ("grid", 0.5)]
        let html = HTMLReport.render(a)
        #expect(html == HTMLReport.render(a))
        #expect(html == HTMLReport.render(b))
        #expect(!html.contains("1.23"))
    }

    @Test func pageNeedsNoNetwork() {
        let html = HTMLReport.render(Fixture.content())
        #expect(!html.contains("http://"))
        #expect(!html.contains("https://"))
        #expect(!html.contains("src="))
        #expect(!html.contains("@import"))
        #expect(!html.contains("url("))
    }

    @Test func smallCountsAreWithheld() throws {
        let content = Fixture.content(minCellCount: 3)
        // The lonely cell has nothing but counts below 3: it is not on the page at all.
        let lonely = try #require(content.grid.cells.first { $0.rCurrent == 2 })
        let page = HTMLReport.render(content)
        #expect(!page.contains(lonely.cell.string))
        // With K = 7 the cluster's cells (14 current, 6 previous) show "<7" and no delta.
        let strict = Fixture.content(minCellCount: 7)
        let root = try XMLTree.parse(HTMLReport.render(strict))
        let mixed = try #require(strict.grid.cells.first { $0.rCurrent >= 7 && $0.rPrevious < 7 })
        let rows = root.descendants("tr").filter { row in
            row.descendants("td").contains { $0.allText == mixed.cell.string }
        }
        #expect(!rows.isEmpty)
        for row in rows {
            // #, geohash, lat, lon, r_current, r_previous, delta, pct.
            let counts = row.descendants("td").dropFirst(4).map(\.allText)
            #expect(counts.prefix(4) == [String(mixed.rCurrent), "<7", "—", "—"], "\(counts)")
        }
        let tooltip = try #require(root.descendants("title").first { $0.allText.hasPrefix(mixed.cell.string) })
        #expect(tooltip.allText.contains("r_previous <7"))
        // The same content without disclosure control shows the lonely cell and its 2.
        let exact = try XMLTree.parse(HTMLReport.render(Fixture.content(minCellCount: 1)))
        let exactRows = exact.descendants("tr").filter { row in
            row.descendants("td").contains { $0.allText == lonely.cell.string }
        }
        #expect(exactRows.first?.descendants("td").dropFirst(4).first?.allText == "2")
    }

    @Test func detailedHeatmapDrawsEveryCellOnce() throws {
        let content = Fixture.content()
        let root = try XMLTree.parse(HTMLReport.render(content))
        let heatmap = try #require(root.descendants("svg").first { $0.attributes["class"] == "heatmap" })
        #expect(heatmap.attributes["data-cells"] == String(content.grid.cells.count))
        let groups = heatmap.descendants("g").filter { $0.attributes["class"]?.hasPrefix("cells ") == true }
        var positions = Set<[Int]>()
        for group in groups {
            let cls = String(group.attributes["class"]!.dropFirst(6))
            let rects = group.children.filter { $0.name == "rect" }
            #expect(rects.count == content.grid.classCounts[SafetyClass(rawValue: cls)!])
            #expect(group.attributes["fill"] == HTMLStyle.colour(SafetyClass(rawValue: cls)!))
            for r in rects { positions.insert([Int(r.attributes["x"]!)!, Int(r.attributes["y"]!)!]) }
        }
        #expect(positions.count == content.grid.cells.count)
    }

    @Test func mergedHeatmapCoversTheSameCells() throws {
        let content = Fixture.content()
        let detailed = try XMLTree.parse(HTMLHeatmap.svg(content, detailed: true))
        let merged = try XMLTree.parse(HTMLHeatmap.svg(content, detailed: false))
        var fromRects = Set<[Int]>(), fromRuns = Set<[Int]>()
        for rect in detailed.descendants("g").filter({ $0.attributes["class"]?.hasPrefix("cells ") == true }).flatMap(
            \.children)
        {
            fromRects.insert([Int(rect.attributes["x"]!)!, Int(rect.attributes["y"]!)!])
        }
        let paths = merged.descendants("path").filter { $0.attributes["class"]?.hasPrefix("cells ") == true }
        var total = 0
        for path in paths {
            let runs = Fixture.runs(path.attributes["d"]!)
            let cells = runs.reduce(0) { $0 + $1.width }
            #expect(String(cells) == path.attributes["data-cells"])
            total += cells
            for run in runs { for dx in 0..<run.width { fromRuns.insert([run.x + dx, run.y]) } }
        }
        #expect(total == content.grid.cells.count)
        #expect(fromRuns == fromRects)
        #expect(paths.count == content.grid.classCounts.values.filter { $0 > 0 }.count)
    }

    @Test func trendHasOneBarPerYear() throws {
        let content = Fixture.content()
        let root = try XMLTree.parse(HTMLReport.render(content))
        let bars = root.descendants("g").filter { $0.attributes["class"] == "bar" }
        #expect(bars.map { Int($0.attributes["data-year"]!)! } == content.totals.years)
        #expect(bars.map { Int($0.attributes["data-count"]!)! } == content.totals.yearCounts)
    }

    @Test func noIncidentCoordinatesReachThePage() {
        let html = HTMLReport.render(Fixture.content())
        for (lat, lon) in Fixture.incidentLocations() {
            #expect(!html.contains(NumberFormat.fixed(lat, decimals: 6)))
            #expect(!html.contains(NumberFormat.fixed(lon, decimals: 6)))
        }
    }

    @Test func emptyGridStillRenders() throws {
        var content = Fixture.content()
        var columns = IncidentColumns()
        columns.append(lat: 53.7, lon: -1.8, time: Fixture.asOf - 10 * Fixture.year, handled: nil, category: nil)
        let index = IncidentIndex(columns: columns, parameters: content.parameters)
        content = ReportContent(
            parameters: content.parameters, grid: index.grid(precision: 6), totals: index.totals(),
            tileZooms: nil, disclosure: Disclosure(), areas: nil, pointsOfInterest: nil, breakdown: nil,
            sourceKind: "files", sourcePath: nil, inputs: [], timings: [], attribution: "", engineVersion: "0")
        let root = try XMLTree.parse(HTMLReport.render(content))
        #expect(
            root.descendants("section").compactMap { $0.attributes["id"] } == [
                "changes", "summary", "heatmap", "top-cells", "trend", "inputs"
            ])
    }
}

@Suite struct HTMLTextTests {
    @Test func escapesMarkupAndControlCharacters() {
        #expect(HTMLText.escape("plain café") == "plain café")
        #expect(HTMLText.escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;")
        #expect(HTMLText.escape("tab\there\u{1}\u{7F}") == "tab\there\u{FFFD}\u{FFFD}")
    }

    @Test func formatsNumbersForReading() {
        #expect(HTMLText.grouped(0) == "0")
        #expect(HTMLText.grouped(999) == "999")
        #expect(HTMLText.grouped(1000) == "1,000")
        #expect(HTMLText.grouped(-1_234_567) == "-1,234,567")
        #expect(HTMLText.signed(5) == "+5")
        #expect(HTMLText.signed(-5) == "-5")
        #expect(HTMLText.percent(nil) == "—")
        #expect(HTMLText.percent(0.125) == "+12.5%")
        #expect(HTMLText.percent(-0.5) == "-50.0%")
        #expect(HTMLText.count(2, Disclosure(minCellCount: 3)) == "&lt;3")
        // Zero too: a withheld count must look like "nothing there" (SPEC §10).
        #expect(HTMLText.count(0, Disclosure(minCellCount: 3)) == "&lt;3")
        #expect(HTMLText.count(0, Disclosure(minCellCount: 1)) == "0")
        #expect(HTMLText.count(3, Disclosure(minCellCount: 3)) == "3")
    }
}
