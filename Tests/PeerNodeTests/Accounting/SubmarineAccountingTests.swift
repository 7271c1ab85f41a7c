import Bitcoin
import HTLC
import Offers
@testable import PeerNode
import Transport
import XCTest

/// `SwapAccounting` over submarine (`onchain_to_ln`) records, built the way the engines
/// store them: the client's events are what its machine persists on a real path (the lock's
/// fee added to `lock_intent`, as the engine records it), the provider's are its states'
/// stored forms. Quote: 20,000 sat invoice, 430 service fee, 380 provider on-chain fee, so
/// the lock is 20,810 sat.
final class SubmarineAccountingTests: XCTestCase {
    private let fixture = SubmarineClientFixture()
    private let identity = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: 0x31, count: NodeSeed.length)))
    private static let lockFee: Int64 = 141

    private func clientRecord(ownInvoice: Bool) -> SwapRecord {
        SwapRecord(id: "s1", role: .client, swapIndex: 1, keyScheme: .current, peer: "provider", createdAt: 100,
                   contract: .object(["direction": .string("onchain_to_ln"), "quote": Signed(signing: fixture.quote, with: identity).json,
                                      "own_invoice": .bool(ownInvoice)]))
    }

    /// The events the client's machine persists along `inputs`.
    private func clientEvents(_ inputs: [SubmarineClientInput]) -> [SwapEvent] {
        var machine = SubmarineClientMachine(settings: fixture.settings())
        var events: [SwapEvent] = []
        for input in inputs {
            for case .persist(let state) in machine.handle(input) {
                var data = state.json
                if state.phase == .lockIntent, case .object(var members) = data {
                    members["lock_fee_sat"] = .integer(Self.lockFee)
                    data = .object(members)
                }
                events.append(SwapEvent(sequence: Int64(events.count + 1), kind: state.phase.rawValue, data: data,
                                        isFinal: state.phase.isFinal, at: 200 + Int64(events.count)))
            }
        }
        return events
    }

    private var confirmed: [SubmarineClientInput] {
        [.acceptReceived(fixture.signed(fixture.accept), tipHeight: SubmarineClientFixture.acceptTip),
         .lockFunded(fixture.funding()), .lockBroadcastAccepted, .lockConfirmations(1)]
    }

    func testAPaidContactCostsTheLockAndItsFeeAndASwapInGainsXOnLightning() throws {
        let completed = confirmed + [.lockSpent(fixture.claim(), confirmations: 2)]
        let events = clientEvents(completed)
        XCTAssertEqual(events.last?.kind, "completed")
        for ownInvoice in [false, true] {
            let entry = try SwapAccountingEntry.submarineClient(clientRecord(ownInvoice: ownInvoice), events: events)
            XCTAssertEqual(entry.outcome, .completed)
            XCTAssertEqual(entry.purpose, ownInvoice ? "swap_in" : "pay_contact")
            XCTAssertEqual(entry.onchainSat, -(20_810 + Self.lockFee))
            XCTAssertEqual(entry.lightningMsat, ownInvoice ? 20_000_000 : 0)
            XCTAssertEqual(entry.serviceFeeSat, 430)
            XCTAssertEqual(entry.lockFeeSat, Self.lockFee)
            XCTAssertEqual(entry.deliveredSat, 20_000)
        }
        // Through SwapAccounting: the record's direction sends it here, not to the reverse reader.
        let books = try SwapAccounting(swaps: [SwapHistory(record: clientRecord(ownInvoice: true), events: events)])
        XCTAssertEqual(books.netMsat, 20_000_000 - (20_810 + Self.lockFee) * 1_000)
    }

    func testARefundCostsTheLockFeeAndTheRefundFee() throws {
        let refund = fixture.refund()
        let events = clientEvents(confirmed + [.block(height: SubmarineClientFixture.timeout), .refundSigned(refund),
                                               .refundConfirmations(refund.txid, 2)])
        XCTAssertEqual(events.last?.kind, "refunded")
        let entry = try SwapAccountingEntry.submarineClient(clientRecord(ownInvoice: false), events: events)
        let refundFee = 20_810 - refund.outputs.reduce(0) { $0 + $1.value }
        XCTAssertGreaterThan(refundFee, 0)
        XCTAssertEqual(entry.outcome, .refunded)
        XCTAssertEqual(entry.onchainSat, -(Self.lockFee + refundFee))
        XCTAssertEqual(entry.refundFeeSat, refundFee)
        XCTAssertEqual(entry.lightningMsat, 0)
    }

    /// The first refund (2 sat/vB) is mined before its bump (5 sat/vB) could be: the wallet
    /// got the first version's output back, and the books say so, whether the chain's news
    /// came as the version's depth or as the spend of the lock (found by
    /// `crash-sub-provider-payment_intent`: the report counted the bump's fee, 138 sat off).
    func testAnEarlierRefundVersionMinedIsTheOneCounted() throws {
        let (refund, bump) = (fixture.refund(), fixture.refund(satPerVByte: 5))
        let bumped: [SubmarineClientInput] = confirmed + [.block(height: SubmarineClientFixture.timeout), .refundSigned(refund),
                                                          .block(height: SubmarineClientFixture.timeout + 1), .refundSigned(bump)]
        let refundFee = 20_810 - refund.outputs.reduce(0) { $0 + $1.value }
        let bumpFee = 20_810 - bump.outputs.reduce(0) { $0 + $1.value }
        XCTAssertLessThan(refundFee, bumpFee)
        for (news, how) in [(SubmarineClientInput.refundConfirmations(refund.txid, 2), "depth"),
                            (.lockSpent(refund, confirmations: 2), "spend")] {
            let events = clientEvents(bumped + [news])
            XCTAssertEqual(events.last?.kind, "refunded", how)
            let entry = try SwapAccountingEntry.submarineClient(clientRecord(ownInvoice: false), events: events)
            XCTAssertEqual(entry.refundFeeSat, refundFee, "the mined version's fee, not the bump's (\(how))")
            XCTAssertEqual(entry.onchainSat, -(Self.lockFee + refundFee), how)
        }
        // The bump mined: its own fee.
        let entry = try SwapAccountingEntry.submarineClient(clientRecord(ownInvoice: false),
                                                            events: clientEvents(bumped + [.refundConfirmations(bump.txid, 2)]))
        XCTAssertEqual(entry.refundFeeSat, bumpFee)
    }

    func testNothingLockedCountsZeroAndAnUnfinishedSwapIsInFlight() throws {
        let abandoned = try SwapAccountingEntry.submarineClient(clientRecord(ownInvoice: false), events: clientEvents([.refused("no")]))
        XCTAssertEqual(abandoned.outcome, .failed)
        XCTAssertEqual(abandoned.netMsat, 0)
        let running = try SwapAccountingEntry.submarineClient(clientRecord(ownInvoice: false), events: clientEvents(confirmed))
        XCTAssertEqual(running.outcome, .inFlight)
        // A lock recorded without its fee is a record the books cannot read, said plainly.
        var events = clientEvents(confirmed + [.lockSpent(fixture.claim(), confirmations: 2)])
        events = events.map { event in
            guard case .object(var members) = event.data else { return event }
            members["lock_fee_sat"] = nil
            return SwapEvent(sequence: event.sequence, kind: event.kind, data: .object(members), isFinal: event.isFinal, at: event.at)
        }
        XCTAssertThrowsError(try SwapAccountingEntry.submarineClient(clientRecord(ownInvoice: false), events: events))
    }

    // MARK: provider

    private var providerRecord: SwapRecord {
        SwapRecord(id: "s1", role: .provider, swapIndex: 2, keyScheme: .current, peer: "client", createdAt: 100,
                   contract: .object(["direction": .string("onchain_to_ln"), "quote": fixture.quote.json]))
    }

    private func providerEvents(_ states: [SubmarineProviderState]) -> [SwapEvent] {
        states.enumerated().map { index, state in
            SwapEvent(sequence: Int64(index + 1), kind: state.kind.rawValue, data: state.eventData, isFinal: state.isFinal,
                      at: 300 + Int64(index))
        }
    }

    func testAProviderThatPaidAndClaimedEarnsTheLockLessTheClaimFeeAndPaidXPlusRouting() throws {
        let lock = SubmarineLock(transaction: fixture.funding(), output: fixture.lock)
        let preimage = SubmarineClientFixture.preimage
        let first = SubmarineClaim(transaction: fixture.claim(), feeRate: try FeeRate(satPerVByte: 2), fee: 300, builtAtHeight: 1_002)
        // The bump: the same spend paying 100 sat less (its own txid).
        let original = fixture.claim()
        let bumpTransaction = Transaction(version: original.version, inputs: original.inputs,
                                          outputs: original.outputs.map { TransactionOutput(value: $0.value - 100, scriptPubKey: $0.scriptPubKey) },
                                          lockTime: original.lockTime)
        let bump = SubmarineClaim(transaction: bumpTransaction, feeRate: try FeeRate(satPerVByte: 3), fee: 400, builtAtHeight: 1_003)
        XCTAssertNotEqual(bump.txid, first.txid)
        let events = providerEvents([.accepted, .lockConfirmed(lock), .paymentIntent(lock, cltvLimit: 100),
                                     .paid(lock, preimage: preimage), .claimBroadcast(lock, preimage: preimage, first),
                                     .claimBroadcast(lock, preimage: preimage, bump), .claimed(minedClaimTxid: nil)])
        let entry = try SwapAccountingEntry.submarineProvider(providerRecord, events: events, routingFeeMsat: 21_000)
        XCTAssertEqual(entry.outcome, .completed)
        XCTAssertEqual(entry.claimFeeSat, 400, "the last version signed")
        XCTAssertEqual(entry.onchainSat, 20_810 - 400)
        XCTAssertEqual(entry.lightningMsat, -(20_000_000 + 21_000))
        XCTAssertEqual(entry.netMsat, (20_810 - 400) * 1_000 - 20_021_000)
        let books = try SwapAccounting(swaps: [SwapHistory(record: providerRecord, events: events, routingFeeMsat: 21_000)])
        XCTAssertEqual(books.netMsat, entry.netMsat)

        // The first version mined before its bump could be: its fee and output count.
        let minedFirst = providerEvents([.accepted, .lockConfirmed(lock), .paymentIntent(lock, cltvLimit: 100),
                                         .paid(lock, preimage: preimage), .claimBroadcast(lock, preimage: preimage, first),
                                         .claimBroadcast(lock, preimage: preimage, bump), .claimed(minedClaimTxid: first.txid)])
        let earlier = try SwapAccountingEntry.submarineProvider(providerRecord, events: minedFirst, routingFeeMsat: 21_000)
        XCTAssertEqual(earlier.claimFeeSat, 300, "the mined version's fee, not the bump's")
        XCTAssertEqual(earlier.onchainSat, 20_810 - 300)

        let lost = try SwapAccountingEntry.submarineProvider(
            providerRecord, events: providerEvents([.accepted, .lockConfirmed(lock), .paid(lock, preimage: preimage),
                                                    .claimLost(lock, spendingTxid: fixture.refund().txid)]),
            routingFeeMsat: 21_000)
        XCTAssertEqual(lost.outcome, .lost)
        XCTAssertEqual(lost.lightningMsat, -(20_000_000 + 21_000))
        XCTAssertEqual(lost.onchainSat, 0)

        let failed = try SwapAccountingEntry.submarineProvider(
            providerRecord, events: providerEvents([.accepted, .lockConfirmed(lock), .paymentFailed(lock, reason: "no route"), .released]),
            routingFeeMsat: nil)
        XCTAssertEqual(failed.outcome, .failed)
        XCTAssertEqual(failed.netMsat, 0)
    }
}
