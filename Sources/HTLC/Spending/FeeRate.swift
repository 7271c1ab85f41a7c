/// A fee rate in whole satoshis per 1000 virtual bytes.
///
/// Per-kvB integers give sub-sat/vB precision (Core's `estimatesmartfee` answers in BTC/kvB)
/// without floating point, so every node computes the same fee for the same numbers.
public struct FeeRate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// 1,000,000 sat/vB: far above any real fee, low enough that vsize × rate never
    /// overflows Int64 for a standard transaction (100,000 vbytes × 10^9 = 10^14).
    public static let maximumSatPerKvB: Int64 = 1_000_000_000

    public let satPerKvB: Int64

    public init(satPerKvB: Int64) throws {
        guard (0...Self.maximumSatPerKvB).contains(satPerKvB) else {
            throw HTLCError.invalidFeeRate(satPerKvB: satPerKvB)
        }
        self.satPerKvB = satPerKvB
    }

    /// A whole sat/vB rate (e.g. the Offer's `fee_rate_sat_vb`).
    public init(satPerVByte: Int64) throws {
        let (product, overflow) = satPerVByte.multipliedReportingOverflow(by: 1000)
        guard !overflow else { throw HTLCError.invalidFeeRate(satPerKvB: satPerVByte) }
        try self.init(satPerKvB: product)
    }

    /// ceil(vsize × rate / 1000): rounding up, so the paid rate is never below this one.
    public func fee(forVirtualSize vsize: Int) -> Int64 {
        let product = Int64(vsize) * satPerKvB
        return (product + 999) / 1000
    }

    public static func < (lhs: FeeRate, rhs: FeeRate) -> Bool { lhs.satPerKvB < rhs.satPerKvB }

    public var description: String { "\(satPerKvB) sat/kvB" }
}
