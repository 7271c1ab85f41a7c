import Bitcoin

/// One HTLC a payer sent for a payment, as LND's `lnrpc.HTLCAttempt` reports it in the
/// payment's `htlcs`. The simulator makes at most one attempt per payment, over its one
/// notional routing node: payer → routing node → payee.
public struct SimulatedHTLCAttempt: Sendable, Hashable {
    /// LND's `HTLCAttempt.HTLCStatus` (names and numbers).
    public enum Status: Int, Sendable, Hashable {
        case inFlight = 0
        case succeeded = 1
        case failed = 2

        public var lndName: String {
            switch self {
            case .inFlight: return "IN_FLIGHT"
            case .succeeded: return "SUCCEEDED"
            case .failed: return "FAILED"
            }
        }
    }

    /// Why the payee (or a hop) failed the HTLC: the part of LND's `lnrpc.Failure` the
    /// simulator can say.
    public struct Failure: Sendable, Hashable {
        /// LND's `Failure.FailureCode` name (BOLT 4's failure, e.g.
        /// `INCORRECT_OR_UNKNOWN_PAYMENT_DETAILS`).
        public var code: String
        /// The position on the route of the node that failed it (0 is the payer).
        public var sourceIndex: Int
        /// The height the failing node reported (BOLT 4's `height` for a payee failure).
        public var height: Int
    }

    /// LND's per-node attempt id (1, 2, ...).
    public var attemptID: UInt64
    public var status: Status
    /// Delivered to the payee.
    public var amountMsat: UInt64
    /// Paid to the routing node.
    public var feeMsat: UInt64
    /// The expiry of the payer's own outgoing HTLC: the route's `total_time_lock`, the
    /// height until which the payer's money may stay locked.
    public var totalTimeLock: Int
    /// The expiry of the HTLC the payee receives (the last hop's `expiry`).
    public var finalExpiry: Int
    public var routingNodeKey: PublicKey
    public var payeeKey: PublicKey
    /// The invoice's payment address, carried in the final hop's MPP record.
    public var paymentAddress: [UInt8]
    /// Nanoseconds since 1970 (the injected clock).
    public var attemptTimeNs: UInt64
    /// When the HTLC settled or failed; nil while in flight.
    public var resolveTimeNs: UInt64?
    public var failure: Failure?
    /// The payee's preimage, once the HTLC settled.
    public var preimage: [UInt8]?

    /// The notional routing node every simulated payment crosses: a fixed key, so its
    /// hop is the same in every run.
    public static let routingNodeKey = SimulatedNode.identityKey(for: "\u{0}routing node").publicKey
}
