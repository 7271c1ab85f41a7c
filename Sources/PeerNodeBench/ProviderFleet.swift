import Bitcoin
import HTLC
import Offers
import Transport

/// What the router and discovery benchmarks share (setup, never timed): `nodes`
/// identities, each a `ProviderDesk` with its own fee terms behind its own `PeerServer` and
/// `PeerListener`, all on the process's one event loop.
struct ProviderFleet {
    var identities: [NodeIdentity] = []
    var desks: [ProviderDesk] = []
    var contacts: [Contact] = []
    var listeners: [PeerListener] = []
    var fees: [Pubky: FeeModel] = [:]

    static func start(nodes: Int, limits: PeerLimits, clock: any UnixClock, loop: EventLoop) async throws -> ProviderFleet {
        var fleet = ProviderFleet()
        for index in 0..<nodes {
            let identity = FanOutBench.identity(number: UInt32(index))
            let feeModel = feeModel(index)
            let terms = ProviderTerms(network: .regtest, feeModel: feeModel, maxAmountSat: 2_000_000)
            let state = ProviderState(liquiditySat: 10_000_000, feeRate: try FeeRate(satPerVByte: 2))
            let desk = ProviderDesk(identity: identity, terms: terms, clock: clock) { state }
            let server = PeerServer(identity: identity, sleeper: loop.sleeper, limits: limits, handlers: desk.handlers)
            let listener = try await PeerListener.start(server: server, loop: loop)
            fleet.identities.append(identity)
            fleet.desks.append(desk)
            fleet.listeners.append(listener)
            fleet.fees[identity.pubky] = feeModel
            fleet.contacts.append(Contact(pubky: identity.pubky, host: "127.0.0.1", port: UInt16(listener.port),
                                          name: "provider-\(index)"))
        }
        return fleet
    }

    func close() async {
        for listener in listeners { await listener.close() }
    }

    /// Fee terms spread over 100...1,099 sat base and 500...2,499 ppm, in an order unrelated
    /// to the port order, so the cheapest provider sits somewhere in the middle of the list.
    static func feeModel(_ index: Int) -> FeeModel {
        FeeModel(baseFeeSat: Int64(100 + (index * 7_919 + 389) % 1_000),
                 feePPM: Int64(500 + (index * 104_729 + 1_213) % 2_000))
    }
}
