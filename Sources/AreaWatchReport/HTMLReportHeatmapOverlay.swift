import AreaWatchCore
import AreaWatchQuery

/// What is drawn over the heatmap cells: named-area outlines with labels and a scale bar.
enum HeatmapOverlay {
    static func areaOutlines(_ areas: [NamedArea], frame: HeatmapFrame) -> String {
        guard !areas.isEmpty else { return "" }
        var out =
            "<g class=\"areas\" fill=\"none\" stroke=\"#1f2933\" stroke-width=\"1.3\" stroke-opacity=\"0.85\" stroke-linejoin=\"round\">\n"
        for area in areas {
            out += "<path d=\"\(pathData(area, frame: frame))\"><title>\(HTMLText.escape(area.id))</title></path>\n"
        }
        out += "</g>\n<g class=\"area-labels\" font-size=\"11\" font-weight=\"600\" text-anchor=\"middle\">\n"
        var placed: [LabelBox] = []
        for area in areas {
            let candidates = labelCandidates(area, frame: frame)
            guard !candidates.isEmpty else { continue }
            // Estimated width at 11 px: good enough to keep labels apart and inside the map.
            let width = Double(area.id.count) * 6.6
            let boxes = candidates.map { LabelBox(centreX: $0.x, centreY: $0.y, width: width, frame: frame) }
            let box = boxes.first { b in !placed.contains { $0.overlaps(b) } } ?? boxes[0]
            placed.append(box)
            out +=
                "<text class=\"halo\" x=\"\(f(box.centreX))\" y=\"\(f(box.centreY + 4))\">\(HTMLText.escape(area.id))</text>\n"
        }
        return out + "</g>\n"
    }

    /// Every ring as one closed subpath; vertices closer than half a unit to the last one kept
    /// are dropped, so detailed boundaries cost no more than the figure can show.
    static func pathData(_ area: NamedArea, frame: HeatmapFrame) -> String {
        var d = ""
        for ring in area.polygons.flatMap(\.rings) where ring.count >= 3 {
            var last: (Double, Double)?
            for (k, p) in ring.enumerated() {
                let x = frame.px(p.lon), y = frame.py(p.lat)
                if let last, k < ring.count - 1, abs(x - last.0) < 0.5, abs(y - last.1) < 0.5 { continue }
                d += (last == nil ? "M" : "L") + f(x) + " " + f(y)
                last = (x, y)
            }
            d += "Z"
        }
        return d
    }

    /// Middles of the interior spans on a few horizontal lines, widest first: inside the area
    /// even for rings with holes (the middle of the bounding box may lie in the hole).
    static func labelCandidates(_ area: NamedArea, frame: HeatmapFrame) -> [(x: Double, y: Double)] {
        let box = area.bounds
        guard box.minLat <= box.maxLat else { return [] }
        let rings = area.polygons.flatMap(\.rings).map { ring in ring.map { (x: frame.px($0.lon), y: frame.py($0.lat)) }
        }
        var spans: [(width: Double, x: Double, y: Double)] = []
        for fraction in [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8] {
            let y = frame.py(box.maxLat) + (frame.py(box.minLat) - frame.py(box.maxLat)) * fraction
            var crossings: [Double] = []
            for ring in rings where ring.count >= 3 {
                for i in 0..<ring.count {
                    let a = ring[i], b = ring[(i + 1) % ring.count]
                    if (a.y > y) != (b.y > y) { crossings.append(a.x + (y - a.y) / (b.y - a.y) * (b.x - a.x)) }
                }
            }
            crossings.sort()
            for k in stride(from: 0, to: crossings.count - 1, by: 2) {
                spans.append((crossings[k + 1] - crossings[k], (crossings[k] + crossings[k + 1]) / 2, y))
            }
        }
        // Stable order: among equally wide spans the more central line wins.
        let order = spans.indices.sorted {
            spans[$0].width != spans[$1].width ? spans[$0].width > spans[$1].width : $0 < $1
        }
        return order.map { (spans[$0].x, spans[$0].y) }
    }

    /// A bar of a round length, about a quarter of the map wide, under its bottom-left corner.
    static func scaleBar(frame: HeatmapFrame) -> String {
        let metres = roundDown(frame.mapW / 4 * frame.metresPerUnit)
        let length = metres / frame.metresPerUnit
        let x = frame.mapX, y = frame.mapY + frame.mapH + 18
        let label = metres >= 1000 ? NumberFormat.compact(metres / 1000) + " km" : NumberFormat.compact(metres) + " m"
        var out = "<g class=\"scale\">"
        out += "<rect x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(length / 2))\" height=\"5\" fill=\"\(HTMLStyle.ink)\" />"
        out +=
            "<rect x=\"\(f(x + length / 2))\" y=\"\(f(y))\" width=\"\(f(length / 2))\" height=\"5\" fill=\"#fff\" stroke=\"\(HTMLStyle.ink)\" stroke-width=\"1\" />"
        out += "<text x=\"\(f(x + length + 8))\" y=\"\(f(y + 6))\" font-size=\"12\">\(label)</text>"
        return out + "</g>\n"
    }

