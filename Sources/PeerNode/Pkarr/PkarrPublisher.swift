import Offers
import Transport

/// Publishes this node's pkarr packet (docs/PUBKY.md, "Publishing"): its addresses and peer
/// port, and as a provider its capability descriptor, signed by the node key and PUT to
/// every relay; with a Pubky identity, also the identity's packet exactly as `init` signed it.
///
/// When: at start; whenever what it would publish changes (checked every few seconds: the
/// descriptor follows the provider's live offer); and at half the records' TTL in any case,
/// so the relays never hold an expired packet. Each packet is timestamped later than the one
/// before (`PkarrTime`), so a relay takes it over its predecessor.
public actor PkarrPublisher {
    public struct Outcome: Sendable, Equatable {
        public let relay: String
        public let result: String
    }

    private let node: NodeIdentity
    private let addresses: [String]
    private let port: UInt16
    private let ttlSeconds: UInt32
    private let relays: PkarrRelays
    private let identityPacket: SignedPacket?
    private let descriptor: @Sendable () async -> CapabilityDescriptor?
    private let clock: any UnixClock
    private let log: DaemonLog
    private var published: (packet: SignedPacket, content: Content, atUnix: UInt64)?
    private var warnedAboutIdentity = false
    private var task: Task<Void, Never>?
    /// Packets signed and PUT since the start, and the last round's outcomes (status).
    public private(set) var publications = 0
    public private(set) var lastOutcomes: [Outcome] = []

    /// What decides whether a new packet is needed: everything but the descriptor's expiry.
    private struct Content: Equatable {
        let descriptor: CapabilityDescriptor?
    }

    public init(node: NodeIdentity, addresses: [String], port: UInt16, ttlSeconds: UInt32, relays: PkarrRelays,
                identityPacket: SignedPacket?, clock: any UnixClock, log: DaemonLog,
                descriptor: @escaping @Sendable () async -> CapabilityDescriptor?) {
        self.node = node
        self.addresses = addresses
        self.port = port
        self.ttlSeconds = ttlSeconds
        self.relays = relays
        self.identityPacket = identityPacket
        self.clock = clock
        self.log = log
        self.descriptor = descriptor
    }

    /// The packet last published, if any.
    public var packet: SignedPacket? { published?.packet }

    /// Publishes now, then checks every `checkMilliseconds` until `stop`.
    public func start(checkMilliseconds: UInt64, sleeper: any Sleeper) async {
        await publish()
        task = Task { [weak self] in
            while !Task.isCancelled {
                do {
                    try await sleeper.sleep(milliseconds: checkMilliseconds)
                } catch {
                    return
                }
                await self?.publishIfDue()
            }
        }
    }

    public func stop() {
        task?.cancel()
        task = nil
    }

    /// Publishes when the content changed or half the TTL has passed since the last one.
    public func publishIfDue() async {
        let content = Content(descriptor: await descriptor().map(Self.withoutExpiry))
        if let published, published.content == content, clock.nowUnix < published.atUnix + UInt64(ttlSeconds / 2) {
            return
        }
        await publish(content: content)
    }

    /// Signs and PUTs the node's packet (and the identity's), whatever was published before.
    @discardableResult
    public func publish() async -> [Outcome] {
        await publish(content: Content(descriptor: await descriptor().map(Self.withoutExpiry)))
    }

    @discardableResult
    private func publish(content: Content) async -> [Outcome] {
        let now = clock.nowUnix
        let extra = content.descriptor.map { descriptor in
            CapabilityDescriptor(network: descriptor.network, terms: descriptor.terms, contractTypes: descriptor.contractTypes,
                                 expiresAtUnix: now + 2 * UInt64(ttlSeconds)).records(node: node.pubky, ttl: ttlSeconds)
        } ?? []
        let dns = PeernodeRecords.nodePacket(node: node.pubky, hosts: addresses, port: port, ttl: ttlSeconds, extra: extra)
        let signed: SignedPacket
        do {
            signed = try SignedPacket.sign(dns, by: node, timestamp: PkarrTime.after(published?.packet.timestamp))
        } catch {
            log("pkarr: the node's packet cannot be signed (\(error)); nothing published")
            return []
        }
        var outcomes = await relays.publish(signed).map { Outcome(relay: $0.relay.description, result: Self.describe($0.outcome)) }
        published = (signed, content, now)
        publications += 1
        if let identityPacket {
            for (relay, outcome) in await relays.publish(identityPacket) {
                outcomes.append(Outcome(relay: relay.description, result: "identity " + Self.describe(outcome)))
                if case .newerStored = outcome { await checkNewerIdentity(at: relay) }
            }
        }
        lastOutcomes = outcomes
        let stored = outcomes.filter { $0.result == "published" }.count
        log("pkarr: published \(node.pubky.z32.prefix(8))… (port \(port), \(addresses.joined(separator: ", "))"
            + (content.descriptor.map { ", descriptor of \($0.terms.count) direction(s)" } ?? "")
            + ") to \(stored) of \(relays.urls.count) relay(s)"
            + (stored < relays.urls.count ? ": " + outcomes.filter { $0.result != "published" }.map { "\($0.relay) \($0.result)" }
                .joined(separator: "; ") : ""))
        return outcomes
    }

    /// A relay holds a newer identity packet than the one `init` signed: the user published
    /// one elsewhere. Fine while it still names this node; said once when it does not.
    private func checkNewerIdentity(at relay: PkarrRelayURL) async {
        guard !warnedAboutIdentity, let identityPacket else { return }
        guard case .packet(let newer) = await relays.client.get(identityPacket.pubky, from: relay) else { return }
        if PeernodeRecords.delegate(in: newer) != node.pubky {
            warnedAboutIdentity = true
            log("warning: pkarr relay \(relay) holds a newer packet of the identity \(identityPacket.pubky) that does not name "
                + "this node's key: contacts who add the identity will not find this node; run `peernode init "
                + "--pubky-recovery-file` on a new data directory, or publish the _peernode record again")
        }
    }

    private static func withoutExpiry(_ descriptor: CapabilityDescriptor) -> CapabilityDescriptor {
        CapabilityDescriptor(network: descriptor.network, terms: descriptor.terms, contractTypes: descriptor.contractTypes,
                             expiresAtUnix: 0)
    }

    public static func describe(_ outcome: PkarrRelayClient.PutOutcome) -> String {
        switch outcome {
        case .stored: return "published"
        case .newerStored: return "holds a newer packet"
        case .refused(let why): return "refused: \(why)"
        case .unreachable(let why): return "unreachable: \(why)"
        }
    }
}
