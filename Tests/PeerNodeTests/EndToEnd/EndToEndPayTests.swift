import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import Transport
import XCTest

/// A client pays through a provider it found among its contacts, both engines real, over
/// loopback TCP, on the hub (kernel-validated chain, Lightning over LND REST). Each test
/// checks the money: what the destination holds on chain, the invoice, both records, and
/// that every sat is accounted for across chain, Lightning and miner fees.
final class EndToEndPayTests: XCTestCase {
    private let amount: Int64 = 100_000

    func testPayingAContactWithTaprootDeliversExactlyXAndSettlesBothSides() async throws {
        try await payAContact(contractType: nil, expected: .taprootBoltz)
    }

    func testPayingAContactWithP2WSHDeliversExactlyXAndSettlesBothSides() async throws {
        try await payAContact(contractType: .p2wsh, expected: .p2wsh)
    }

    func testSwapOutToTheClientsOwnWalletDeliversExactlyX() async throws {
        try await EndToEndNetwork.run(directory: try StoreFixture.directory(for: self)) { network in
            // Savings: the client's own address, no contact asked.
            let destination = await network.client.savings.newAddress().address
            let decision = try await network.routeThroughProvider(amountSat: amount, to: destination)
            let before = try await network.balances()
            let engine = network.client.engine
            let amount = self.amount
            let report = try await engine.pay(destination: destination, amountSat: amount, route: decision, purpose: .swapOut)
            try await settleAndCheck(network, report: report, destination: destination, before: before,
                                     expectedType: .taprootBoltz, receivedBy: \.clientChainSat)
        }
    }

    private func payAContact(contractType: ContractType?, expected: ContractType) async throws {
        try await EndToEndNetwork.run(directory: try StoreFixture.directory(for: self)) { network in
            // The destination is the contact's own answer to EndpointsRequest.
            let destination = try await network.client.onchainEndpoint(of: network.payee.contact)
            let payeeOwnsIt = await network.payee.wallet.owns(destination.script)
            XCTAssertTrue(payeeOwnsIt)
            let decision = try await network.routeThroughProvider(amountSat: amount, to: destination)
            let choice = try XCTUnwrap(decision.choice)
            let before = try await network.balances()
            let engine = network.client.engine
            let amount = self.amount
            let report: ClientPayReport
            if let contractType {
                report = try await engine.pay(destination: destination, amountSat: amount, via: choice.provider,
                                              contractType: contractType)
            } else {
                report = try await engine.pay(destination: destination, amountSat: amount, route: decision)
                // The router's price is what the quote charged.
                XCTAssertEqual(report.serviceFeeSat, choice.serviceFeeSat)
                XCTAssertEqual(report.claimFeeSat, choice.claimFeeSat)
                XCTAssertEqual(report.invoiceTotalSat, choice.invoiceTotalSat)
            }
            try await settleAndCheck(network, report: report, destination: destination, before: before,
                                     expectedType: expected, receivedBy: \.payeeChainSat)
        }
    }

