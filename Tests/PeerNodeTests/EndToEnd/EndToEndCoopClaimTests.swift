import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import Transport
import XCTest

/// Cooperative (MuSig2 key-path) claims of reverse swaps, issue 17, both engines real over
/// loopback TCP on the hub, every transaction judged by the kernel: the claim is one
/// 64-byte signature and X arrives exactly; a swap-out keeps the saving; a provider that
/// refuses, stays silent or answers a bad partial signature leaves the script-path claim,
/// X exact; a replayed request gets the recorded answer and a second round none.
final class EndToEndCoopClaimTests: XCTestCase {
    private let amount: Int64 = 100_000

    func testACooperativeClaimSpendsTheKeyPathAndDeliversExactlyX() async throws {
        try await EndToEndNetwork.run(directory: try StoreFixture.directory(for: self), cooperation: .on) { network in
            let hub = network.hub
            let (destination, decision, before) = try await network.routeToPayee(amountSat: amount)
            let report = try await network.client.engine.pay(destination: destination, amountSat: amount, route: decision)

            let claim = try XCTUnwrap(hub.chain.transaction(report.claimTxid)?.transaction, "the claim is in the mempool")
            XCTAssertEqual(claim.inputs[0].witness.stack.map(\.count), [64], "one 64-byte signature: the key path")
            XCTAssertEqual(claim.outputs, [TransactionOutput(value: amount, scriptPubKey: destination.script)], "exactly X")
            XCTAssertTrue(hub.backend.verifiedTransactions.contains(report.claimTxid), "the kernel verified the claim")
            let secrets = try await network.client.secrets(of: report.swapID)
            XCTAssertFalse(claim.inputs[0].witness.stack.contains(secrets.preimage), "a key-path claim shows no preimage")
            // A contact payment: the quoted claim fee over 41 fewer bytes (a higher rate), X exact.
            XCTAssertEqual(report.claimSpend.path, .keyPath)
            XCTAssertEqual(report.claimSpend.feeSat, report.claimFeeSat)
            XCTAssertEqual(report.claimSpend.savedVirtualBytes, 41)
            XCTAssertEqual(report.claimSpend.savedSat, 0)
            XCTAssertEqual(report.claimSpend.virtualSize, claim.virtualSize)

            try hub.mine(1)
            try await network.eventually("the client's swap completes") { try await network.client.lastKind(report.swapID) == "completed" }
            try await network.eventually("the provider's swap settles") { try await network.provider.lastKind(report.swapID) == "settled" }

            let clientKinds = try await network.client.kinds(report.swapID)
            let providerKinds = try await network.provider.kinds(report.swapID)
            XCTAssertEqual(Array(clientKinds.drop { $0 != "lock_verified" }.prefix(3)), ["lock_verified", "coop_requested", "claim_broadcast"],
                           "the round is recorded before the request, the claim before its broadcast: \(clientKinds)")
            XCTAssertTrue(providerKinds.contains("coop_signed") && !providerKinds.contains("claim_observed"), "\(providerKinds)")
            XCTAssertEqual(providerKinds.last, "settled")
            let audit = try CoopNonceAudit(clientEvents: try await network.client.disk.events(of: report.swapID),
                                           providerEvents: try await network.provider.disk.events(of: report.swapID))
            audit.check("cooperative claim")
            XCTAssertEqual(audit.clientRounds.count, 1)
            XCTAssertEqual(audit.providerSignatures.map(\.txid), [report.claimTxid])
            XCTAssertEqual(audit.providerSignatures.first?.record.sighash, audit.clientRounds.first?.record.sighash)

            // The money: exactly X to the payee, the invoice settled for its total, the
            // claim's miner fee the quoted one; one spend of the lock.
            let recordedLock = try await network.provider.recordedLock(report.swapID)
            let lock = try XCTUnwrap(recordedLock)
            XCTAssertEqual(spends(of: lock.outPoint, on: hub).map(\.txid), [report.claimTxid])
            XCTAssertEqual(try network.minerFee(of: report.claimTxid), report.claimFeeSat)
            let invoice = try await network.provider.lnd.lookupInvoice(paymentHash: secrets.paymentHash)
            XCTAssertEqual(invoice.state, .settled)
            let after = try await network.balances()
            XCTAssertEqual(after.payeeChainSat - before.payeeChainSat, amount)
            XCTAssertEqual(after.lightningMsat("provider") - before.lightningMsat("provider"), UInt64(report.invoiceTotalSat) * 1_000)
            XCTAssertTrue(after.lightning.isConserved)
        }
    }

