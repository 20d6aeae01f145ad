import AreaWatchStore
import Foundation
import FoundationXML

/// A layer's default style in grid.gpkg's `layer_styles`, its QML and SLD parsed as XML, against
/// the categories the page shows.
enum StyleCheck {
    static func problems(
        _ db: SQLiteDatabase, layer: String, attribute: String,
        expected: [StyleCategory]
    ) throws -> [String] {
        let row = try db.prepare(
            """
            SELECT styleQML, styleSLD FROM layer_styles WHERE f_table_name = ? AND f_geometry_column = 'geom'
              AND f_table_schema = '' AND useAsDefault = 1
            """)
        try row.bind([.text(layer)])
        guard try row.step(), let qml = row.string(0), let sld = row.string(1) else {
            return ["\(layer): no default style"]
        }
        var problems: [String] = []
        let fromQML = QMLStyle(qml), fromSLD = SLDStyle(sld)
        if fromQML.attribute != attribute { problems.append("\(layer) QML: renderer on \(fromQML.attribute)") }
        if fromSLD.attributes != [attribute] { problems.append("\(layer) SLD: filters on \(fromSLD.attributes)") }
        for (name, categories) in [("QML", fromQML.categories), ("SLD", fromSLD.categories)] {
            if !Set(expected).isSubset(of: Set(categories)) {
                problems.append("\(layer) \(name): \(categories), the page's \(expected)")
            }
        }
        return problems
    }
}

/// A QML categorized renderer: its attribute and per category the value, label and the fill
/// colour of its symbol (the `Option` named `color`, `r,g,b,a`).
final class QMLStyle: NSObject, XMLParserDelegate {
    private(set) var attribute = ""
    private var entries: [(value: String, label: String, symbol: String)] = []
    private var colours: [String: String] = [:]
    private var symbol: String?

    init(_ text: String) {
        super.init()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = self
        _ = parser.parse()
    }

    var categories: [StyleCategory] {
        entries.map { StyleCategory(value: $0.value, label: $0.label, colour: colours[$0.symbol] ?? "?") }
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        switch name {
        case "renderer-v2": attribute = attributes["attr"] ?? ""
        case "category":
            entries.append((attributes["value"] ?? "", attributes["label"] ?? "", attributes["symbol"] ?? ""))
        case "symbol": symbol = attributes["name"]
        case "Option" where attributes["name"] == "color":
            if let symbol, colours[symbol] == nil { colours[symbol] = Self.hex(attributes["value"] ?? "") }
        default: break
        }
    }

    /// `214,39,40,255` as `#d62728`.
    static func hex(_ rgba: String) -> String {
        let parts = rgba.split(separator: ",").compactMap { Int($0) }
        guard parts.count == 4 else { return "?" }
        return "#" + parts.prefix(3).map { String(format: "%02x", $0) }.joined()
    }
}

/// An SLD's rules: per rule its name (the label), the literal its filter compares with (the
/// value) and the `fill` parameter; the property names the filters use.
final class SLDStyle: NSObject, XMLParserDelegate {
    private(set) var categories: [StyleCategory] = []
    private(set) var attributes: Set<String> = []
    private var current = StyleCategory(value: "", label: "", colour: "")
    private var text = ""
    private var fill = false
    private var path: [String] = []

    init(_ sld: String) {
        super.init()
        let parser = XMLParser(data: Data(sld.utf8))
        parser.delegate = self
        _ = parser.parse()
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        path.append(name)
        text = ""
        if name == "se:Rule" { current = StyleCategory(value: "", label: "", colour: "") }
        fill = name == "se:SvgParameter" && attributes["name"] == "fill"
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        path.removeLast()
        switch name {
        case "se:Name" where path.last == "se:Rule": current.label = text
        case "ogc:Literal": current.value = text
        case "ogc:PropertyName": attributes.insert(text)
        case "se:SvgParameter" where fill && path.last == "se:Fill": current.colour = text
        case "se:Rule": categories.append(current)
        default: break
        }
    }
}
