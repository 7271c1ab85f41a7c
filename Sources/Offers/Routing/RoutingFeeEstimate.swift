/// What the client expects to pay Lightning nodes to route the invoice to the provider:
/// `base_sat + ceil(amount × ppm / 1e6)`. Route choice compares providers with it; the
/// real fee is whatever the payment finds.
public struct RoutingFeeEstimate: Sendable, Hashable {
    public let baseSat: Int64
    public let feePPM: Int64

    public init(baseSat: Int64 = 1, feePPM: Int64 = 1_000) {
        precondition(baseSat >= 0 && (0...Amounts.million).contains(feePPM), "routing fee estimate out of range")
        self.baseSat = baseSat
        self.feePPM = feePPM
    }

    public func fee(paymentSat: Int64) -> Int64 {
        baseSat + Amounts.partsPerMillionRoundingUp(feePPM, of: paymentSat)
    }
}
