import Bitcoin
import Glibc
import HTLC
import Offers
import Regtest
import Synchronization
import Transport

/// Benchmark 6 (issue 20): finding the cheapest of 1,000 providers two ways, in one run, on
/// the same 1,000 desks (`ProviderFleet`):
///
/// - **probing**: `Router.route(refresh: true)` dials every provider (TCP, Noise_XK, signed
///   OfferRequest/Offer), `width` at once, as `pay` does without descriptors;
/// - **discovery**: every provider's pkarr packet (its endpoint and its capability
///   descriptor, made from its desk's live offer, signed by its key) fetched from one local
///   relay (the hub's `PkarrRelayService`) over HTTP, `width` at once, each verified and its
///   descriptor read; then `Router.route` ranks all 1,000 from the descriptors, dialling
///   nobody, as the discovery sweep and `pay` do. (The daemon also writes each new packet
///   to its store; that is not measured.)
///
/// Both must choose the same provider. Wall time and the process's CPU time (both sides:
/// the relay, the providers and the client are all in this process).
struct DiscoveryBench {
    struct Round {
        var seconds: Double
        var cpuSeconds: Double
    }

    struct Result {
        var nodes: Int
        var width: Int
        var probing: [Round]
        var discovery: [Round]
        var fetchOnly: [Round]
        var packetBytes: Int
        var chosen: String
        var loadAverage: Double
    }

    let nodes: Int
    let width: Int
    let amountSat: Int64 = 250_000

    func run(loop: EventLoop) async throws -> Result {
        let limits = PeerLimits(channel: ChannelLimits(handshakeTimeoutMilliseconds: 10_000, idleTimeoutMilliseconds: 60_000))
        let clock = SystemClock()
        var load = [0.0]
        _ = getloadavg(&load, 1)
        let fleet = try await ProviderFleet.start(nodes: nodes, limits: limits, clock: clock, loop: loop)
        let relay = try await PkarrRelayService.start(loop: loop)
        var packetBytes = 0
        for (index, identity) in fleet.identities.enumerated() {
            guard let offer = await fleet.desks[index].preview().offer else { throw BenchFailure("a desk offers nothing") }
            let descriptor = CapabilityDescriptor(offer: offer, expiresAtUnix: clock.nowUnix + 3_600)
            let dns = PeernodeRecords.nodePacket(node: identity.pubky, hosts: ["127.0.0.1"], port: fleet.contacts[index].port,
                                                 ttl: 300, extra: descriptor.records(node: identity.pubky, ttl: 300))
            let packet = try SignedPacket.sign(dns, by: identity, timestamp: 1_000)
            packetBytes = max(packetBytes, packet.encodedPacket.count)
            let put = relay.relay.respond(to: HTTPRequest(method: .put, target: "/" + identity.pubky.z32, body: packet.relayPayload))
            guard put.status == .noContent else { throw BenchFailure("the relay refused a packet: \(put.status.code)") }
        }
        let client = FanOutBench.identity(number: 0xFFFF_FFFF)
        let selector = RouteSelector(amountSat: amountSat, destination: .p2wpkh, claimFeeRate: try FeeRate(satPerVByte: 2))
        let url = try PkarrRelayURL(relay.url)
        let http = HTTPClient(configuration: HTTPClient.Configuration(maxConnectionsPerEndpoint: width, timeoutMilliseconds: 10_000),
                              loop: loop)
        let relayClient = PkarrRelayClient(http: http, timeoutMilliseconds: 10_000)

        var probing: [Round] = [], discovery: [Round] = [], fetchOnly: [Round] = []
        var chosenByProbe: Contact?, chosenByDescriptor: Contact?
        for _ in 0..<3 {
            let prober = PeerOfferProber(identity: client, network: .regtest, sleeper: loop.sleeper, limits: limits) { contact in
                try await TCPConnection.connect(host: contact.host, port: Int(contact.port), loop: loop)
            }
            let probeRouter = Router(settings: Router.Settings(network: .regtest, maxConcurrentProbes: width), prober: prober,
                                     sleeper: loop.sleeper, clock: clock)
            var decision: RouteDecision?
            probing.append(await measured {
                decision = await probeRouter.route(selector, contacts: fleet.contacts, refresh: true)
            })
            guard decision?.ranked.count == nodes else { throw BenchFailure("probing: not every provider offered") }
            chosenByProbe = decision?.choice?.provider.contact

            var published: [Pubky: CapabilityDescriptor] = [:]
            let fetched = try await measured {
                published = try await Self.fetch(fleet.contacts.map(\.pubky), from: url, client: relayClient, width: width)
            }
            fetchOnly.append(fetched)
            // A router whose prober fails the round if it is ever asked: ranking dials nobody.
            let ranking = Router(settings: Router.Settings(network: .regtest), prober: RefusingProber(), sleeper: loop.sleeper,
                                 clock: clock)
            var ranked: RouteDecision?
            let rankedRound = await measured {
                ranked = await ranking.route(selector, contacts: fleet.contacts, published: published, probeUnpublished: false)
            }
            discovery.append(Round(seconds: fetched.seconds + rankedRound.seconds, cpuSeconds: fetched.cpuSeconds + rankedRound.cpuSeconds))
            guard ranked?.fromDescriptors == nodes, ranked?.probed == 0 else { throw BenchFailure("discovery probed someone") }
            chosenByDescriptor = ranked?.choice?.provider.contact
        }
        guard let chosenByProbe, chosenByProbe == chosenByDescriptor else {
            throw BenchFailure("the descriptors chose \(chosenByDescriptor?.name ?? "nobody"), probing \(chosenByProbe?.name ?? "nobody")")
        }
        await http.shutDown()
        await relay.stop()
        await fleet.close()
        return Result(nodes: nodes, width: width, probing: probing, discovery: discovery, fetchOnly: fetchOnly,
                      packetBytes: packetBytes, chosen: chosenByProbe.name, loadAverage: load[0])
    }

