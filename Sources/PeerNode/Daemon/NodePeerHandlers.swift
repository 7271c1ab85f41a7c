import Bitcoin
import Offers
import Synchronization
import Transport

/// The engines, set once the factory has built them. The peer server's handlers are
/// fixed when it is created, before the engines exist (they need the server to push),
/// so the handlers read them from here.
final class SwapEnginesBox: Sendable {
    private let engines = Mutex(SwapEngines())

    var current: SwapEngines { engines.withLock { $0 } }

    func set(_ value: SwapEngines) {
        engines.withLock { $0 = value }
    }
}

/// What the node answers peers:
///
/// - `EndpointsRequest` (contact role): a fresh address of the node's wallet, and a
///   `lightning` entry (the node's pubky) when it takes Lightning payments from the asker
///   (a saved contact);
/// - `InvoiceRequest`: the `ContactInvoiceDesk` when the node takes Lightning
///   (`accept_lightning`), else a Reject `not_found`;
/// - `OfferRequest`, `QuoteRequest`: the `ProviderDesk` when the provider is on, else a
///   Reject `not_found` (the asking router then lists this node as "runs no provider");
/// - swap requests and pushes: the provider engine (a node without one answers
///   `not_found`: it runs no provider); onchain_to_ln SwapRequests and the status of its
///   swaps: the submarine engine when `submarine=1`, else `unsupported_direction`;
/// - `SwapListRequest`: the `onchain_to_ln` swaps this node holds with the asker, as
///   provider or client (`SwapListDesk`), to anyone: each peer learns only its own swaps;
/// - a reply or a push sent where a request belongs (an `Offer`, a `Reject`, a
///   `SwapStatusUpdate` with a `request_id`...): `invalid_request` naming it, whatever the
///   node runs (docs/TRANSPORT.md).
///
/// With `provider_contacts_only`, a peer that is not a saved contact is answered
/// `not_found` for everything a provider serves, and its pushes are dropped.
enum NodePeerHandlers {
    /// Whether the provider serves `peer`; nil: everyone.
    typealias ServesPeer = @Sendable (Pubky) async -> Bool

    static func make(wallet: Wallet, network: Network, desk: ProviderDesk?, engines: SwapEnginesBox,
                     servesPeer: ServesPeer? = nil, limiter: PeerRequestLimiter = PeerRequestLimiter(),
                     invoiceDesk: ContactInvoiceDesk? = nil, acceptsOnchain: Bool = true,
                     swapList: SwapListDesk? = nil) -> PeerHandlers {
        PeerHandlers(onRequest: { request, peer in
            // One peer's request rate is its own: over its share it is told when to retry.
            if let waitMilliseconds = limiter.take(peer, nowMilliseconds: MonotonicClock.milliseconds()) {
                let requestID = (try? MessageEnvelope.parse(request))?.requestID ?? "unknown"
                return Reject(requestID: requestID, code: .rateLimited,
                              reason: "too many requests from this peer; retry in \(waitMilliseconds) ms").encoded
            }
            return await answer(request, from: peer, wallet: wallet, network: network, desk: desk, engines: engines,
                                servesPeer: servesPeer, invoiceDesk: invoiceDesk, acceptsOnchain: acceptsOnchain,
                                swapList: swapList)
        }, onPush: { message, peer in
            if let servesPeer, await !servesPeer(peer) { return }
            await engines.current.provider?.receive(push: message, from: peer)
        })
    }

