import Bitcoin
import Offers
@testable import PeerNode
import Transport

/// The contact being paid: a node that runs no provider, only the contact role. It answers
/// `EndpointsRequest` with a fresh address of its wallet and anything else (an
/// OfferRequest from a router's probe) with a Reject, over loopback TCP.
final class SwapPayeeNode: Sendable {
    let identity: NodeIdentity
    let wallet: Wallet
    let server: PeerServer
    let listener: PeerListener

    private init(identity: NodeIdentity, wallet: Wallet, server: PeerServer, listener: PeerListener) {
        self.identity = identity
        self.wallet = wallet
        self.server = server
        self.listener = listener
    }

    static func start(hub: HubFixture) async throws -> SwapPayeeNode {
        let identity = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x52, count: 32)))
        let wallet = try Wallet(seed: [UInt8](repeating: 0x53, count: 32),
                                configuration: WalletConfiguration(network: .regtest, birthdayHeight: 0), backend: hub.backend)
        let server = PeerServer(identity: identity, sleeper: hub.loop.sleeper, handlers: PeerHandlers(onRequest: { request, _ in
            let message: SwapMessage
            do { message = try SwapMessage(bytes: request) } catch {
                return Reject(requestID: "unknown", code: .invalidRequest, reason: "undecodable").encoded
            }
            guard case .endpointsRequest(let asked) = message else {
                return Reject(requestID: message.requestID ?? "unknown", code: .invalidRequest,
                              reason: "this node runs no provider").encoded
            }
            let address = await wallet.newAddress()
            return Endpoints(requestID: asked.requestID,
                             endpoints: [Endpoint(address: address.encoded, network: Network.regtest.rawValue)]).encoded
        }))
        let listener = try await PeerListener.start(server: server, loop: hub.loop)
        return SwapPayeeNode(identity: identity, wallet: wallet, server: server, listener: listener)
    }

    var contact: Offers.Contact {
        Offers.Contact(pubky: identity.pubky, host: "127.0.0.1", port: UInt16(listener.port), name: "payee")
    }

    /// The wallet's total after a sync.
    func chainBalance() async throws -> Int64 {
        _ = try await wallet.sync()
        return await wallet.balance().total
    }

    func shutDown() async { await listener.close() }
}