    /// After `pay` returned: the claim is out; one block settles everything. Then every
    /// balance and both records are checked against the chain.
    private func settleAndCheck(_ network: EndToEndNetwork, report: ClientPayReport, destination: Address,
                                before: EndToEndNetwork.Balances, expectedType: ContractType,
                                receivedBy holder: KeyPath<EndToEndNetwork.Balances, Int64>,
                                file: StaticString = #filePath, line: UInt = #line) async throws {
        let hub = network.hub
        let id = report.swapID
        XCTAssertEqual(report.amountSat, amount, file: file, line: line)
        XCTAssertEqual(hub.chain.mempoolEntry(report.claimTxid)?.entry.txid, report.claimTxid,
                       "pay returns once the claim is broadcast", file: file, line: line)

        try hub.mine(1)
        try await network.eventually("the client's swap completes") { try await network.client.lastKind(id) == "completed" }
        try await network.eventually("the provider's swap settles") { try await network.provider.lastKind(id) == "settled" }

        // The chain: the claim's one output holds exactly X at the destination, mined.
        let claimOut = try XCTUnwrap(hub.chain.unspentOutput(OutPoint(txid: report.claimTxid, index: 0), includeMempool: false),
                                     file: file, line: line)
        XCTAssertEqual(claimOut.output, TransactionOutput(value: amount, scriptPubKey: destination.script), file: file, line: line)
        XCTAssertEqual(claimOut.confirmations, 1, file: file, line: line)
        let claim = try XCTUnwrap(hub.chain.transaction(report.claimTxid)?.transaction, file: file, line: line)
        XCTAssertEqual(claim.inputs.count, 1, file: file, line: line)
        XCTAssertEqual(claim.outputs.count, 1, file: file, line: line)
        let kernelTip = try hub.chain.kernelTip()
        XCTAssertEqual(kernelTip.hash, hub.chain.tipHash, "the kernel validated every block", file: file, line: line)

        // The provider's lock: recorded, the one the claim spends, the agreed amount, the
        // contract the client verified, kernel-verified like the claim.
        let lockFound = try await network.provider.recordedLock(id)
        let lock = try XCTUnwrap(lockFound, file: file, line: line)
        XCTAssertEqual(claim.inputs[0].previousOutput, lock.outPoint, file: file, line: line)
        XCTAssertEqual(lock.output.value, amount + report.claimFeeSat, file: file, line: line)
        XCTAssertEqual(try network.minerFee(of: lock.txid), lock.fee, file: file, line: line)
        XCTAssertEqual(try network.minerFee(of: report.claimTxid), report.claimFeeSat, file: file, line: line)
        let verified = hub.backend.verifiedTransactions
        XCTAssertTrue(verified.contains(lock.txid) && verified.contains(report.claimTxid), file: file, line: line)
        let record = try await network.client.disk.swap(id)
        let terms = try ClientSwapTerms(json: try XCTUnwrap(record, file: file, line: line).contract)
        XCTAssertEqual(terms.contractType, expectedType, file: file, line: line)
        XCTAssertEqual(hub.transactions(paying: lock.transaction.outputs[Int(lock.outputIndex)].scriptPubKey,
                                        fromHeight: 0).map(\.txid), [lock.txid], "one lock", file: file, line: line)

        // Both records: final, in order, and naming the same transactions.
        let clientKinds = try await network.client.kinds(id)
        assertInOrder(["quoted", "accepted", "pay_started", "lock_verified", "claim_broadcast", "completed"], in: clientKinds,
                      file: file, line: line)
        let clientState = try await network.client.storedState(id)
        XCTAssertEqual(clientState?.claim?.txid, report.claimTxid, file: file, line: line)
        XCTAssertEqual(clientState?.verifiedLock?.outPoint, lock.outPoint, file: file, line: line)
        XCTAssertEqual(clientState?.outcome?.funds, .delivered, file: file, line: line)
        let providerKinds = try await network.provider.kinds(id)
        assertInOrder(["invoice_created", "invoice_accepted", "funding_intent", "lock_broadcast", "claim_observed", "settled"],
                      in: providerKinds, file: file, line: line)

        // Lightning: the invoice settled for the quote's total; the client paid that plus
        // the route's fee and nothing else; the provider received the total.
        let secrets = try await network.client.secrets(of: id)
        let invoice = try await network.provider.lnd.lookupInvoice(paymentHash: secrets.paymentHash)
        XCTAssertEqual(invoice.state, .settled, file: file, line: line)
        let totalMsat = UInt64(report.invoiceTotalSat) * 1_000
        XCTAssertEqual(invoice.amountMsat, totalMsat, file: file, line: line)
        let payment = try hub.lightning.payment(node: "client", paymentHash: secrets.paymentHash)
        XCTAssertEqual(payment.status, .succeeded, file: file, line: line)
        XCTAssertEqual(payment.feeMsat, RoutingPolicy().feeMsat(forAmount: totalMsat), file: file, line: line)
        XCTAssertLessThanOrEqual(payment.feeMsat, UInt64(report.routingFeeLimitSat) * 1_000, file: file, line: line)

        let after = try await network.balances()
        XCTAssertEqual(before.lightningMsat("client") - after.lightningMsat("client"), totalMsat + payment.feeMsat,
                       file: file, line: line)
        XCTAssertEqual(after.lightningMsat("provider") - before.lightningMsat("provider"), totalMsat, file: file, line: line)
        XCTAssertEqual(after.lightning.feesCollectedMsat - before.lightning.feesCollectedMsat, payment.feeMsat,
                       file: file, line: line)
        XCTAssertEqual(after.lightning.inFlightMsat, 0, file: file, line: line)
        XCTAssertTrue(after.lightning.isConserved, "\(after)", file: file, line: line)

        // The chain: the destination gained exactly X; the provider's wallet paid X, the
        // claim fee it was paid for, and its lock's miner fee; nothing else moved.
        XCTAssertEqual(after[keyPath: holder] - before[keyPath: holder], amount, file: file, line: line)
        XCTAssertEqual(before.providerChainSat - after.providerChainSat, amount + report.claimFeeSat + lock.fee,
                       "\(before) -> \(after)", file: file, line: line)
        let chainBefore = before.providerChainSat + before.payeeChainSat + before.clientChainSat
        let chainAfter = after.providerChainSat + after.payeeChainSat + after.clientChainSat
        XCTAssertEqual(chainBefore - chainAfter, lock.fee + report.claimFeeSat, "only miner fees left the participants",
                       file: file, line: line)

        // The provider's earnings: what it received on Lightning minus what it gave on chain.
        let earned = Int64(totalMsat / 1_000) - (amount + report.claimFeeSat + lock.fee)
        XCTAssertEqual(earned, report.serviceFeeSat + report.providerOnchainFeeSat - lock.fee, file: file, line: line)
    }

    private func assertInOrder(_ expected: [String], in kinds: [String], file: StaticString, line: UInt) {
        var from = kinds.startIndex
        for kind in expected {
            guard let index = kinds[from...].firstIndex(of: kind) else {
                return XCTFail("\(kind) after \(expected.prefix { $0 != kind }) in \(kinds)", file: file, line: line)
            }
            from = index + 1
        }
        XCTAssertEqual(kinds.last, expected.last, file: file, line: line)
    }
}