    /// The largest 1, 2 or 5 times a power of ten not above `v`.
    static func roundDown(_ v: Double) -> Double {
        var magnitude = 1.0
        while magnitude * 10 <= v { magnitude *= 10 }
        while magnitude > v && magnitude > 1e-3 { magnitude /= 10 }
        for m in [5.0, 2.0, 1.0] where m * magnitude <= v { return m * magnitude }
        return magnitude
    }

    static func f(_ v: Double) -> String { NumberFormat.fixed(v, decimals: 1) }
}

/// An area label's extent, moved inside the map box.
struct LabelBox {
    let centreX: Double
    let centreY: Double
    let width: Double

    init(centreX: Double, centreY: Double, width: Double, frame: HeatmapFrame) {
        let half = min(width, frame.mapW) / 2
        self.centreX = min(max(centreX, frame.mapX + half + 2), frame.mapX + frame.mapW - half - 2)
        self.centreY = min(max(centreY, frame.mapY + 10), frame.mapY + frame.mapH - 6)
        self.width = width
    }

    func overlaps(_ other: LabelBox) -> Bool {
        abs(centreX - other.centreX) < (width + other.width) / 2 + 4 && abs(centreY - other.centreY) < 15
    }
}

/// The heatmap legend, right of the map: one entry per class with its rule and cell count,
/// the empty-map colour, the area outline, and the as-of.
struct HeatmapLegend {
    static let width = 270.0
    let x: Double
    let y: Double
    let content: ReportContent

    init(frame: HeatmapFrame, content: ReportContent) {
        x = frame.mapX + frame.mapW + 26
        y = frame.mapY
        self.content = content
    }

    /// Class entries, empty map, optional area line, then three lines of notes.
    var bottom: Double { y + 24 + Double(SafetyClass.allCases.count + 1) * 40 + (content.areas == nil ? 0 : 28) + 64 }

    func render() -> String {
        let t = content.parameters.thresholds
        let a = NumberFormat.compact(t.medium), b = NumberFormat.compact(t.dangerous)
        let counts = content.grid.classCounts
        var out = "<g class=\"legend\" font-size=\"12\">\n"
        out +=
            "<text x=\"\(f(x))\" y=\"\(f(y + 12))\" font-size=\"13\" font-weight=\"600\">Class of the cell (r_current)</text>\n"
        var row = y + 24
        for cls in SafetyClass.allCases.reversed() {
            let rule = cls == .dangerous ? "≥ \(b)" : cls == .medium ? "\(a) to &lt; \(b)" : "&lt; \(a)"
            out += "<g class=\"legend-entry\" data-class=\"\(cls.rawValue)\">"
            out += swatch(row, fill: HTMLStyle.colour(cls))
            out += "<text x=\"\(f(x + 30))\" y=\"\(f(row + 12))\" font-weight=\"600\">\(cls.label)</text>"
            out += "<text x=\"\(f(x + 30))\" y=\"\(f(row + 27))\" fill=\"\(HTMLStyle.muted)\">\(rule) incidents · "
            out += "\(HTMLText.grouped(counts[cls] ?? 0)) cells</text></g>\n"
            row += 40
        }
        out += swatch(row, fill: HTMLStyle.emptyMap, stroke: "#c5cdd5")
        out += "<text x=\"\(f(x + 30))\" y=\"\(f(row + 12))\">No cell reported</text>"
        out +=
            "<text x=\"\(f(x + 30))\" y=\"\(f(row + 27))\" fill=\"\(HTMLStyle.muted)\">no incident within the radius</text>\n"
        row += 40
        if content.areas != nil {
            out +=
                "<line x1=\"\(f(x))\" x2=\"\(f(x + 22))\" y1=\"\(f(row + 8))\" y2=\"\(f(row + 8))\" stroke=\"#1f2933\" stroke-width=\"1.3\" />"
            out += "<text x=\"\(f(x + 30))\" y=\"\(f(row + 12))\">Named area outline</text>\n"
            row += 28
        }
        let notes = [
            "Radius \(NumberFormat.compact(content.parameters.radius)) m, current year",
            "\(HTMLText.grouped(content.grid.cells.count)) cells, "
                + (content.grid.geohashPrecision.map { "geohash \($0)" } ?? content.grid.system.label),
            "As of \(UTCTime.iso8601(content.parameters.asOf))"
        ]
        for note in notes {
            out += "<text x=\"\(f(x))\" y=\"\(f(row + 14))\" fill=\"\(HTMLStyle.muted)\">\(note)</text>\n"
            row += 18
        }
        return out + "</g>\n"
    }

    func swatch(_ top: Double, fill: String, stroke: String? = nil) -> String {
        "<rect x=\"\(f(x))\" y=\"\(f(top))\" width=\"22\" height=\"16\" rx=\"2\" fill=\"\(fill)\""
            + (stroke.map { " stroke=\"\($0)\"" } ?? "") + " />"
    }

    func f(_ v: Double) -> String { NumberFormat.fixed(v, decimals: 1) }
}
