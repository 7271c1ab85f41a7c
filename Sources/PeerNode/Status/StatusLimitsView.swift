import Offers
import Transport

/// `/api/limits`: the provider's exposure (paid swaps' locked amounts) and concurrency
/// against their ceilings, overall and per counterparty. `provider` false (no engine) shows
/// the ceilings with nothing used.
struct StatusLimitsView: Sendable {
    struct Peer: Sendable {
        let peer: String
        let peerName: String?
        let exposureSat: Int64
        let swaps: Int
        let unpaid: Int
    }

    let provider: Bool
    let settings: RiskLimits.Settings
    let exposureSat: Int64
    let swaps: Int
    let unpaid: Int
    let peers: [Peer]

    init(provider: Bool, settings: RiskLimits.Settings, active: [RiskLimits.ActiveSwap], names: [String: String]) {
        self.provider = provider
        self.settings = settings
        exposureSat = active.filter(\.paid).reduce(0) { $0 + $1.amountSat }
        swaps = active.count
        unpaid = active.filter { !$0.paid }.count
        let byPeer = Dictionary(grouping: active) { $0.peer.z32 }
        peers = byPeer.keys.sorted().map { key in
            let list = byPeer[key] ?? []
            return Peer(peer: key, peerName: names[key], exposureSat: list.filter(\.paid).reduce(0) { $0 + $1.amountSat },
                        swaps: list.count, unpaid: list.filter { !$0.paid }.count)
        }
    }

    var json: JSONValue {
        .object([
            "provider": .bool(provider),
            "overall": .object([
                "exposure_sat": .integer(exposureSat), "max_exposure_sat": .integer(settings.maxExposureSat),
                "swaps": .integer(swaps), "max_swaps": .integer(settings.maxConcurrentSwaps),
                "unpaid": .integer(unpaid), "max_unpaid": .integer(settings.maxUnpaidSwaps),
            ]),
            "per_peer_max": .object([
                "exposure_sat": .integer(settings.maxExposurePerPeerSat), "swaps": .integer(settings.maxConcurrentSwapsPerPeer),
                "unpaid": .integer(settings.maxUnpaidPerPeer), "new_swaps_per_hour": .integer(settings.maxNewSwapsPerPeerPerHour),
            ]),
            "peers": .array(peers.map { peer in
                .object(["peer": .string(peer.peer), "peer_name": peer.peerName.map { .string($0) } ?? .null,
                         "exposure_sat": .integer(peer.exposureSat), "swaps": .integer(peer.swaps), "unpaid": .integer(peer.unpaid)])
            }),
        ])
    }
}