    func testASwapOutKeepsTheKeyPathSavingInTheWallet() async throws {
        try await EndToEndNetwork.run(directory: try StoreFixture.directory(for: self), cooperation: .on) { network in
            let hub = network.hub
            let destination = await network.client.savings.newAddress().address
            let decision = try await network.routeThroughProvider(amountSat: amount, to: destination)
            let before = try await network.balances()
            let report = try await network.client.engine.pay(destination: destination, amountSat: amount, route: decision,
                                                             purpose: .swapOut)
            let claim = try XCTUnwrap(hub.chain.transaction(report.claimTxid)?.transaction)
            XCTAssertEqual(claim.inputs[0].witness.stack.map(\.count), [64])
            // Everything but the key-path fee at the quoted rate goes to the wallet.
            let saved = report.claimSpend.savedSat
            XCTAssertGreaterThan(saved, 0)
            XCTAssertEqual(saved, report.claimFeeSat - report.claimSpend.feeSat)
            XCTAssertEqual(claim.outputs.map(\.value), [amount + saved])
            XCTAssertEqual(try network.minerFee(of: report.claimTxid), report.claimSpend.feeSat)

            try hub.mine(1)
            try await network.eventually("the swap completes") { try await network.client.lastKind(report.swapID) == "completed" }
            let after = try await network.balances()
            XCTAssertEqual(after.clientChainSat - before.clientChainSat, amount + saved, "the saving is the client's")
            // The books count what arrived: the report's net is the wallet's gain less the invoice.
            let stored = try await network.client.disk.swap(report.swapID)
            let record = try XCTUnwrap(stored)
            let entry = try SwapAccountingEntry.client(record, events: try await network.client.disk.events(of: report.swapID))
            XCTAssertEqual(entry.deliveredSat, amount + saved)
            XCTAssertEqual(entry.claimFeeSat, report.claimSpend.feeSat)
            XCTAssertEqual(entry.onchainSat, amount + saved)
        }
    }

    func testAProviderThatRefusesIsClaimedThroughTheScriptPathWithExactlyX() async throws {
        try await fallBack(.fault(.refuse), because: "did not co-sign", providerSigned: false)
    }

    func testASilentProviderIsClaimedThroughTheScriptPathWithExactlyX() async throws {
        var configuration = SwapClientNode.testConfiguration()
        configuration.coopClaimTimeoutMilliseconds = 400
        try await fallBack(.fault(.silent), configuration: configuration, because: "did not co-sign", providerSigned: false)
    }

    /// The provider co-signs (and settles), but its answer reaches the client altered: the
    /// client refuses it before signing, and claims through the script path.
    func testAPartialSignatureThatDoesNotVerifyIsRefusedAndTheScriptPathClaims() async throws {
        try await fallBack(.on, because: "partial signature was refused", providerSigned: true) { network in
            network.provider.rewriteReplies { reply in
                guard case .coopClaimSigned(let signed)? = try? SwapMessage(bytes: reply) else { return reply }
                var bytes = signed.partialSignature.bytes
                bytes[31] ^= 0x01
                return CoopClaimSigned(requestID: signed.requestID, swapID: signed.swapID, publicNonce: signed.publicNonce,
                                       partialSignature: try! MuSig2PartialSignature(bytes)).encoded
            }
        }
    }

    private func fallBack(_ cooperation: SwapProviderNode.Cooperation,
                          configuration: ClientEngineConfiguration = SwapClientNode.testConfiguration(),
                          because reason: String, providerSigned: Bool,
                          prepare: (EndToEndNetwork) -> Void = { _ in },
                          file: StaticString = #filePath, line: UInt = #line) async throws {
        try await EndToEndNetwork.run(directory: try StoreFixture.directory(for: self), clientConfiguration: configuration,
                                      cooperation: cooperation) { network in
            prepare(network)
            let hub = network.hub
            let (destination, decision, before) = try await network.routeToPayee(amountSat: amount)
            let report = try await network.client.engine.pay(destination: destination, amountSat: amount, route: decision)
            let claim = try XCTUnwrap(hub.chain.transaction(report.claimTxid)?.transaction, file: file, line: line)
            XCTAssertEqual(claim.inputs[0].witness.stack.count, 4, "the script path: signature, preimage, leaf, control block",
                           file: file, line: line)
            XCTAssertEqual(claim.outputs, [TransactionOutput(value: amount, scriptPubKey: destination.script)], "exactly X",
                           file: file, line: line)
            XCTAssertTrue(hub.backend.verifiedTransactions.contains(report.claimTxid), file: file, line: line)
            XCTAssertEqual(report.claimSpend.path, .scriptPath, file: file, line: line)
            XCTAssertTrue(report.claimSpend.fallback?.contains(reason) == true, "\(report.claimSpend)", file: file, line: line)

            try hub.mine(1)
            try await network.eventually("the client's swap completes") { try await network.client.lastKind(report.swapID) == "completed" }
            try await network.eventually("the provider's swap settles") { try await network.provider.lastKind(report.swapID) == "settled" }
            let providerKinds = try await network.provider.kinds(report.swapID)
            XCTAssertEqual(providerKinds.contains("coop_signed"), providerSigned, "\(providerKinds)", file: file, line: line)
            let audit = try CoopNonceAudit(clientEvents: try await network.client.disk.events(of: report.swapID),
                                           providerEvents: try await network.provider.disk.events(of: report.swapID))
            audit.check("fallback", file: file, line: line)
            let after = try await network.balances()
            XCTAssertEqual(after.payeeChainSat - before.payeeChainSat, amount, file: file, line: line)
            XCTAssertEqual(try network.minerFee(of: report.claimTxid), report.claimFeeSat, file: file, line: line)
            XCTAssertTrue(after.lightning.isConserved, file: file, line: line)
        }
    }

