#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Bitcoin
import Offers
import Transport

extension NodeDaemon {
    /// How often the publisher looks whether its packet changed (docs/PUBKY.md, "Publishing").
    static let publishCheckMilliseconds: UInt64 = 2_000

    /// A regtest-only hook: the descriptor publishes this `ppm` instead of the offer's, so a
    /// scenario can show a client skipping a provider whose quote does not honour it.
    static let descriptorFeeHook = "PEERNODE_TEST_DESCRIPTOR_FEE_PPM"

    /// The relays and the identity's packet, when `pkarr_relay` is set.
    func startPkarr(config: NodeConfig, identityPacket: SignedPacket?, store: SQLiteSwapStore, clock: any UnixClock,
                    loop: EventLoop, teardown: inout Teardown) async -> PkarrNode? {
        guard config.pkarr.enabled else {
            if identityPacket != nil {
                options.log("warning: this node serves a Pubky identity but no pkarr_relay is set: its record is not "
                            + "republished, and contacts find it only by host:port")
            }
            return nil
        }
        let pkarr = await PkarrNode(settings: config.pkarr, identityPacket: identityPacket, store: store, clock: clock,
                                    network: config.network.rawValue, log: options.log, loop: loop)
        teardown.add("pkarr") { await pkarr.shutDown() }
        options.log("pkarr relays: " + config.pkarr.relays.map(\.description).joined(separator: ", ")
                    + (config.pkarr.privateDiscovery ? " (private discovery: contacts without a descriptor are never probed)" : ""))
        return pkarr
    }

    /// What the publisher puts in the packet as the capability descriptor: the provider's
    /// live offer (`ProviderDesk.preview`), nil when the node runs no provider or can offer
    /// nothing now.
    static func descriptorSource(desk: ProviderDesk?, clock: any UnixClock, network: Network,
                                 log: DaemonLog) -> @Sendable () async -> CapabilityDescriptor? {
        guard let desk else { return { nil } }
        let hook = TestHookArming<Int64>.decide(getenv(descriptorFeeHook).map { String(cString: $0) }, key: descriptorFeeHook,
                                                network: network, expected: "a fee in ppm (0 to 1000000)") { text in
            Int64(text).flatMap { (0...1_000_000).contains($0) ? $0 : nil }
        }
        var lie: Int64?
        switch hook {
        case .off: break
        case .armed(let ppm):
            lie = ppm
            log("test hook \(descriptorFeeHook)=\(ppm): the published descriptor says \(ppm) ppm, whatever the offer says")
        case .refused(let why): log("test hook refused: \(why)")
        }
        return { [lie] in
            guard let offer = await desk.preview().offer else { return nil }
            let descriptor = CapabilityDescriptor(offer: offer, expiresAtUnix: 0)
            guard let lie else { return descriptor }
            return CapabilityDescriptor(network: descriptor.network, terms: descriptor.terms.map { terms in
                DirectionTerms(direction: terms.direction, minAmountSat: terms.minAmountSat, maxAmountSat: terms.maxAmountSat,
                               baseFeeSat: terms.baseFeeSat, feePPM: lie, onchainFeeSat: terms.onchainFeeSat,
                               requiredConfirmations: terms.requiredConfirmations, htlcTimeoutBlocks: terms.htlcTimeoutBlocks)
            }, contractTypes: descriptor.contractTypes, expiresAtUnix: 0)
        }
    }
}
