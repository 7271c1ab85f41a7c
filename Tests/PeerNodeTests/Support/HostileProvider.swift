import Bitcoin
import HTLC
import Offers
import Synchronization
import Transport

/// A hostile provider for the client's routing tests. Its offers are signed and look
/// honest, cheaper than anyone's in both directions and backed by liquidity it says it has
/// (10 BTC on chain and on Lightning); what it does with a quote request is its
/// `Behaviour`. It gains nothing but the client's failure, so a client that kept choosing
/// it could be kept from paying at all.
final class HostileProvider: Sendable {
    enum Behaviour: Sendable {
        /// Refuses every quote with `insufficient_liquidity`: a liar about its balance.
        case refusesQuotes
        /// Answers with a real quote signed by another key.
        case signsQuotesWithAnotherKey
        /// Never answers a quote request (the client's request times out).
        case neverAnswersQuotes
    }

    let identity: NodeIdentity
    private let server: PeerServer
    private let listener: PeerListener
    private let asked: Asked
    var port: Int { listener.port }
    /// Quote requests it received so far.
    var quotesAsked: Int { asked.count.withLock { $0 } }

    private final class Asked: Sendable {
        let count = Mutex(0)
    }

    private init(identity: NodeIdentity, server: PeerServer, listener: PeerListener, asked: Asked) {
        self.identity = identity
        self.server = server
        self.listener = listener
        self.asked = asked
    }

    static func start(_ behaviour: Behaviour, loop: EventLoop, seed: UInt8) async throws -> HostileProvider {
        let identity = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: seed, count: 32)))
        let stranger = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: seed &+ 1, count: 32)))
        let cheapest = FeeModel(baseFeeSat: 1, feePPM: 0)
        let terms = ProviderTerms(network: .regtest, feeModel: cheapest,
                                  submarine: try SubmarineTerms(feeModel: cheapest, requiredConfirmations: 1))
        let desk = ProviderDesk(identity: identity, terms: terms, clock: SystemClock()) {
            ProviderState(liquiditySat: 1_000_000_000, feeRate: try! FeeRate(satPerVByte: 1), lightningOutboundSat: 1_000_000_000)
        }
        let asked = Asked()
        let sleeper = loop.sleeper
        let server = PeerServer(identity: identity, sleeper: sleeper, handlers: PeerHandlers(onRequest: { bytes, peer in
            guard case .quoteRequest(let request)? = try? SwapMessage(bytes: bytes) else {
                return await desk.answer(bytes, from: peer)
                    ?? Reject(requestID: "unknown", code: .invalidRequest, reason: "not served").encoded
            }
            asked.count.withLock { $0 += 1 }
            switch behaviour {
            case .refusesQuotes:
                return Reject(requestID: request.requestID, code: .insufficientLiquidity, reason: "only 0 sat can be locked now")
                    .encoded
            case .signsQuotesWithAnotherKey:
                let reply = await desk.answer(bytes, from: peer) ?? []
                guard case .quote(let quote)? = try? SwapMessage(bytes: reply) else { return reply }
                return Signed(signing: quote.body, with: stranger).encoded
            case .neverAnswersQuotes:
                try? await sleeper.sleep(milliseconds: 600_000)
                return Reject(requestID: request.requestID, code: .internal, reason: "too late").encoded
            }
        }))
        let listener = try await PeerListener.start(server: server, loop: loop)
        return HostileProvider(identity: identity, server: server, listener: listener, asked: asked)
    }

    /// `contacts.add`'s arguments for this provider, but its name.
    var contactArguments: [String: JSONValue] {
        ["pubky": .string(identity.pubky.z32), "host": .string("127.0.0.1"), "port": .integer(port)]
    }

    func shutDown() async {
        await listener.close()
        await server.shutdown()
    }
}
