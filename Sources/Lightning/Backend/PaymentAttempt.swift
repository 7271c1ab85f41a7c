/// One HTLC the paying node sent for a payment (LND's `lnrpc.HTLCAttempt`), reduced to
/// what the swap engines use: its status, and how long it can keep the payer's money.
public struct PaymentAttempt: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable {
        case inFlight = "IN_FLIGHT"
        case succeeded = "SUCCEEDED"
        case failed = "FAILED"
    }

    public var status: Status
    /// The route's `total_time_lock`: the expiry height of the payer's own outgoing HTLC.
    /// Until that height the money may stay locked if the payee holds the HTLC.
    public var totalTimeLock: Int
    /// The route's `total_amt_msat`: the amount delivered plus the route's fees.
    public var totalAmountMsat: UInt64
    /// The route's `total_fees_msat`.
    public var totalFeesMsat: UInt64

    public init(status: Status, totalTimeLock: Int, totalAmountMsat: UInt64, totalFeesMsat: UInt64) {
        self.status = status
        self.totalTimeLock = totalTimeLock
        self.totalAmountMsat = totalAmountMsat
        self.totalFeesMsat = totalFeesMsat
    }
}
