import Transport

/// `/api/status`: the node at a glance (what `peernode status` shows), from public facts
/// only: the pubky is the node's public identity; balances are totals.
struct StatusNodeView: Sendable {
    let network: String
    let pubky: String
    let listen: String
    let provider: Bool
    let tipHeight: Int64?
    let walletConfirmedSat: Int64
    let walletUnconfirmedSat: Int64
    let walletTotalSat: Int64
    /// What a lock may spend now (the offer's liquidity), provider or not.
    let lockableSat: Int64
    let lightningMsat: Int64?
    let peers: Int
    let swapsInFlight: Int
    let startedAt: Int64
    let errors: [String: String]

    var json: JSONValue {
        var errorMembers: [String: JSONValue] = [:]
        for (key, value) in errors { errorMembers[key] = .string(value) }
        return .object([
            "network": .string(network), "pubky": .string(pubky), "listen": .string(listen), "provider": .bool(provider),
            "tip_height": tipHeight.map { .integer($0) } ?? .null,
            "wallet": .object(["confirmed_sat": .integer(walletConfirmedSat), "unconfirmed_sat": .integer(walletUnconfirmedSat),
                               "total_sat": .integer(walletTotalSat), "lockable_sat": .integer(lockableSat)]),
            "lightning": lightningMsat.map { .object(["balance_sat": .integer($0 / 1_000), "balance_msat": .integer($0)]) } ?? .null,
            "peers": .integer(peers), "swaps_in_flight": .integer(swapsInFlight), "started_at": .integer(startedAt),
            "errors": .object(errorMembers),
        ])
    }
}
