#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Bitcoin
import Lightning
import Offers
import Transport

/// Everything the running daemon built, handed to the engine factory and to the control
/// commands. Built once in `NodeDaemon.run`; torn down in reverse when it stops.
public struct NodeServices: Sendable {
    public let config: NodeConfig
    /// The node seed: the engines derive per-swap keys from it (`SwapKeyChain`). Never
    /// printed or sent anywhere.
    public let seed: NodeSeed
    public let identity: NodeIdentity
    public let loop: EventLoop
    public let store: SQLiteSwapStore
    public let chain: any ChainBackend
    public let feeEstimator: FeeEstimator
    public let lightning: LNDRESTClient
    public let wallet: Wallet
    /// Answers offers and quotes; nil when `provider=0`.
    public let desk: ProviderDesk?
    public let router: Router
    public let dialer: PeerDialer
    /// Serves inbound peers; engines push to clients through its connections.
    public let peerServer: PeerServer
    /// The peers `peerServer` never evicts for a newcomer (saved contacts, clients with a
    /// live provider swap).
    public let protectedPeers: ProtectedPeers
    public let clock: any UnixClock
    /// Durations of the calls to Bitcoin Core and LND (the status API's `/metrics`).
    public let backendLatency: BackendLatency
    /// Lightning amounts the submarine engine has promised and not yet paid; the desk
    /// subtracts them from what LND can send when it lists onchain_to_ln terms.
    public var submarineLiquidity = SubmarineLiquidity()
    /// Keeps this node's one-off requests to one contact under the contact's per-pubky
    /// connection budget.
    let contactRequests = ContactRequestGate()
    /// Publishing and resolving through pkarr relays; nil without `pkarr_relay`.
    public var pkarr: PkarrNode? = nil
    /// The Pubky identity this node serves (`init --pubky-recovery-file`): what contacts
    /// add and what `status` shows as `pubky`; nil when the node is its own identity.
    public var pubkyIdentity: Pubky? = nil
}

extension NodeServices {
    /// The pubky contacts know this node by: its Pubky identity, else its own key.
    public var publicPubky: Pubky { pubkyIdentity ?? identity.pubky }
}

extension NodeServices {
    /// Saved contacts, then the config's extra providers not already among them: whom
    /// `offers`, `pay`, `quote` and `max` ask for swap offers.
    func routeCandidates() async throws(StoreError) -> [Offers.Contact] {
        var list = try await store.contacts().map {
            // The node key: what the handshake proves and the offers are signed with.
            Offers.Contact(pubky: $0.nodeKey, host: $0.host, port: $0.port, name: $0.name)
        }
        for extra in config.extraProviders where !list.contains(where: { $0.pubky == extra.pubky }) {
            list.append(Offers.Contact(pubky: extra.pubky, host: extra.host, port: UInt16(extra.port),
                                       name: "extra_provider \(extra.pubky.z32.prefix(8))"))
        }
        return list
    }

    /// A saved contact by name, or by pubky (its identity or its node key) in any form
    /// `Pubky(parsing:)` reads.
    func findContact(_ which: String) async throws(StoreError) -> SavedContact? {
        if let byName = try await store.contact(named: which) { return byName }
        guard let pubky = try? Pubky(parsing: which) else { return nil }
        if let byIdentity = try await store.contact(pubky: pubky) { return byIdentity }
        return try await store.contact(nodeKey: pubky)
    }
}
