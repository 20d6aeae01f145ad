/// `--public-url`: where clients reach a report folder or server (`https://tiles.example.org/safety`),
/// the base of every absolute URL areawatch writes (SPEC §19). Checked once: `http` or `https`, a
/// host of letters, digits, `-`, `.`, `_` or a bracketed IPv6 address, an optional port, an
/// optional path of URL-safe characters; no user, query or fragment. A trailing `/` is dropped, so
/// `base + "/tiles/…"` has one slash.
public enum PublicURL {
    public static func parse(_ text: String) -> Result<String, PublicURLError> {
        func refuse(_ why: String) -> Result<String, PublicURLError> {
            .failure(PublicURLError(message: "--public-url \"\(text)\" \(why); e.g. https://tiles.example.org/safety"))
        }
        let lower = text.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lower.hasPrefix($0) }) else {
            return refuse("must start with http:// or https://")
        }
        let rest = text.dropFirst(scheme.count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash], path = rest[slash...]
        guard validAuthority(authority) else { return refuse("has no valid host[:port]") }
        guard path.utf8.allSatisfy(isPathByte) else {
            return refuse("may hold only a host, a port and a path (no spaces, user, query or fragment)")
        }
        var url = scheme + authority.lowercased() + path
        while url.hasSuffix("/") { url.removeLast() }
        return .success(url)
    }

    /// `host`, `host:port` or `[v6]:port`, the port 1…65535.
    static func validAuthority(_ authority: Substring) -> Bool {
        var host = authority, port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return false }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return false }
                port = after.dropFirst()
            }
            guard !host.isEmpty,
                host.utf8.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return false }
        } else {
            if let colon = authority.firstIndex(of: ":") {
                host = authority[..<colon]
                port = authority[authority.index(after: colon)...]
            }
            guard !host.isEmpty, host.count <= 253, host.utf8.allSatisfy(isHostByte) else { return false }
        }
        if let port {
            guard let n = Int(port), (1...65535).contains(n), port.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                return false
            }
        }
        return true
    }

    static func isHostByte(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 45 || b == 46 || b == 95
    }

    static func isHexDigit(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 65 && b <= 70) || (b >= 97 && b <= 102)
    }

    /// RFC 3986's unreserved and sub-delimiter characters, `/`, `:`, `@` and `%`: a path, nothing else.
    static func isPathByte(_ b: UInt8) -> Bool {
        isHostByte(b) || b == 126 || b == 47 || b == 58 || b == 64 || b == 37
            || [33, 36, 38, 39, 40, 41, 42, 43, 44, 59, 61].contains(b)
    }
}

/// Why a `--public-url` was refused.
public struct PublicURLError: Error, Sendable {
    public let message: String
}

/// `serve --basemap`: a MapLibre style URL the map page loads (SPEC §14). Checked like
/// `--public-url` (`http` or `https`, a valid host and port, URL-safe characters), and it may also
/// carry a query (a style service's key): `?` and the query's `=`/`&` are URL-safe. No fragment,
/// no spaces, quotes or angle brackets, so it is safe inside the page's script.
public enum BasemapURL {
    public static func parse(_ text: String) -> Result<String, PublicURLError> {
        func refuse(_ why: String) -> Result<String, PublicURLError> {
            let example = "https://tiles.openfreemap.org/styles/liberty"
            return .failure(PublicURLError(message: "--basemap \"\(text)\" \(why); e.g. \(example)"))
        }
        let lower = text.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lower.hasPrefix($0) }) else {
            return refuse("must start with http:// or https://")
        }
        let rest = text.dropFirst(scheme.count)
        let end = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        guard PublicURL.validAuthority(rest[..<end]) else { return refuse("has no valid host[:port]") }
        guard rest[end...].utf8.allSatisfy({ PublicURL.isPathByte($0) || $0 == UInt8(ascii: "?") }) else {
            return refuse("may hold only a host, a port, a path and a query (no spaces, quotes, user or fragment)")
        }
        return .success(text)
    }
}
