import Transport

/// One swap's money, as this node saw it: what was swapped, every fee, and how the node's
/// own balances moved. Lightning figures are msat (routing fees are msat on the wire),
/// on-chain figures sat. The net is the change of the node's on-chain plus Lightning
/// balance caused by the swap, so a report's net adds up to what the wallets show.
public struct SwapAccountingEntry: Sendable, Hashable {
    public let id: String
    public let role: SwapRole
    /// `swap_out`, `pay_contact` or `swap_in` for a client swap, `provide` for a provider's.
    public let purpose: String
    public let peer: String
    /// Unix seconds: the contract's creation and the final event (nil while in flight).
    public let createdAt: Int64
    public let endedAt: Int64?
    public let outcome: AccountingOutcome
    /// The amount the provider locks on chain (the quote's `amount_sat`).
    public let amountSat: Int64
    /// What the destination received (client swaps that completed; 0 otherwise).
    public let deliveredSat: Int64
    /// The service fee earned (provider) or paid (client); 0 unless completed.
    public let serviceFeeSat: Int64
    /// The provider's on-chain fee as priced in the quote: the client pays it inside the
    /// invoice, the provider earns it to cover its lock fee. 0 unless completed.
    public let quotedOnchainFeeSat: Int64
    /// On-chain fees this node paid: its lock (provider), its claim (client), its refund
    /// (provider, the last version signed: a bump replaces the earlier ones).
    public let lockFeeSat: Int64
    public let claimFeeSat: Int64
    public let refundFeeSat: Int64
    /// The Lightning routing fee the client paid; nil when the store does not record it
    /// (the engines keep only the fee limit today), 0 for the provider (it receives).
    public let routingFeeMsat: Int64?
    /// How the node's Lightning balance moved (signed msat), routing fee included when known.
    public let lightningMsat: Int64
    /// How the node's own on-chain wallet moved (signed sat): a swap-out's claim lands in
    /// it, a provider's lock leaves it and a refund comes back.
    public let onchainSat: Int64

    public init(id: String, role: SwapRole, purpose: String, peer: String, createdAt: Int64, endedAt: Int64?,
                outcome: AccountingOutcome, amountSat: Int64, deliveredSat: Int64 = 0, serviceFeeSat: Int64 = 0,
                quotedOnchainFeeSat: Int64 = 0, lockFeeSat: Int64 = 0, claimFeeSat: Int64 = 0, refundFeeSat: Int64 = 0,
                routingFeeMsat: Int64?, lightningMsat: Int64 = 0, onchainSat: Int64 = 0) {
        self.id = id
        self.role = role
        self.purpose = purpose
        self.peer = peer
        self.createdAt = createdAt
        self.endedAt = endedAt
        self.outcome = outcome
        self.amountSat = amountSat
        self.deliveredSat = deliveredSat
        self.serviceFeeSat = serviceFeeSat
        self.quotedOnchainFeeSat = quotedOnchainFeeSat
        self.lockFeeSat = lockFeeSat
        self.claimFeeSat = claimFeeSat
        self.refundFeeSat = refundFeeSat
        self.routingFeeMsat = routingFeeMsat
        self.lightningMsat = lightningMsat
        self.onchainSat = onchainSat
    }

    /// The on-chain fees this node paid for the swap.
    public var onchainFeesSat: Int64 { lockFeeSat + claimFeeSat + refundFeeSat }

    /// The change of the node's on-chain plus Lightning balance, msat.
    public var netMsat: Int64 { lightningMsat + onchainSat * 1_000 }

    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "id": .string(id), "role": .string(role.rawValue), "purpose": .string(purpose), "peer": .string(peer),
            "created_at": .integer(createdAt), "outcome": .string(outcome.rawValue),
            "amount_sat": .integer(amountSat), "delivered_sat": .integer(deliveredSat),
            "service_fee_sat": .integer(serviceFeeSat), "quoted_onchain_fee_sat": .integer(quotedOnchainFeeSat),
            "lock_fee_sat": .integer(lockFeeSat), "claim_fee_sat": .integer(claimFeeSat),
            "refund_fee_sat": .integer(refundFeeSat), "onchain_fees_sat": .integer(onchainFeesSat),
            "lightning_change_msat": .integer(lightningMsat), "onchain_change_sat": .integer(onchainSat),
            "net_msat": .integer(netMsat),
        ]
        members["ended_at"] = endedAt.map { .integer($0) } ?? .null
        members["routing_fee_msat"] = routingFeeMsat.map { .integer($0) } ?? .null
        return .object(members)
    }
}