    private func measured(_ body: () async throws -> Void) async rethrows -> Round {
        let cpu = processCPUSeconds()
        let seconds = try await timedAsync(body)
        return Round(seconds: seconds, cpuSeconds: processCPUSeconds() - cpu)
    }

    /// Every key's packet from the relay, `width` at once, verified; its descriptor read.
    private static func fetch(_ keys: [Pubky], from relay: PkarrRelayURL, client: PkarrRelayClient,
                              width: Int) async throws -> [Pubky: CapabilityDescriptor] {
        var found: [Pubky: CapabilityDescriptor] = [:]
        try await withThrowingTaskGroup(of: (Pubky, CapabilityDescriptor).self) { group in
            var next = 0
            func add() {
                let key = keys[next]
                next += 1
                group.addTask {
                    guard case .packet(let packet) = await client.get(key, from: relay),
                          case .success(let descriptor) = CapabilityDescriptor.read(from: packet) else {
                        throw BenchFailure("no descriptor for \(key)")
                    }
                    return (key, descriptor)
                }
            }
            for _ in 0..<min(width, keys.count) { add() }
            while let (key, descriptor) = try await group.next() {
                found[key] = descriptor
                if next < keys.count { add() }
            }
        }
        return found
    }
}

/// A prober that must never be asked (ranking from descriptors dials nobody).
private struct RefusingProber: OfferProber {
    func probe(_ contact: Contact, timeoutMilliseconds: UInt64) async -> ProbeResult {
        .skipped(.unreachable("the descriptor round asked \(contact.name)"))
    }
}

extension DiscoveryBench {
    static func report(_ result: Result, into table: inout BenchTable) {
        func median(_ rounds: [Round]) -> Round { rounds.sorted { $0.seconds < $1.seconds }[rounds.count / 2] }
        let (probe, found, fetch) = (median(result.probing), median(result.discovery), median(result.fetchOnly))
        table.add(["6. cheapest of \(result.nodes) providers: descriptors vs probing (median of 3)",
                   fixed(found.seconds * 1000, 0) + " ms", fixed(probe.seconds * 1000, 0) + " ms",
                   percent(found.seconds / probe.seconds), "", ""])
        table.add(["   CPU (all threads, both sides): descriptors / probing", fixed(found.cpuSeconds * 1000, 0) + " ms",
                   fixed(probe.cpuSeconds * 1000, 0) + " ms", percent(found.cpuSeconds / probe.cpuSeconds), "", ""])
        table.add(["   of which fetching \(result.nodes) packets from the relay", fixed(fetch.seconds * 1000, 0) + " ms",
                   fixed(fetch.cpuSeconds * 1000, 0) + " ms CPU", "", "", ""])
        table.add(["   each round: descriptors / probing", result.discovery.map { fixed($0.seconds * 1000, 0) }.joined(separator: ", ")
                       + " ms", result.probing.map { fixed($0.seconds * 1000, 0) }.joined(separator: ", ") + " ms", "", "", ""])
        table.add(["   largest packet, chosen (the same both ways)", "\(result.packetBytes) bytes", result.chosen, "", "", ""])
        table.add(["   load average at start", fixed(result.loadAverage, 2), "", "", "", ""])
    }

    static func printNotes() {
        print("6: the same 1,000 desks as 4, each also publishing its endpoint and capability descriptor (its live")
        print("   offer) as a signed pkarr packet to one local relay; descriptors = fetching all 1,000 packets over")
        print("   HTTP (\(64) at once), verifying them, reading the descriptors and ranking with Router.route(published:),")
        print("   dialling nobody; probing = Router.route(refresh: true) over TCP + Noise_XK + signed offers.")
    }
}
