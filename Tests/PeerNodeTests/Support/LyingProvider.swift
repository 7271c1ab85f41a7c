import Bitcoin
import HTLC
import Offers
import Synchronization
import Transport

/// A hostile provider for the client's routing tests: its offers are honest-looking and
/// signed, cheaper than anyone's in both directions and backed by liquidity it says it has
/// (10 BTC on chain and on Lightning), and it refuses every quote with `insufficient_liquidity`. It gains nothing but the
/// client's failure, so a client that keeps choosing it can be kept from paying at all.
final class LyingProvider: Sendable {
    let identity: NodeIdentity
    private let server: PeerServer
    private let listener: PeerListener
    private let refusals: Refusals
    var port: Int { listener.port }
    /// Quotes it refused so far.
    var quotesRefused: Int { refusals.count.withLock { $0 } }

    private final class Refusals: Sendable {
        let count = Mutex(0)
    }

    private init(identity: NodeIdentity, server: PeerServer, listener: PeerListener, refusals: Refusals) {
        self.identity = identity
        self.server = server
        self.listener = listener
        self.refusals = refusals
    }

    static func start(loop: EventLoop, seed: UInt8 = 0x6c) async throws -> LyingProvider {
        let identity = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: seed, count: 32)))
        let cheapest = FeeModel(baseFeeSat: 1, feePPM: 0)
        let terms = ProviderTerms(network: .regtest, feeModel: cheapest,
                                  submarine: try SubmarineTerms(feeModel: cheapest, requiredConfirmations: 1))
        let desk = ProviderDesk(identity: identity, terms: terms, clock: SystemClock()) {
            ProviderState(liquiditySat: 1_000_000_000, feeRate: try! FeeRate(satPerVByte: 1), lightningOutboundSat: 1_000_000_000)
        }
        let refusals = Refusals()
        let server = PeerServer(identity: identity, sleeper: loop.sleeper, handlers: PeerHandlers(onRequest: { bytes, peer in
            if case .quoteRequest(let request)? = try? SwapMessage(bytes: bytes) {
                refusals.count.withLock { $0 += 1 }
                return Reject(requestID: request.requestID, code: .insufficientLiquidity,
                              reason: "only 0 sat can be locked now").encoded
            }
            return await desk.answer(bytes, from: peer)
                ?? Reject(requestID: "unknown", code: .invalidRequest, reason: "not served").encoded
        }))
        let listener = try await PeerListener.start(server: server, loop: loop)
        return LyingProvider(identity: identity, server: server, listener: listener, refusals: refusals)
    }

    func shutDown() async {
        await listener.close()
        await server.shutdown()
    }
}
