/// The emerging-hot-spot categories of SPEC §13, in its order: eight hot, eight cold, no pattern.
public enum HotSpotLabel: String, CaseIterable, Sendable, Hashable {
    case newHot = "new hot spot"
    case consecutiveHot = "consecutive hot spot"
    case intensifyingHot = "intensifying hot spot"
    case persistentHot = "persistent hot spot"
    case diminishingHot = "diminishing hot spot"
    case sporadicHot = "sporadic hot spot"
    case oscillatingHot = "oscillating hot spot"
    case historicalHot = "historical hot spot"
    case newCold = "new cold spot"
    case consecutiveCold = "consecutive cold spot"
    case intensifyingCold = "intensifying cold spot"
    case persistentCold = "persistent cold spot"
    case diminishingCold = "diminishing cold spot"
    case sporadicCold = "sporadic cold spot"
    case oscillatingCold = "oscillating cold spot"
    case historicalCold = "historical cold spot"
    case noPattern = "no pattern"

    /// The label of a location from its hot and cold steps (index 0 = step 1) and the Mann-Kendall
    /// trend of its z series: the first rule that holds, hot rules first (SPEC §13).
    public static func classify(
        hot: [Bool], cold: [Bool], trendZ: Double, trendP: Double,
        significance: Double = 0.05
    ) -> HotSpotLabel {
        precondition(hot.count == cold.count && !hot.isEmpty)
        if let label = rules(
            marked: hot, other: cold, rising: trendZ > 0 && trendP <= significance,
            falling: trendZ < 0 && trendP <= significance, trendP: trendP,
            significance: significance, hotSide: true)
        {
            return label
        }
        // Cold: H and C swapped, trend signs reversed (intensifying cold = falling z).
        if let label = rules(
            marked: cold, other: hot, rising: trendZ < 0 && trendP <= significance,
            falling: trendZ > 0 && trendP <= significance, trendP: trendP,
            significance: significance, hotSide: false)
        {
            return label
        }
        return .noPattern
    }

    private static func rules(
        marked: [Bool], other: [Bool], rising: Bool, falling: Bool, trendP: Double,
        significance: Double, hotSide: Bool
    ) -> HotSpotLabel? {
        let n = marked.count
        let count = marked.reduce(0) { $0 + ($1 ? 1 : 0) }
        let last = marked[n - 1]
        // |H| ≥ 0.9·N, exactly: 10·|H| ≥ 9·N.
        let mostly = 10 * count >= 9 * n
        // The run of marked steps ending at N; H is one run when it holds all of them.
        var run = 0
        while run < n && marked[n - 1 - run] { run += 1 }
        let otherEmpty = !other.contains(true)
        let label: HotSpotLabel?
        if last && count == 1 {
            label = hotSide ? .newHot : .newCold
        } else if last && run == count && run >= 2 && !mostly {
            label = hotSide ? .consecutiveHot : .consecutiveCold
        } else if mostly && last && rising {
            label = hotSide ? .intensifyingHot : .intensifyingCold
        } else if mostly && last && trendP > significance {
            label = hotSide ? .persistentHot : .persistentCold
        } else if mostly && last && falling {
            label = hotSide ? .diminishingHot : .diminishingCold
        } else if last && !mostly && otherEmpty {
            label = hotSide ? .sporadicHot : .sporadicCold
        } else if last && !mostly {
            label = hotSide ? .oscillatingHot : .oscillatingCold
        } else if !last && mostly {
            label = hotSide ? .historicalHot : .historicalCold
        } else {
            label = nil
        }
        return label
    }
}
