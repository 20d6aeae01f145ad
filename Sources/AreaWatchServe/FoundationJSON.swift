import AreaWatchCore
import Foundation

extension JSONValue {
    /// A value parsed by `JSONSerialization`, objects with their members sorted by name (its
    /// dictionaries have no order; sorted keeps the server's answers deterministic).
    init?(foundation value: Any) {
        switch value {
        case let s as String: self = .string(s)
        case let b as Bool where type(of: value) == Bool.self: self = .bool(b)
        case let n as NSNumber:
            if let i = value as? Int, Double(i) == n.doubleValue {
                self = .int(i)
            } else {
                self = .number(n.doubleValue)
            }
        case let a as [Any]: self = .array(a.compactMap(JSONValue.init(foundation:)))
        case let o as [String: Any]:
            self = .object(o.keys.sorted().compactMap { k in JSONValue(foundation: o[k]!).map { (k, $0) } })
        case is NSNull: self = .null
        default: return nil
        }
    }
}