    static func answer(_ request: [UInt8], from peer: Pubky, wallet: Wallet, network: Network, desk: ProviderDesk?,
                       engines: SwapEnginesBox, servesPeer: ServesPeer? = nil,
                       invoiceDesk: ContactInvoiceDesk? = nil, acceptsOnchain: Bool = true,
                       swapList: SwapListDesk? = nil) async -> [UInt8] {
        let envelope = try? MessageEnvelope.parse(request)
        let requestID = envelope?.requestID ?? "unknown"
        if let type = envelope?.type, let role = notRequests[type] {
            return Reject(requestID: requestID, code: .invalidRequest,
                          reason: "\(type) is not a request: it is sent only \(role)").encoded
        }
        let message: SwapMessage
        do {
            message = try SwapMessage(bytes: request)
        } catch {
            return Reject(requestID: requestID, error: error).encoded
        }
        switch message {
        case .endpointsRequest(let endpointsRequest):
            var endpoints: [Endpoint] = []
            if acceptsOnchain {
                // One address per asking peer until it is paid (audit M-6).
                let address = await wallet.reusableAddress(for: peer.description)
                endpoints.append(Endpoint(address: address.encoded, network: network.rawValue))
            }
            // After the on-chain entry: older clients take the first entry they can pay. Only to
            // a peer the desk makes invoices for (a saved contact): a stranger would be refused.
            if let invoiceDesk, await invoiceDesk.serves(peer) {
                endpoints.append(.lightning(pubky: invoiceDesk.identity.pubky, network: network.rawValue))
            }
            // A node that takes neither says so, rather than sending a list a payer reads as empty.
            if endpoints.isEmpty, invoiceDesk != nil {
                return Reject(requestID: endpointsRequest.requestID, code: .notFound,
                              reason: "this node takes only Lightning payments, from its saved contacts only").encoded
            }
            guard !endpoints.isEmpty else {
                return Reject(requestID: endpointsRequest.requestID, code: .notFound,
                              reason: "this node takes no payments (accept_onchain=0, accept_lightning=0)").encoded
            }
            return Endpoints(requestID: endpointsRequest.requestID, endpoints: endpoints).encoded
        case .invoiceRequest(let invoiceRequest):
            // A node that takes no Lightning names no lightning entry in its Endpoints, so
            // a payer that asks anyway learns plainly that it takes no Lightning payments.
            guard let invoiceDesk else { return Reject(requestID: invoiceRequest.requestID, error: .noLightning).encoded }
            return await invoiceDesk.answer(invoiceRequest, from: peer)
        case .swapListRequest(let listRequest):
            // Open to every peer, contacts-only or not: the answer lists only the asker's swaps.
            guard let swapList else { return Reject(requestID: requestID, error: .swapNotFound).encoded }
            return await swapList.answer(listRequest, from: peer)
        case .submarineSwapRequest(let submarineRequest):
            if let servesPeer, await !servesPeer(peer) { return contactsOnly(requestID) }
            guard desk != nil else {
                return Reject(requestID: requestID, code: .notFound, reason: "this node runs no swap provider").encoded
            }
            // A provider without `submarine=1` offers no onchain_to_ln terms and runs no
            // submarine engine: the direction is not offered.
            if let reply = await engines.current.submarineProvider?.answer(request, from: peer) { return reply }
            return Reject(requestID: submarineRequest.requestID, error: .unsupportedDirection).encoded
        case .coopRefundRequest:
            if let servesPeer, await !servesPeer(peer) { return contactsOnly(requestID) }
            // Only a submarine swap has a cooperative refund.
            if let reply = await engines.current.submarineProvider?.answer(request, from: peer) { return reply }
            return Reject(requestID: requestID, error: .swapNotFound).encoded
        case .offerRequest, .quoteRequest:
            if let servesPeer, await !servesPeer(peer) { return contactsOnly(requestID) }
            guard let desk else {
                return Reject(requestID: requestID, code: .notFound, reason: "this node runs no swap provider").encoded
            }
            return await desk.answer(request, from: peer)
                ?? Reject(requestID: requestID, error: .unknownMessageType).encoded
        default:
            if let servesPeer, await !servesPeer(peer) { return contactsOnly(requestID) }
            // The submarine engine answers only for its own swaps (a status request).
            if let reply = await engines.current.submarineProvider?.answer(request, from: peer) { return reply }
            if let reply = await engines.current.provider?.answer(request, from: peer) { return reply }
            guard desk != nil else {
                return Reject(requestID: requestID, code: .notFound, reason: "this node runs no swap provider").encoded
            }
            // Only a node built without its engines (a test daemon) gets here.
            return Reject(requestID: requestID, code: .internal,
                          reason: "this node's provider engine is not running; it serves offers and quotes only").encoded
        }
    }

    /// The swap/1 messages that are never requests, and how each is sent instead.
    static let notRequests: [String: String] = [
        Offer.messageType: "in answer to an OfferRequest",
        Quote.messageType: "in answer to a QuoteRequest",
        SwapAccept.messageType: "in answer to a SwapRequest",
        SwapStatusSnapshot.messageType: "in answer to a SwapStatusRequest",
        Endpoints.messageType: "in answer to an EndpointsRequest",
        ContactInvoice.messageType: "in answer to an InvoiceRequest",
        Reject.messageType: "in answer to a request",
        SwapStatusUpdate.messageType: "as a push, without a request_id",
        PreimagePush.messageType: "as a push, without a request_id",
        CoopRefundOffer.messageType: "as a push, without a request_id",
        CoopClaimSigned.messageType: "in answer to a CoopClaimRequest or a CoopRefundRequest",
        SwapList.messageType: "in answer to a SwapListRequest",
    ]

    private static func contactsOnly(_ requestID: String) -> [UInt8] {
        Reject(requestID: requestID, code: .notFound, reason: "this provider serves its saved contacts only").encoded
    }
}
