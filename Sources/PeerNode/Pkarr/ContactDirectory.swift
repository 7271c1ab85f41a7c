import Offers
import Transport

/// Contacts' pkarr packets (docs/PUBKY.md, "Resolving"): the newest verified packet known
/// per key (`PkarrPacketBook`, kept in the store across restarts), fetched from the relays
/// when asked to, and the resolutions and descriptors read from it.
///
/// The rules: a packet replaces the one held only when it is more recent, so a relay that
/// serves a stale packet, or an older one replayed, never turns a contact back; a packet
/// that fails verification (a forged one) never reaches the book; among relays the newest
/// verified answer wins; when no relay answers, the packet held is used, however old.
public actor ContactDirectory {
    public struct Counters: Sendable, Equatable {
        /// Keys looked up at the relays, and packets that came back.
        public var lookups = 0
        public var packetsReceived = 0
        /// Answers refused: a packet that failed verification, or an error status.
        public var answersRefused = 0
        /// Verified packets older than the one held, so ignored.
        public var olderIgnored = 0
    }

    public let relays: PkarrRelays
    private let store: SQLiteSwapStore
    private let clock: any UnixClock
    private var book = PkarrPacketBook()
    public private(set) var counters = Counters()

    public init(relays: PkarrRelays, store: SQLiteSwapStore, clock: any UnixClock) async {
        self.relays = relays
        self.store = store
        self.clock = clock
        for (packet, fetchedAt) in (try? await store.pkarrPackets()) ?? [] {
            book.offer(packet, atUnix: UInt64(max(0, fetchedAt)))
        }
    }

    /// The newest packet of `key`: the one held while fresh (unless `refresh`), else what
    /// `from` (every relay by default) answer, offered to the book. When none of them
    /// answers, the packet held is returned anyway, unless `needsAnswer` (the sweep then
    /// asks other relays).
    public func packet(_ key: Pubky, refresh: Bool = false, from: [PkarrRelayURL]? = nil,
                       needsAnswer: Bool = false) async -> Result<SignedPacket, PeernodeResolution.Failure> {
        if !refresh, book.isFresh(key, nowUnix: clock.nowUnix), let held = book.packet(for: key) { return .success(held) }
        let lookup = await relays.lookup(key, from: from)
        counters.lookups += 1
        let now = clock.nowUnix
        var packets: [SignedPacket] = []
        for (_, outcome) in lookup.answers {
            switch outcome {
            case .packet(let packet): packets.append(packet)
            case .refused: counters.answersRefused += 1
            case .notFound, .unreachable: break
            }
        }
        counters.packetsReceived += packets.count
        // Newest first, so every older answer is measured against the best one of this round.
        for packet in packets.sorted(by: { $0.isMoreRecent(than: $1) }) {
            if let held = book.packet(for: key), held != packet, !packet.isMoreRecent(than: held) {
                counters.olderIgnored += 1
            }
            if book.offer(packet, atUnix: now) || book.packet(for: key) == packet {
                try? await store.savePkarrPacket(packet, fetchedAt: Int64(now))
            }
        }
        if let held = book.packet(for: key), lookup.anyAnswered || !needsAnswer { return .success(held) }
        return .failure(.noPacket(key, lookup.summary))
    }

    /// `identity` resolved to its node (fetching as `packet` does).
    public func resolve(_ identity: Pubky, refresh: Bool = false, from: [PkarrRelayURL]? = nil,
                        needsAnswer: Bool = false) async -> Result<PeernodeResolution, PeernodeResolution.Failure> {
        await PeernodeResolution.resolve(identity) { key in
            await self.packet(key, refresh: refresh, from: from, needsAnswer: needsAnswer)
        }
    }

    /// `identity` resolved from the packets held only: nothing is asked of any relay.
    public func cachedResolution(_ identity: Pubky) async -> PeernodeResolution? {
        let held = book
        return try? await PeernodeResolution.resolve(identity) { key in
            held.packet(for: key).map { .success($0) } ?? .failure(.noPacket(key, "not fetched yet"))
        }.get()
    }

    /// The capability descriptor of the node `identity` resolves to, from the packets held,
    /// unexpired and for `network`; why not otherwise.
    public func descriptor(of identity: Pubky, network: String) async -> Result<CapabilityDescriptor, DescriptorError> {
        guard let resolution = await cachedResolution(identity) else { return .failure(.none) }
        let read = CapabilityDescriptor.read(from: resolution.nodePacket)
        guard case .success(let descriptor) = read else { return read }
        guard descriptor.network == network else { return .failure(.malformed("it is for \(descriptor.network)")) }
        guard descriptor.expiresAtUnix >= clock.nowUnix else { return .failure(.expired) }
        return .success(descriptor)
    }

    /// Unix seconds of the last fetch that confirmed `key`'s packet.
    public func fetchedAt(_ key: Pubky) -> UInt64? { book.entries[key]?.fetchedAtUnix }
}
