import AreaWatchCore

/// A categorized style of a grid.gpkg layer, as QGIS's QML and as SLD 1.1 (SE): one category
/// per value of `attribute`, with the report's legend label and colour (`HTMLStyle`,
/// `HTMLEHSA`: the page, the tiles and the GeoPackage take their colours from one place).
struct CategorizedStyle {
    enum Symbol { case fill, marker }

    struct Category {
        var value: String
        var label: String
        /// `#rrggbb`.
        var colour: String
    }

    let layer: String
    let attribute: String
    let symbol: Symbol
    let categories: [Category]

    /// A thin outline that separates adjacent cells without hiding their colour.
    static let outline = HTMLStyle.muted
    static let outlineWidthMM = "0.06"
    static let markerSizeMM = "3"

    /// By safety class, in the heatmap legend's order (dangerous first) with its labels.
    static func safetyClasses(layer: String, symbol: Symbol) -> CategorizedStyle {
        CategorizedStyle(
            layer: layer, attribute: "class", symbol: symbol,
            categories: SafetyClass.allCases.reversed().map {
                Category(value: $0.rawValue, label: $0.label, colour: HTMLStyle.colour($0))
            })
    }

    /// By emerging-hot-spot label, in the order SPEC §13 lists them.
    static func hotSpotLabels(layer: String) -> CategorizedStyle {
        CategorizedStyle(
            layer: layer, attribute: "label", symbol: .fill,
            categories: HotSpotLabel.allCases.map {
                Category(value: $0.rawValue, label: $0.rawValue, colour: HTMLEHSA.colour($0))
            })
    }

    /// `r,g,b,255` as QML writes colours.
    static func qmlColour(_ hex: String) -> String {
        let value = Int(hex.dropFirst(), radix: 16) ?? 0
        return "\(value >> 16 & 0xFF),\(value >> 8 & 0xFF),\(value & 0xFF),255"
    }

    private func x(_ s: String) -> String { HTMLText.escape(s) }

    var qml: String {
        var out = "<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>\n"
        out += "<qgis version=\"3.28.0\" styleCategories=\"Symbology\">\n"
        out += " <renderer-v2 type=\"categorizedSymbol\" attr=\"\(x(attribute))\" symbollevels=\"0\""
        out += " enableorderby=\"0\" forceraster=\"0\">\n  <categories>\n"
        for (k, c) in categories.enumerated() {
            out += "   <category symbol=\"\(k)\" value=\"\(x(c.value))\" label=\"\(x(c.label))\" render=\"true\"/>\n"
        }
        out += "  </categories>\n  <symbols>\n"
        for (k, c) in categories.enumerated() { out += qmlSymbol(name: String(k), colour: c.colour) }
        out += "  </symbols>\n </renderer-v2>\n"
        out += " <layerGeometryType>\(symbol == .fill ? 2 : 0)</layerGeometryType>\n</qgis>\n"
        return out
    }

    /// One symbol: its properties both as QGIS 3's `Option` map and as the older `prop` list.
    private func qmlSymbol(name: String, colour: String) -> String {
        let properties: [(String, String)] =
            symbol == .fill
            ? [
                ("color", Self.qmlColour(colour)), ("outline_color", Self.qmlColour(Self.outline)),
                ("outline_style", "solid"), ("outline_width", Self.outlineWidthMM), ("outline_width_unit", "MM"),
                ("style", "solid")
            ]
            : [
                ("name", "circle"), ("color", Self.qmlColour(colour)), ("outline_color", Self.qmlColour(Self.outline)),
                ("outline_style", "solid"), ("outline_width", "0.2"), ("outline_width_unit", "MM"),
                ("size", Self.markerSizeMM), ("size_unit", "MM")
            ]
        let type = symbol == .fill ? "fill" : "marker"
        var out = "   <symbol type=\"\(type)\" name=\"\(name)\" alpha=\"1\" clip_to_extent=\"1\" force_rhr=\"0\">\n"
        out += "    <layer class=\"\(symbol == .fill ? "SimpleFill" : "SimpleMarker")\" enabled=\"1\" locked=\"0\""
        out += " pass=\"0\">\n     <Option type=\"Map\">\n"
        for (k, v) in properties { out += "      <Option type=\"QString\" name=\"\(k)\" value=\"\(v)\"/>\n" }
        out += "     </Option>\n"
        for (k, v) in properties { out += "     <prop k=\"\(k)\" v=\"\(v)\"/>\n" }
        return out + "    </layer>\n   </symbol>\n"
    }

    var sld: String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<StyledLayerDescriptor xmlns=\"http://www.opengis.net/sld\" xmlns:ogc=\"http://www.opengis.net/ogc\""
        out += " xmlns:se=\"http://www.opengis.net/se\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\""
        out += " version=\"1.1.0\" xsi:schemaLocation=\"http://www.opengis.net/sld"
        out += " http://schemas.opengis.net/sld/1.1.0/StyledLayerDescriptor.xsd\">\n"
        out += " <NamedLayer>\n  <se:Name>\(x(layer))</se:Name>\n  <UserStyle>\n   <se:Name>\(x(layer))</se:Name>\n"
        out += "   <se:FeatureTypeStyle>\n"
        for c in categories { out += sldRule(c) }
        return out + "   </se:FeatureTypeStyle>\n  </UserStyle>\n </NamedLayer>\n</StyledLayerDescriptor>\n"
    }

    private func sldRule(_ c: Category) -> String {
        var out = "    <se:Rule>\n     <se:Name>\(x(c.label))</se:Name>\n"
        out += "     <se:Description><se:Title>\(x(c.label))</se:Title></se:Description>\n"
        out += "     <ogc:Filter><ogc:PropertyIsEqualTo><ogc:PropertyName>\(x(attribute))</ogc:PropertyName>"
        out += "<ogc:Literal>\(x(c.value))</ogc:Literal></ogc:PropertyIsEqualTo></ogc:Filter>\n"
        let fill = "<se:Fill><se:SvgParameter name=\"fill\">\(c.colour)</se:SvgParameter></se:Fill>"
        let stroke =
            "<se:Stroke><se:SvgParameter name=\"stroke\">\(Self.outline)</se:SvgParameter>"
            + "<se:SvgParameter name=\"stroke-width\">1</se:SvgParameter></se:Stroke>"
        switch symbol {
        case .fill:
            out += "     <se:PolygonSymbolizer>\(fill)\(stroke)</se:PolygonSymbolizer>\n"
        case .marker:
            out += "     <se:PointSymbolizer><se:Graphic><se:Mark><se:WellKnownName>circle</se:WellKnownName>"
            out += "\(fill)\(stroke)</se:Mark><se:Size>11</se:Size></se:Graphic></se:PointSymbolizer>\n"
        }
        return out + "    </se:Rule>\n"
    }
}
