import Transport

/// The relays a node publishes to and resolves from (`pkarr_relay`, repeatable), asked
/// together: a PUT goes to all of them, a GET to the ones named, and of the verified packets
/// that come back the newest wins. A relay that is down, slow, stale or forged costs only
/// its own answer (docs/PUBKY.md, "Resolving").
public struct PkarrRelays: Sendable {
    public let urls: [PkarrRelayURL]
    public let client: PkarrRelayClient

    public init(urls: [PkarrRelayURL], client: PkarrRelayClient) {
        self.urls = urls
        self.client = client
    }

    /// What a lookup found: the newest verified packet (nil when none), and one line per
    /// relay asked, for the reason when nothing was found.
    public struct Lookup: Sendable {
        public let newest: SignedPacket?
        public let answers: [(relay: PkarrRelayURL, outcome: PkarrRelayClient.GetOutcome)]
        /// True when at least one relay answered (a packet or 404): the key's state is known.
        public var anyAnswered: Bool {
            answers.contains { if case .unreachable = $0.outcome { return false } else { return true } }
        }

        public var summary: String {
            answers.map { answer in
                switch answer.outcome {
                case .packet: return "\(answer.relay): a packet"
                case .notFound: return "\(answer.relay): none"
                case .refused(let why): return "\(answer.relay): refused, \(why)"
                case .unreachable(let why): return "\(answer.relay): unreachable (\(why))"
                }
            }.joined(separator: "; ")
        }
    }

    /// GETs `pubky` from `relays` (all of them by default) at once.
    public func lookup(_ pubky: Pubky, from relays: [PkarrRelayURL]? = nil) async -> Lookup {
        let asked = relays ?? urls
        let client = self.client
        let answers = await withTaskGroup(of: (Int, PkarrRelayClient.GetOutcome).self) { group in
            for (index, relay) in asked.enumerated() {
                group.addTask { (index, await client.get(pubky, from: relay)) }
            }
            var collected = [PkarrRelayClient.GetOutcome?](repeating: nil, count: asked.count)
            for await (index, outcome) in group { collected[index] = outcome }
            return collected.map { $0 ?? .unreachable("no answer") }
        }
        var newest: SignedPacket?
        for case .packet(let packet) in answers where newest.map({ packet.isMoreRecent(than: $0) }) ?? true {
            newest = packet
        }
        return Lookup(newest: newest, answers: Array(zip(asked, answers)))
    }

    /// PUTs `packet` to every relay at once; each relay's outcome, in `urls` order.
    public func publish(_ packet: SignedPacket) async -> [(relay: PkarrRelayURL, outcome: PkarrRelayClient.PutOutcome)] {
        let client = self.client
        let urls = self.urls
        let outcomes = await withTaskGroup(of: (Int, PkarrRelayClient.PutOutcome).self) { group in
            for (index, relay) in urls.enumerated() {
                group.addTask { (index, await client.put(packet, to: relay)) }
            }
            var collected = [PkarrRelayClient.PutOutcome?](repeating: nil, count: urls.count)
            for await (index, outcome) in group { collected[index] = outcome }
            return collected.map { $0 ?? .unreachable("no answer") }
        }
        return Array(zip(urls, outcomes))
    }
}
