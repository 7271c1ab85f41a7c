/// A provider's service fee (DESIGN 7): `base_fee_sat + floor(amount × fee_ppm / 1e6)`.
/// The swap fee a client pays is that plus the offer's `onchain_fee_sat`.
public struct FeeModel: Sendable, Hashable {
    public static let defaultBaseFeeSat: Int64 = 500
    public static let defaultFeePPM: Int64 = 2_000

    public let baseFeeSat: Int64
    /// 0 to 1,000,000.
    public let feePPM: Int64

    public init(baseFeeSat: Int64 = defaultBaseFeeSat, feePPM: Int64 = defaultFeePPM) {
        precondition(baseFeeSat >= 0 && (0...Amounts.million).contains(feePPM), "fee model out of range")
        self.baseFeeSat = baseFeeSat
        self.feePPM = feePPM
    }

    /// The service fee for locking `amountSat` (0 to 21e14).
    public func serviceFee(amountSat: Int64) -> Int64 {
        baseFeeSat + Amounts.partsPerMillion(feePPM, of: amountSat)
    }

    /// Service fee plus the on-chain fee: the whole swap fee.
    public func fee(amountSat: Int64, onchainFeeSat: Int64) -> Int64 {
        serviceFee(amountSat: amountSat) + onchainFeeSat
    }

    /// What the invoice asks for: the amount plus the whole fee.
    public func total(amountSat: Int64, onchainFeeSat: Int64) -> Int64 {
        amountSat + fee(amountSat: amountSat, onchainFeeSat: onchainFeeSat)
    }

    /// The largest amount whose total is at most `budgetSat` under this model, or nil when
    /// even 0 does not fit. Exact: solved in integers, then corrected for the floor.
    public func largestAmount(withTotalAtMost budgetSat: Int64, onchainFeeSat: Int64) -> Int64? {
        let room = budgetSat - baseFeeSat - onchainFeeSat
        guard room >= 0 else { return nil }
        // amount + floor(amount × ppm / 1e6) <= room  <=>  amount × (1e6 + ppm) < (room + 1) × 1e6,
        // so the largest amount is ceil((room + 1) × 1e6 / (1e6 + ppm)) - 1.
        let divisor = Amounts.million + feePPM
        let (quotient, remainder) = divisor.dividingFullWidth((room + 1).multipliedFullWidth(by: Amounts.million))
        let amount = (remainder > 0 ? quotient + 1 : quotient) - 1
        return min(amount, Amounts.maximumSat)
    }
}
