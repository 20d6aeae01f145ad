import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SPEC §10: reports and tiles carry aggregates only — never a user id, a description, or a
/// single incident's coordinates. Every file the bundled nightly job publishes is scanned.
@Suite("privacy", .timeLimit(.minutes(60)))
struct PrivacyTests {
    /// What must never appear in a published file.
    struct Secrets {
        /// WatchMe user ids (28 alphanumerics).
        var userIDs: Set<String>
        /// Fixed strings: description fragments, the users node's names, e-mails and URLs.
        var texts: [String]
        /// Every input incident's (lat, lon), as the values its input text denotes.
        var pairs: Set<Pair>
        var lats: Set<UInt64>
        var lons: Set<UInt64>
    }

    struct Pair: Hashable {
        var lat: UInt64
        var lon: UInt64
    }

    /// The runs of a description that survive escaping in JSON, CSV and HTML: letters, digits,
    /// spaces and plain punctuation, at least 8 characters.
    static func fragments(_ description: String) -> [String] {
        var out: [String] = []
        var current = ""
        for ch in description {
            if ch.isLetter || ch.isNumber || " ,.!?'-".contains(ch) {
                current.append(ch)
            } else {
                if current.trimmingCharacters(in: .whitespaces).count >= 8 {
                    out.append(current.trimmingCharacters(in: .whitespaces))
                }
                current = ""
            }
        }
        if current.trimmingCharacters(in: .whitespaces).count >= 8 {
            out.append(current.trimmingCharacters(in: .whitespaces))
        }
        return out
    }

    static func secrets() throws -> Secrets {
        var userIDs = Set<String>()
        var texts = Set<String>(["example.org", "Test User "])
        var pairs = Set<Pair>(), lats = Set<UInt64>(), lons = Set<UInt64>()
        func add(_ latText: String, _ lonText: String) {
            // (0, 0) is the null-island reject, not an incident's location.
            guard let lat = Double(latText), let lon = Double(lonText), lat != 0 || lon != 0 else { return }
            pairs.insert(Pair(lat: lat.bitPattern, lon: lon.bitPattern))
            lats.insert(lat.bitPattern)
            lons.insert(lon.bitPattern)
        }
        for export in try Model.watchme() {
            userIDs.formUnion(export.userIDs)
            for d in export.descriptions { texts.formUnion(fragments(d)) }
            for post in export.posts.values { add(post.latText, post.lonText) }
        }
        // Rejected posts' coordinates too, as they appear in the exports.
        for path in Datasets.watchme {
            let root = try #require(try JSONSerialization.jsonObject(with: Data(readBytes(path))) as? [String: Any])
            for case let post as [String: Any] in (root["posts"] as? [String: Any] ?? [:]).values {
                let lat = post["latitude"].map { "\($0)" } ?? "", lon = post["longitude"].map { "\($0)" } ?? ""
                add(lat, lon)
            }
        }
        for file in try Model.police() { for i in file.incidents { add(i.latText, i.lonText) } }
        return Secrets(userIDs: userIDs, texts: texts.sorted(), pairs: pairs, lats: lats, lons: lons)
    }

