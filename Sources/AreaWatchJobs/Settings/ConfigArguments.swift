import ArgumentParser
import TOMLKit

/// Reads a table of the nightly config as the command line's options: key `tile_zooms = "10-14"`
/// is `--tile-zooms 10-14`. One settings type then serves both (its defaults, help and
/// validation are declared once), and every command-line option is a config key too.
///
/// TOML values map to arguments by the option's kind, read off the settings type itself:
/// a flag takes `true`/`false`; a repeatable option takes an array (one occurrence per element)
/// or one value; any other option takes a string, number or boolean, or an array of numbers and
/// strings joined by commas (`thresholds = [5, 10]` is `--thresholds 5,10`).
enum ConfigArguments {
    /// Parses `table` as the options of `T`; `context` names the file and table in errors.
    static func parse<T: ParsableArguments>(
        _ table: TOMLTable?, as type: T.Type, context: String,
        skipping skipped: Set<String> = []
    ) throws -> T {
        try parse(arguments(table, as: type, context: context, skipping: skipped), as: type, context: context)
    }

    /// Arguments already checked key by key (`arguments`), parsed together.
    static func parse<T: ParsableArguments>(_ arguments: [String], as type: T.Type, context: String) throws -> T {
        do {
            return try T.parse(arguments)
        } catch {
            throw JobError(.usage, "\(context): \(T.message(for: error))")
        }
    }

    /// The command-line arguments of `table`'s keys, each checked alone first so that a bad value
    /// is reported with its key.
    static func arguments<T: ParsableArguments>(
        _ table: TOMLTable?, as type: T.Type, context: String,
        skipping skipped: Set<String> = []
    ) throws -> [String] {
        let kinds = optionKinds(of: type)
        var arguments: [String] = []
        for key in (table?.keys ?? []).sorted() where !skipped.contains(key) {
            guard let kind = kinds[normalized(key)] else {
                throw JobError(.usage, "\(context): unknown key \"\(key)\"")
            }
            let keyArguments = try optionArguments(for: table![key]!, key: key, kind: kind, context: context)
            // Each key alone first, so that a bad value is reported with its key.
            do {
                _ = try T.parse(keyArguments)
            } catch {
                throw JobError(.usage, "\(context): \(key): \(T.message(for: error))")
            }
            arguments += keyArguments
        }
        return arguments
    }

    enum Kind {
        case flag, repeatable, single
    }

    /// Option kinds by normalised property name. A property's command-line name is its name in
    /// kebab case (the config key in snake case), which ArgumentParser derives the same way.
    static func optionKinds<T: ParsableArguments>(of type: T.Type) -> [String: Kind] {
        var kinds: [String: Kind] = [:]
        for child in Mirror(reflecting: T()).children {
            guard var label = child.label else { continue }
            if label.hasPrefix("_") { label.removeFirst() }
            let wrapper = String(describing: Swift.type(of: child.value))
            if wrapper.hasPrefix("Flag<") {
                kinds[normalized(label)] = .flag
            } else if wrapper.hasPrefix("Option<Array<") {
                kinds[normalized(label)] = .repeatable
            } else if wrapper.hasPrefix("Option<") {
                kinds[normalized(label)] = .single
            }
        }
        return kinds
    }

    /// `tile_zooms`, `tileZooms` and `tile-zooms` alike.
    static func normalized(_ name: String) -> String {
        String(name.lowercased().filter { $0 != "_" && $0 != "-" })
    }

    private static func optionArguments(for value: any TOMLValueConvertible, key: String, kind: Kind, context: String)
        throws -> [String]
    {
        let option = "--" + key.replacingOccurrences(of: "_", with: "-")
        func fail(_ expected: String) -> JobError { JobError(.usage, "\(context): \(key) must be \(expected)") }
        switch kind {
        case .flag:
            guard let b = value.bool else { throw fail("true or false") }
            return b ? [option] : []
        case .repeatable:
            if let array = value.array {
                return try array.flatMap { element -> [String] in
                    guard let text = scalarText(element) else { throw fail("an array of strings or numbers") }
                    return [option, text]
                }
            }
            guard let text = scalarText(value) else { throw fail("a string, a number or an array of them") }
            return [option, text]
        case .single:
            if let array = value.array {
                let parts = array.compactMap(scalarText)
                guard parts.count == array.count else {
                    throw fail("a string, a number, a boolean or an array of numbers")
                }
                return [option, parts.joined(separator: ",")]
            }
            guard let text = scalarText(value) else { throw fail("a string, a number or a boolean") }
            return [option, text]
        }
    }

    /// A scalar's argument text; integers without a fraction, so that Int options read them.
    private static func scalarText(_ value: any TOMLValueConvertible) -> String? {
        if let s = value.string { return s }
        if let i = value.int { return String(i) }
        if let d = value.double { return d.isFinite ? "\(d)" : nil }
        if let b = value.bool { return b ? "true" : "false" }
        return nil
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
