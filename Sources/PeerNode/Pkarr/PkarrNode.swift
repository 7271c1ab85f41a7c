import Offers
import Synchronization
import Transport

/// The daemon's pkarr side (docs/PUBKY.md): its relays, the Pubky identity it serves (when
/// `init` was given a recovery file), and its publisher, made once the peer port is bound.
/// Nil in `NodeServices` when no `pkarr_relay` is set.
public final class PkarrNode: Sendable {
    public let settings: NodeConfig.PkarrSettings
    public let relays: PkarrRelays
    /// The identity's packet naming this node's key; nil when the node is its own identity.
    public let identityPacket: SignedPacket?
    /// Contacts' packets, resolutions and descriptors.
    public let directory: ContactDirectory
    private let http: HTTPClient
    private let publisherBox = Mutex<PkarrPublisher?>(nil)
    /// Reads every contact's packets on a schedule (private discovery's source).
    public let sweep: DiscoverySweep

    public init(settings: NodeConfig.PkarrSettings, identityPacket: SignedPacket?, store: SQLiteSwapStore,
                clock: any UnixClock, network: String, log: DaemonLog, loop: EventLoop) async {
        self.settings = settings
        self.identityPacket = identityPacket
        http = HTTPClient(configuration: HTTPClient.Configuration(maxConnectionsPerEndpoint: 8, timeoutMilliseconds: 5_000),
                          loop: loop)
        relays = PkarrRelays(urls: settings.relays, client: PkarrRelayClient(http: http, timeoutMilliseconds: 5_000))
        directory = await ContactDirectory(relays: relays, store: store, clock: clock)
        sweep = DiscoverySweep(directory: directory, store: store, network: network, log: log)
    }

    /// What a dial whose connect failed asks (`PeerDialer.reResolve`): the contact proving
    /// `nodeKey`, resolved afresh at the relays when its address follows its packet; the
    /// store is updated with what was found. Nil when nothing new is known.
    func reResolver(store: SQLiteSwapStore) -> PeerDialer.EndpointReResolver {
        { [directory] nodeKey in
            guard let contact = try? await store.contact(nodeKey: nodeKey), contact.resolved,
                  case .success(let found) = await directory.resolve(contact.pubky, refresh: true),
                  found.nodeKey == nodeKey else { return nil }
            try? await store.updateResolution(pubky: contact.pubky, nodeKey: found.nodeKey, host: found.endpoint.host,
                                              port: found.endpoint.port)
            return (found.endpoint.host, Int(found.endpoint.port))
        }
    }

    public var publisher: PkarrPublisher? { publisherBox.withLock { $0 } }

    func setPublisher(_ publisher: PkarrPublisher) { publisherBox.withLock { $0 = publisher } }

    func shutDown() async {
        await sweep.stop()
        await publisher?.stop()
        await http.shutDown()
    }
}