    /// A provider whose offer lists no `musig2`, or a client with cooperation off, is never
    /// asked: no round recorded, no request, the script-path claim.
    func testNoRoundUnlessBothSidesOfferMusig2() async throws {
        var off = SwapClientNode.testConfiguration()
        off.cooperativeClaims = false
        for (cooperation, configuration, label) in [(SwapProviderNode.Cooperation.off, SwapClientNode.testConfiguration(),
                                                     "the provider does not offer musig2"),
                                                    (.on, off, "the client has musig2 off")] {
            try await EndToEndNetwork.run(directory: try StoreFixture.directory(for: self),
                                          clientConfiguration: configuration, cooperation: cooperation) { network in
                let (destination, decision, _) = try await network.routeToPayee(amountSat: amount)
                let report = try await network.client.engine.pay(destination: destination, amountSat: amount, route: decision)
                let claim = try XCTUnwrap(network.hub.chain.transaction(report.claimTxid)?.transaction, label)
                XCTAssertEqual(claim.inputs[0].witness.stack.count, 4, label)
                XCTAssertEqual(report.claimSpend.path, .scriptPath, label)
                XCTAssertNil(report.claimSpend.fallback, "\(label): no round, so no fallback")
                let kinds = try await network.client.kinds(report.swapID)
                XCTAssertFalse(kinds.contains("coop_requested"), "\(label): \(kinds)")
                XCTAssertFalse(network.provider.log.all.contains { $0.contains("cooperative") }, label)
            }
        }
    }

    /// After a cooperative claim: the same request again gets the recorded answer, nothing
    /// signed anew; another nonce, another claim, another peer get nothing.
    func testAReplayIsAnsweredFromTheRecordAndASecondRoundIsRefused() async throws {
        try await EndToEndNetwork.run(directory: try StoreFixture.directory(for: self), cooperation: .on) { network in
            let (destination, decision, _) = try await network.routeToPayee(amountSat: amount)
            let report = try await network.client.engine.pay(destination: destination, amountSat: amount, route: decision)
            try network.hub.mine(1)
            try await network.eventually("the provider's swap settles") { try await network.provider.lastKind(report.swapID) == "settled" }
            let state = try await network.client.storedState(report.swapID)
            let round = try XCTUnwrap(state?.coopRequest)
            let providerEvents = try await network.provider.disk.events(of: report.swapID)
            let recorded = try XCTUnwrap(try CoopNonceAudit(clientEvents: [], providerEvents: providerEvents).providerSignatures.first)
            let preimage = try await network.client.secrets(of: report.swapID).preimage
            let engine = network.provider.engine
            let client = network.client.identity.pubky
            func ask(nonce: MuSig2PublicNonce = round.publicNonce, claim: Transaction = round.unsignedTransaction,
                     from peer: Pubky = client) async throws -> SwapMessage {
                let request = CoopClaimRequest(requestID: RandomID.make(), swapID: report.swapID, preimage: preimage,
                                               publicNonce: nonce, claimTransaction: claim)
                let reply = await engine.answer(request.encoded, from: peer)
                return try SwapMessage(bytes: try XCTUnwrap(reply))
            }
            guard case .coopClaimSigned(let again) = try await ask() else { return XCTFail("the replay is answered") }
            XCTAssertEqual(again.partialSignature, recorded.record.partialSignature)
            XCTAssertEqual(again.publicNonce, recorded.record.responderNonce)

            let fresh = try MuSig2SecretNonce(publicKey: PrivateKey([UInt8](repeating: 0x44, count: 32)).publicKey).publicNonce
            guard case .reject(let second) = try await ask(nonce: fresh) else { return XCTFail("a second round is refused") }
            XCTAssertEqual(second.code, .invalidRequest)
            XCTAssertTrue(second.reason.contains("co-signed already"), second.reason)
            var elsewhere = round.unsignedTransaction
            elsewhere.inputs[0] = TransactionInput(previousOutput: OutPoint(txid: report.claimTxid, index: 0),
                                                   sequence: TransactionInput.replaceableSequence)
            guard case .reject(let other) = try await ask(claim: elsewhere) else { return XCTFail("another outpoint is refused") }
            XCTAssertEqual(other.code, .invalidRequest)
            let stranger = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x0e, count: 32))).pubky
            guard case .reject(let unknown) = try await ask(from: stranger) else { return XCTFail("another peer is refused") }
            XCTAssertEqual(unknown.code, .notFound)
            let providerKinds = try await network.provider.kinds(report.swapID)
            XCTAssertEqual(providerKinds.filter { $0 == "coop_signed" }.count, 1, "\(providerKinds)")
        }
    }
}
