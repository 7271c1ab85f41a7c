/// Amount formatting and fee arithmetic exactly as Core's reject messages print them.
public enum Money {
    public static let coin: Int64 = 100_000_000

    /// Core's `FormatMoney`: BTC with trailing zeros removed but at least two decimals
    /// (`0.00`, `0.00005`, `0.0001`, `0.00000011`).
    public static func format(_ amount: Int64) -> String {
        let magnitude = amount.magnitude
        let whole = magnitude / UInt64(coin)
        var fraction = String(magnitude % UInt64(coin))
        fraction = String(repeating: "0", count: 8 - fraction.count) + fraction
        while fraction.count > 2 && fraction.hasSuffix("0") { fraction.removeLast() }
        return (amount < 0 ? "-" : "") + "\(whole).\(fraction)"
    }

    /// Core's `CFeeRate::GetFee`: the fee at `ratePerKvB` sat/kvB for `vsize` vbytes, rounded
    /// up, and at least 1 sat for a non-zero rate.
    public static func fee(ratePerKvB: Int64, vsize: Int) -> Int64 {
        guard ratePerKvB > 0, vsize > 0 else { return 0 }
        let fee = (ratePerKvB * Int64(vsize) + 999) / 1000
        return max(fee, 1)
    }
}
