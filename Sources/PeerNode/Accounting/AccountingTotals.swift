import Transport

/// Sums over a set of final swaps of one role: counts by outcome and the money columns.
public struct AccountingTotals: Sendable, Hashable {
    public private(set) var swaps = 0
    public private(set) var completed = 0
    public private(set) var failed = 0
    public private(set) var refunded = 0
    public private(set) var lost = 0
    public private(set) var amountSat: Int64 = 0
    public private(set) var deliveredSat: Int64 = 0
    public private(set) var serviceFeeSat: Int64 = 0
    public private(set) var onchainFeesSat: Int64 = 0
    /// The routing fees the store records; `routingFeeUnrecorded` counts the completed
    /// swaps whose fee it does not, so a reader knows the net leaves them out.
    public private(set) var routingFeeMsat: Int64 = 0
    public private(set) var routingFeeUnrecorded = 0
    public private(set) var netMsat: Int64 = 0

    public init() {}

    /// Adds one final swap. In-flight swaps are never added (the caller keeps them apart).
    public mutating func add(_ entry: SwapAccountingEntry) {
        swaps += 1
        switch entry.outcome {
        case .completed: completed += 1
        case .failed: failed += 1
        case .refunded: refunded += 1
        case .lost: lost += 1
        case .inFlight: break
        }
        if entry.outcome == .completed { amountSat += entry.amountSat }
        deliveredSat += entry.deliveredSat
        serviceFeeSat += entry.serviceFeeSat
        onchainFeesSat += entry.onchainFeesSat
        if let fee = entry.routingFeeMsat {
            routingFeeMsat += fee
        } else if entry.role == .client && entry.outcome == .completed {
            routingFeeUnrecorded += 1
        }
        netMsat += entry.netMsat
    }

    public var json: JSONValue {
        .object([
            "swaps": .integer(swaps), "completed": .integer(completed), "failed": .integer(failed),
            "refunded": .integer(refunded), "lost": .integer(lost), "amount_sat": .integer(amountSat),
            "delivered_sat": .integer(deliveredSat), "service_fee_sat": .integer(serviceFeeSat),
            "onchain_fees_sat": .integer(onchainFeesSat), "routing_fee_msat": .integer(routingFeeMsat),
            "routing_fee_unrecorded": .integer(routingFeeUnrecorded), "net_msat": .integer(netMsat),
        ])
    }
}
