/// The calendar years present in a year column, ascending, and each year's index among them.
///
/// A lookup is one array read, where a `Set` of the column and a `Dictionary` lookup per incident
/// hashed every incident's year on the grid job's serial path.
struct YearSlots: Sendable {
    /// Years present, ascending.
    let years: [Int]
    private let first: Int
    /// `slots[year - first]`: index of the year in `years` (only years present are looked up).
    private let slots: [UInt16]

    init(_ year: [Int16]) {
        guard let low = year.min(), let high = year.max() else {
            years = []
            first = 0
            slots = []
            return
        }
        first = Int(low)
        var present = [Bool](repeating: false, count: Int(high) - first + 1)
        for y in year { present[Int(y) - first] = true }
        var years: [Int] = []
        var slots = [UInt16](repeating: 0, count: present.count)
        for (offset, isPresent) in present.enumerated() where isPresent {
            slots[offset] = UInt16(years.count)
            years.append(first + offset)
        }
        self.years = years
        self.slots = slots
    }

    @inline(__always)
    subscript(_ year: Int16) -> Int { Int(slots[Int(year) - first]) }
}
