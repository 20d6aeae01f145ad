/// Where the pairs SciPy keeps begin and end for one x1: its pivot |t(x1, x2)| ≥ c holds for
/// x2 ≤ low(x1) and for x2 ≥ high(x1).
///
/// With a = x1/n1, b = x2/n2 and h = c²/(2·n2): t = ±c ⇔ (a − b)² = c²·(a/n1 + b/n2)
/// ⇔ b = a + h ∓ √(α·a + h²), α = c²/n1 + c²/n2. The roots only locate the bounds, so a
/// reciprocal stands in for x1/n1: away from integers the bounds are ⌊root⌋ (low) and ⌊root⌋ + 1
/// (high); within 1e-6 of an integer (a tie in exact arithmetic, or nearly) SciPy's own
/// floating-point pivot decides, evaluated with its operations in its order.
struct KeptTails {
    let n1: Double, n2: Double, c: Double
    private let h: Double, alpha: Double, h2: Double, inverseN1: Double

    init(n1: Double, n2: Double, c: Double) {
        self.n1 = n1
        self.n2 = n2
        self.c = c
        let c2 = c * c
        h = c2 / n2 / 2
        alpha = c2 / n1 + c2 / n2
        h2 = h * h
        inverseN1 = 1 / n1
    }

    /// Whether low and high can meet (high ≤ low + 1, every x2 kept) at some x1: the roots lie
    /// c² apart at least, and a tie moves a bound by less than one.
    var tailsCanMeet: Bool { c * c <= 2.5 }

    /// The last x2 with t ≥ c; below 0 when there is none.
    @inline(__always)
    func low(_ x1: Int) -> Int {
        let a = Double(x1) * inverseN1
        return bound(x1, n2 * (a + h - (alpha * a + h2).squareRoot()), upper: false)
    }

    /// The first x2 with t ≤ −c.
    @inline(__always)
    func high(_ x1: Int) -> Int {
        let a = Double(x1) * inverseN1
        return bound(x1, n2 * (a + h + (alpha * a + h2).squareRoot()), upper: true)
    }

    /// Where the upper root reaches x2 = y, in x1 units (NaN where it never does): the smaller
    /// root of (b − h − a)² = α·a + h² with b = y/n2. A starting guess for searches, no more.
    func x1WhereHighReaches(_ y: Double) -> Double {
        let b = y / n2 - h
        return (2 * b + alpha - (4 * b * alpha + alpha * alpha + 4 * h2).squareRoot()) / 2 * n1
    }

    /// Where the lower root reaches x2 = y, in x1 units: the larger root of the same quadratic.
    func x1WhereLowReaches(_ y: Double) -> Double {
        let b = y / n2 - h
        return (2 * b + alpha + (4 * b * alpha + alpha * alpha + 4 * h2).squareRoot()) / 2 * n1
    }

    /// high(0), where t(0, x2) = −√x2 (x2 > 0).
    func highAtZero() -> Int { bound(0, n2 * (2 * h), upper: true) }

    /// Both, sharing the square root.
    @inline(__always)
    func both(_ x1: Int) -> (low: Int, high: Int) {
        let a = Double(x1) * inverseN1
        let root = (alpha * a + h2).squareRoot()
        return (bound(x1, n2 * (a + h - root), upper: false), bound(x1, n2 * (a + h + root), upper: true))
    }

    /// The bound from its root `y` in x2 units.
    @inline(__always)
    private func bound(_ x1: Int, _ y: Double, upper: Bool) -> Int {
        // Most roots lie in [0, 2⁵⁰): adding 2⁵² rounds y to the nearest integer, whose value is
        // then the low bits, with no checked conversion; its distance from y tells a tie.
        if y >= 0 && y < 0x1p50 {
            let shifted = y + 0x1p52
            let offset = y - (shifted - 0x1p52)
            if abs(offset) > 1e-6 {
                let nearest =
                    Int(truncatingIfNeeded: shifted.bitPattern)
                    &- Int(truncatingIfNeeded: (0x1p52 as Double).bitPattern)
                let floor = offset < 0 ? nearest &- 1 : nearest
                return upper ? floor &+ 1 : floor
            }
        }
        return tieBound(x1, y, upper: upper)
    }

    /// Near ties, and roots out of [0, 2⁵⁰).
    private func tieBound(_ x1: Int, _ y: Double, upper: Bool) -> Int {
        // Beyond every range in play (x2 ≥ 0 and far below 2⁵³).
        if y < -0.5 { return upper ? 0 : -1 }
        if y > 1e15 { return upper ? Int.max / 2 : Int(1e15) }
        let down = Int(y + 1) - 1 // floor: y + 1 > 0 truncates down
        let fraction = y - Double(down)
        if abs(fraction - 0.5) < 0.5 - 1e-6 { return upper ? down + 1 : down }
        let m = fraction < 0.5 ? down : down + 1
        if upper { return Self.pivot(x1, m, n1, n2) <= -c ? m : m + 1 }
        return Self.pivot(x1, m, n1, n2) >= c ? m : m - 1
    }

    /// SciPy's pivot t(x1, x2) = (x1/n1 − x2/n2) / √(x1/n1/n1 + x2/n2/n2), NaN at (0, 0).
    @inline(__always)
    static func pivot(_ x1: Int, _ x2: Int, _ n1: Double, _ n2: Double) -> Double {
        let a = Double(x1) / n1, b = Double(x2) / n2
        return (a - b) / (a / n1 + b / n2).squareRoot()
    }
}
