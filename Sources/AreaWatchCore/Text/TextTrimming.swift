extension StringProtocol {
    /// The text without any of `characters` at either end (by default the blanks SPEC §2 ignores
    /// around names and values: space and tab).
    public func trimming(_ characters: String = " \t") -> String {
        var s = self[...]
        while let f = s.first, characters.contains(f) { s.removeFirst() }
        while let l = s.last, characters.contains(l) { s.removeLast() }
        return String(s)
    }
}
