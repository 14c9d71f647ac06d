/// Robust losses on squared residuals `s = |r|²`, as used by iteratively reweighted least squares.
///
/// Each case carries its scale `c` in the residual's units (not squared).
public enum RobustLoss: Sendable, Equatable {
    /// `ρ(s) = s`.
    case trivial
    /// `ρ(s) = s` for `s ≤ c²`, else `2c√s − c²`.
    case huber(Double)
    /// `ρ(s) = c² log(1 + s/c²)`.
    case cauchy(Double)
    /// `ρ(s) = min(s, c²)` (MSAC's loss).
    case truncated(Double)

    /// The loss value.
    @inlinable public func rho(_ s: Double) -> Double {
        switch self {
        case .trivial: return s
        case .huber(let c): return s <= c * c ? s : 2 * c * s.squareRoot() - c * c
        case .cauchy(let c): return c * c * log1pD(s / (c * c))
        case .truncated(let c): return min(s, c * c)
        }
    }

    /// The IRLS weight `ρ'(s)`.
    @inlinable public func weight(_ s: Double) -> Double {
        switch self {
        case .trivial: return 1
        case .huber(let c): return s <= c * c ? 1 : c / s.squareRoot()
        case .cauchy(let c): return 1 / (1 + s / (c * c))
        case .truncated(let c): return s <= c * c ? 1 : 0
        }
    }

    /// The same loss with its scale multiplied by `factor` (for example pixels to normalized units).
    public func scaled(by factor: Double) -> RobustLoss {
        switch self {
        case .trivial: return .trivial
        case .huber(let c): return .huber(c * factor)
        case .cauchy(let c): return .cauchy(c * factor)
        case .truncated(let c): return .truncated(c * factor)
        }
    }
}
