/// Bounds and integer arithmetic for amounts: money is whole satoshis (or msat), never a
/// floating-point number.
public enum Amounts {
    /// 21 million BTC in satoshis: no amount on the wire may be larger.
    public static let maximumSat: Int64 = 21_000_000 * 100_000_000
    /// Parts per million in a whole; also the largest `fee_ppm` accepted.
    public static let million: Int64 = 1_000_000

    /// floor(amount × ppm / 1,000,000) for amount, ppm >= 0 and ppm <= 1,000,000. The
    /// product can pass 2^63 (21e14 × 1e6), so it is taken at full width.
    public static func partsPerMillion(_ ppm: Int64, of amount: Int64) -> Int64 {
        precondition(amount >= 0 && (0...million).contains(ppm), "amount and ppm are validated at the edges")
        return million.dividingFullWidth(amount.multipliedFullWidth(by: ppm)).quotient
    }

    /// ceil(amount × ppm / 1,000,000), same domain.
    public static func partsPerMillionRoundingUp(_ ppm: Int64, of amount: Int64) -> Int64 {
        precondition(amount >= 0 && (0...million).contains(ppm), "amount and ppm are validated at the edges")
        let (quotient, remainder) = million.dividingFullWidth(amount.multipliedFullWidth(by: ppm))
        return remainder > 0 ? quotient + 1 : quotient
    }
}
