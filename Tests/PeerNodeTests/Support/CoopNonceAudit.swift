import Bitcoin
import HTLC
@testable import PeerNode
import XCTest

/// What both sides of one swap recorded about cooperative rounds, read back from their
/// event logs, and the nonce rule checked on it (issue 17): no public nonce, the client's
/// or the provider's, ever stands for two different messages, and the provider co-signed
/// at most once.
struct CoopNonceAudit {
    /// Every (client nonce, sighash) the client recorded, once per distinct round.
    let clientRounds: [CoopRound]
    /// Every co-signature the provider recorded.
    let providerSignatures: [CoopCosigned]

    init(clientEvents: [SwapEvent], providerEvents: [SwapEvent]) throws {
        var rounds: [CoopRound] = []
        for event in clientEvents {
            if let round = try ClientSwapState(kind: event.kind, data: event.data).coopRequest, !rounds.contains(round) {
                rounds.append(round)
            }
        }
        clientRounds = rounds
        var signatures: [CoopCosigned] = []
        for event in providerEvents {
            if let claim = try ProviderSwapState(event: event).coopClaim, !signatures.contains(claim) { signatures.append(claim) }
        }
        providerSignatures = signatures
    }

    /// Fails the test when a nonce signed two messages, or the provider signed twice, or it
    /// signed under a nonce the client never recorded.
    func check(_ label: String, file: StaticString = #filePath, line: UInt = #line) {
        var messages: [[UInt8]: Set<[UInt8]>] = [:]
        for round in clientRounds { messages[round.publicNonce.bytes, default: []].insert(round.record.sighash) }
        for signature in providerSignatures {
            messages[signature.record.initiatorNonce.bytes, default: []].insert(signature.record.sighash)
            messages[signature.record.responderNonce.bytes, default: []].insert(signature.record.sighash)
            XCTAssertTrue(clientRounds.contains { $0.publicNonce == signature.record.initiatorNonce },
                          "\(label): the provider signed under a nonce the client recorded", file: file, line: line)
        }
        for (nonce, signed) in messages {
            XCTAssertEqual(signed.count, 1, "\(label): nonce \(nonce.hex.prefix(16))… stands for \(signed.count) messages",
                           file: file, line: line)
        }
        XCTAssertLessThanOrEqual(providerSignatures.count, 1, "\(label): one co-signature per swap", file: file, line: line)
    }
}