    /// Whether `needle` occurs in `haystack` (memchr for the first byte, memcmp for the rest).
    static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let base = haystack.baseAddress, let first = needle.first, needle.count <= haystack.count else {
            return false
        }
        var offset = 0
        let last = haystack.count - needle.count
        return needle.withUnsafeBufferPointer { n in
            while offset <= last {
                guard let p = memchr(base + offset, Int32(first), last - offset + 1) else { return false }
                let at = base.distance(to: p.assumingMemoryBound(to: UInt8.self))
                if memcmp(base + at, n.baseAddress!, n.count) == 0 { return true }
                offset = at + 1
            }
            return false
        }
    }

    /// The leaks found in one output file.
    static func leaks(in bytes: [UInt8], secrets: Secrets) -> [String] {
        var found: [String] = []
        // User ids: inside any run of 28 or more alphanumerics.
        bytes.withUnsafeBufferPointer { b in
            var i = 0
            while i < b.count {
                guard isalnum(Int32(b[i])) != 0 else {
                    i += 1
                    continue
                }
                let start = i
                while i < b.count && isalnum(Int32(b[i])) != 0 { i += 1 }
                if i - start >= 28 {
                    for s in start...(i - 28) {
                        let id = String(decoding: UnsafeBufferPointer(rebasing: b[s..<(s + 28)]), as: UTF8.self)
                        if secrets.userIDs.contains(id) { found.append("user id \(id)") }
                    }
                }
            }
            for text in secrets.texts {
                let needle = Array(text.utf8)
                if Self.contains(b, needle) { found.append("text \"\(text)\"") }
            }
        }
        // Coordinates: an input's latitude and longitude as two numbers close together (either
        // order, up to two numbers between them), whatever their formatting.
        let numbers = decimalNumbers(bytes)
        for (k, value) in numbers.enumerated() {
            let bits = value.bitPattern
            let isLat = secrets.lats.contains(bits), isLon = secrets.lons.contains(bits)
            guard isLat || isLon else { continue }
            for d in 1...3 where k + d < numbers.count {
                let other = numbers[k + d].bitPattern
                if (isLat && secrets.pairs.contains(Pair(lat: bits, lon: other)))
                    || (isLon && secrets.pairs.contains(Pair(lat: other, lon: bits)))
                {
                    found.append("incident coordinates \(value), \(numbers[k + d])")
                }
            }
        }
        return found
    }

    @Test("the scan finds a leaked user id, description or single incident's coordinates")
    func scanBites() throws {
        let secrets = try Self.secrets()
        let export = try #require(try Model.watchme().first)
        let post = try #require(export.posts.values.first { !($0.description ?? "").isEmpty && $0.latText.count > 6 })
        let police = try #require(try Model.police().first?.incidents.first)
        let samples = [
            "{\"cells\":{\"gcw9ts3\":[3,1,\"safe\"]},\"lat\":\(post.latText),\"lon\":\(post.lonText)}",
            "name,lat,lon\nx,\(police.latText),\(police.lonText)\n",
            "<td>\(fixed(Double(police.lonText)!, 6))</td><td>\(fixed(Double(police.latText)!, 6))</td>",
            "[[\(post.lonText),\(post.latText)],[1.000000,2.000000]]",
            "{\"u\":\"\(post.user ?? "")\"}",
            "<p>\((post.description ?? "").replacingOccurrences(of: "\"", with: "&quot;"))</p>",
            "contact Test User 007 <user7@example.org>"
        ]
        for sample in samples {
            #expect(
                !Self.leaks(in: Array(sample.utf8), secrets: secrets).isEmpty, "the scan missed a leak in \(sample)")
        }
        // Computed figures that merely share one coordinate with an input are not a leak.
        let clean = "{\"lat\":\(police.latText),\"lon\":-179.123456,\"n\":3} x-1.5 y2016-1.25 margin:-1px"
        #expect(Self.leaks(in: Array(clean.utf8), secrets: secrets).isEmpty)
    }

    @Test("no published file of the bundled nightly job holds a user id, a description or an incident's coordinates")
    func bundledReportsCarryAggregatesOnly() throws {
        let run = try BundledRun.get()
        let secrets = try Self.secrets()
        #expect(secrets.userIDs.count >= 100 && secrets.pairs.count > 1000 && secrets.texts.count > 10)
        #expect(run.report.count > 100, "tiles missing?")
        var leaks: [String] = []
        for (name, bytes) in run.report.sorted(by: { $0.key < $1.key }) {
            leaks += Self.leaks(in: bytes, secrets: secrets).prefix(5).map { "\(name): \($0)" }
        }
        #expect(leaks.isEmpty, "\(leaks.prefix(30))")
        // The store keeps them (query --list is the analysts' place for incident rows).
        #expect(
            try StoreProbe.integer(run.store, "SELECT count(*) FROM incidents WHERE user IS NOT NULL AND user != ''")
                > 0)
    }
}
