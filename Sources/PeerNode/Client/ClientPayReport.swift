import Bitcoin

/// What `ClientEngine.pay` says once the claim is broadcast: the amounts as the user sees
/// them, the claim, and whether it confirmed within the wait window.
public struct ClientPayReport: Sendable, Hashable, CustomStringConvertible {
    public enum Settlement: String, Sendable, Hashable {
        /// The claim confirmed within the wait window.
        case confirmed
        /// The claim is broadcast and the transfer committed; it settles on chain in the
        /// background (the swap goes on after `pay` returns).
        case settling
    }

    public let swapID: String
    public let destination: String
    /// X: what the destination receives.
    public let amountSat: Int64
    public let serviceFeeSat: Int64
    public let providerOnchainFeeSat: Int64
    public let claimFeeSat: Int64
    /// The most the Lightning route may cost (the payment's fee limit).
    public let routingFeeLimitSat: Int64
    /// The invoice paid (lock amount + service fee + provider on-chain fee).
    public let invoiceTotalSat: Int64
    public let claimTxid: TransactionID
    public let settlement: Settlement
    /// How the claim spends the lock, and what cooperation saved.
    public let claimSpend: ClientClaimSpend

    public var description: String {
        let state = settlement == .confirmed
            ? "sent: the claim confirmed"
            : "sent: the transfer is committed and settling on-chain"
        return "\(state) (swap \(swapID)): \(amountSat) sat to \(destination); service fee \(serviceFeeSat) sat, "
            + "provider on-chain fee \(providerOnchainFeeSat) sat, claim fee \(claimFeeSat) sat, "
            + "routing fee at most \(routingFeeLimitSat) sat; claim \(claimTxid) (\(claimSpend))"
    }
}
