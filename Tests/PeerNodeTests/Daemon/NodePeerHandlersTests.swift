import Bitcoin
import HTLC
import Offers
@testable import PeerNode
import Transport
import XCTest

/// What the node answers a peer that sends a reply or a push where a request belongs
/// (docs/TRANSPORT.md): `invalid_request`, naming the message, whether or not the node runs
/// a provider and whether or not its engines run; never a claim that something is missing.
final class NodePeerHandlersTests: XCTestCase {
    private static let peer = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: 0x31, count: 32))).pubky
    private static let replies: [(type: String, json: String)] = [
        ("Offer", #"{"type":"Offer","request_id":"r1","offer_id":"o","signature":"00"}"#),
        ("Quote", #"{"type":"Quote","request_id":"r2","quote_id":"q"}"#),
        ("SwapAccept", #"{"type":"SwapAccept","request_id":"r3","swap_id":"s"}"#),
        ("SwapStatusSnapshot", #"{"type":"SwapStatusSnapshot","request_id":"r4","swap_id":"s","status":"settled","timeout_height":9}"#),
        ("Reject", #"{"type":"Reject","request_id":"r5","code":"internal","reason":"x"}"#),
        ("Endpoints", #"{"type":"Endpoints","request_id":"r6","endpoints":[]}"#),
        ("SwapStatusUpdate", #"{"type":"SwapStatusUpdate","request_id":"r7","swap_id":"s","sequence":1,"status":"settled"}"#),
        ("PreimagePush", #"{"type":"PreimagePush","request_id":"r8","swap_id":"s","preimage":"00"}"#),
        ("Invoice", #"{"type":"Invoice","request_id":"r9","invoice":"lnbcrt1x","signature":"00"}"#),
    ]

    private func answers(desk: ProviderDesk?) async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try fixture.wallet()
        for (type, json) in Self.replies {
            let reply = await NodePeerHandlers.answer(Array(json.utf8), from: Self.peer, wallet: wallet, network: .regtest,
                                                      desk: desk, engines: SwapEnginesBox())
            guard case .reject(let reject) = try SwapMessage(bytes: reply) else {
                return XCTFail("\(type): not a Reject: \(String(decoding: reply, as: UTF8.self))")
            }
            XCTAssertEqual(reject.code, .invalidRequest, type)
            XCTAssertEqual(reject.requestID, (try MessageEnvelope.parse(Array(json.utf8))).requestID, type)
            XCTAssertTrue(reject.reason.hasPrefix("\(type) is not a request"), "\(type): \(reject.reason)")
            XCTAssertFalse(reject.reason.contains("wired"), reject.reason)
        }
    }

    func testAReplyOrPushSentAsARequestIsAnInvalidRequestAtAProvider() async throws {
        let identity = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x32, count: 32)))
        let desk = ProviderDesk(identity: identity, terms: ProviderTerms(network: .regtest), clock: SystemClock()) {
            ProviderState(liquiditySat: 1_000_000, feeRate: WalletFixture.rate(2))
        }
        try await answers(desk: desk)
    }

    func testAReplyOrPushSentAsARequestIsAnInvalidRequestAtANodeWithoutAProvider() async throws {
        try await answers(desk: nil)
    }

    /// Without a `ContactInvoiceDesk` (`accept_lightning=0`): an InvoiceRequest is told the
    /// node takes no Lightning payments (`not_found`); an onchain_to_ln SwapRequest at a
    /// provider without `submarine=1` (no submarine engine) that this direction is not
    /// offered (`invalid_request`), and at a node that runs no provider that it runs none
    /// (`not_found`), as for every provider request.
    func testInvoiceRequestsAndSubmarineSwapRequestsAreRefusedPlainly() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let wallet = try fixture.wallet()
        let identity = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x32, count: 32)))
        let desk = ProviderDesk(identity: identity, terms: ProviderTerms(network: .regtest), clock: SystemClock()) {
            ProviderState(liquiditySat: 1_000_000, feeRate: WalletFixture.rate(2))
        }
        let invoiceRequest = ContactInvoiceRequest(requestID: "i1", amountMsat: 20_000_000, description: "")
        let swapRequest = SubmarineSwapRequest(requestID: "s1", quoteID: "q", invoice: "lnbcrt1x",
                                               refundPublicKey: try PrivateKey([UInt8](repeating: 0x66, count: 32)).publicKey)
        for desk in [desk, nil] {
            let first = await NodePeerHandlers.answer(invoiceRequest.encoded, from: Self.peer, wallet: wallet, network: .regtest,
                                                      desk: desk, engines: SwapEnginesBox())
            XCTAssertEqual(try SwapMessage(bytes: first),
                           .reject(Reject(requestID: "i1", code: .notFound, reason: "this node takes no Lightning payments")))
            let second = await NodePeerHandlers.answer(swapRequest.encoded, from: Self.peer, wallet: wallet, network: .regtest,
                                                       desk: desk, engines: SwapEnginesBox())
            XCTAssertEqual(try SwapMessage(bytes: second), desk == nil
                           ? .reject(Reject(requestID: "s1", code: .notFound, reason: "this node runs no swap provider"))
                           : .reject(Reject(requestID: "s1", code: .invalidRequest, reason: "this swap direction is not offered")))
        }
    }
}
