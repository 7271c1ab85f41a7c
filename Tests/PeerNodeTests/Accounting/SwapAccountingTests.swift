import Bitcoin
import HTLC
import Offers
@testable import PeerNode
import Transport
import XCTest

/// `SwapAccounting` over hand-built records, one per outcome and role: what each swap
/// earned or cost, to the msat, and that in-flight swaps are listed and never counted.
///
/// The quote: 100 000 sat locked, 500 service fee, 300 provider on-chain fee, so the
/// invoice is 100 800 sat.
final class SwapAccountingTests: XCTestCase {
    private let day1: Int64 = 1_796_083_200 - 86_400 + 3_600   // 2026-11-30 01:00 UTC
    private let day2: Int64 = 1_796_083_200 + 7_200            // 2026-12-01 02:00 UTC
    private let quote = Quote(requestID: "r1", quoteID: "q1", offerID: "o1", amountSat: 100_000, serviceFeeSat: 500,
                              onchainFeeSat: 300, feeRateSatPerVByte: 2, htlcTimeoutBlocks: 144, requiredConfirmations: 1,
                              validUntilUnix: 0)
    private let identity = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: 0x31, count: NodeSeed.length)))

    private static func transaction(_ tag: UInt8, value: Int64) -> Transaction {
        Transaction(inputs: [TransactionInput(previousOutput: OutPoint(txid: try! TransactionID(bytes: [UInt8](repeating: tag, count: 32)),
                                                                        index: 0))],
                    outputs: [TransactionOutput(value: value, scriptPubKey: Script(bytes: [0x51, 0x20] + [UInt8](repeating: tag, count: 32)))])
    }

    private func event(_ sequence: Int64, _ kind: String, _ data: JSONValue, final: Bool = false, at: Int64) -> SwapEvent {
        SwapEvent(sequence: sequence, kind: kind, data: data, isFinal: final, at: at)
    }

    // MARK: client

    private func clientRecord(_ id: String, purpose: ClaimPurpose, at: Int64) -> SwapRecord {
        SwapRecord(id: id, role: .client, swapIndex: 1, keyScheme: .current, peer: "provider", createdAt: at,
                   contract: .object(["quote": Signed(signing: quote, with: identity).json, "purpose": .string(purpose.rawValue),
                                      "amount_sat": .integer(99_800), "claim_fee_sat": .integer(200)]))
    }

    /// A client log up to a claim that paid `claimed` sat out of the 100 000 sat lock.
    private func clientEvents(claimed: Int64, end: ClientSwapPhase?, at: Int64) -> [SwapEvent] {
        let lock = Self.transaction(7, value: 100_000)
        let verified = LockOutput(outPoint: OutPoint(txid: lock.txid, index: 0), value: 100_000)
        var events = [
            event(1, "quoted", .object([:]), at: at),
            event(2, "pay_started", ClientSwapState(phase: .payStarted, paidAtUnix: UInt64(at)).json, at: at),
            event(3, "lock_verified", ClientSwapState(phase: .lockVerified, verifiedLock: verified).json, at: at),
            // The first claim (fee 150), then its bump (fee 200): the bump is the one counted.
            event(4, "claim_broadcast", ClientSwapState(phase: .claimBroadcast, verifiedLock: verified,
                                                        claim: Self.transaction(8, value: 99_850)).json, at: at),
            event(5, "claim_broadcast", ClientSwapState(phase: .claimBroadcast, verifiedLock: verified,
                                                        claim: Self.transaction(9, value: claimed)).json, at: at),
        ]
        if let end {
            let outcome = ClientSwapOutcome(reason: "done", funds: .delivered)
            events.append(event(6, end.rawValue, ClientSwapState(phase: end, verifiedLock: verified,
                                                                 claim: Self.transaction(9, value: claimed), outcome: outcome).json,
                                final: true, at: at + 600))
        }
        return events
    }

    func testACompletedSwapOutCostsTheFeesAndLandsTheClaimInTheWallet() throws {
        let entry = try SwapAccountingEntry.client(clientRecord("c1", purpose: .swapOut, at: day1),
                                                   events: clientEvents(claimed: 99_800, end: .completed, at: day1))
        XCTAssertEqual(entry.outcome, .completed)
        XCTAssertEqual(entry.purpose, "swap_out")
        XCTAssertEqual(entry.deliveredSat, 99_800)
        XCTAssertEqual(entry.serviceFeeSat, 500)
        XCTAssertEqual(entry.quotedOnchainFeeSat, 300)
        XCTAssertEqual(entry.claimFeeSat, 200, "the bumped claim's fee, not the first version's")
        XCTAssertNil(entry.routingFeeMsat, "the store does not record the routing fee paid")
        XCTAssertEqual(entry.lightningMsat, -100_800_000)
        XCTAssertEqual(entry.onchainSat, 99_800)
        XCTAssertEqual(entry.netMsat, -1_000_000, "service 500 + provider on-chain 300 + claim 200")
        XCTAssertEqual(entry.endedAt, day1 + 600)
    }

    /// The first version (fee 150) confirmed before its bump (fee 200) could: the swap-out's
    /// wallet got 99 850 sat, and the books say so.
    func testAnEarlierClaimVersionMinedIsTheOneCounted() throws {
        var events = clientEvents(claimed: 99_800, end: .completed, at: day1)
        var final = try ClientSwapState(kind: "completed", data: events[5].data)
        final.minedClaimTxid = Self.transaction(8, value: 99_850).txid
        events[5] = event(6, "completed", final.json, final: true, at: day1 + 600)
        let entry = try SwapAccountingEntry.client(clientRecord("c1", purpose: .swapOut, at: day1), events: events)
        XCTAssertEqual(entry.deliveredSat, 99_850)
        XCTAssertEqual(entry.claimFeeSat, 150, "the mined version's fee, not the bump's")
        XCTAssertEqual(entry.onchainSat, 99_850)
        XCTAssertEqual(entry.netMsat, -950_000, "service 500 + provider on-chain 300 + claim 150")
    }

    func testACompletedPaymentToAContactSendsTheAmountAway() throws {
        let entry = try SwapAccountingEntry.client(clientRecord("c2", purpose: .payContact, at: day1),
                                                   events: clientEvents(claimed: 99_800, end: .completed, at: day1))
        XCTAssertEqual(entry.purpose, "pay_contact")
        XCTAssertEqual(entry.onchainSat, 0, "the claim pays the contact, not this node")
        XCTAssertEqual(entry.netMsat, -100_800_000)
    }

    func testARecordedRoutingFeeIsPartOfTheNet() throws {
        let entry = try SwapAccountingEntry.client(clientRecord("c3", purpose: .swapOut, at: day1),
                                                   events: clientEvents(claimed: 99_800, end: .completed, at: day1),
                                                   routingFeeMsat: 1_234)
        XCTAssertEqual(entry.routingFeeMsat, 1_234)
        XCTAssertEqual(entry.netMsat, -1_001_234)
    }

    func testAFailedClientSwapWhosePaymentReturnedCountsZero() throws {
        let events = [
            event(1, "quoted", .object([:]), at: day1),
            event(2, "pay_started", ClientSwapState(phase: .payStarted, paidAtUnix: UInt64(day1)).json, at: day1),
            event(3, "failed", ClientSwapState(phase: .failed, outcome: ClientSwapOutcome(reason: "no route", funds: .returned)).json,
                  final: true, at: day1 + 5),
        ]
        let entry = try SwapAccountingEntry.client(clientRecord("c4", purpose: .swapOut, at: day1), events: events)
        XCTAssertEqual(entry.outcome, .failed)
        XCTAssertEqual(entry.netMsat, 0)
        XCTAssertEqual(entry.onchainFeesSat, 0)
        XCTAssertEqual(entry.serviceFeeSat, 0)
    }

    func testAnInFlightSwapIsListedApartAndNeverCounted() throws {
        let inFlight = try SwapAccountingEntry.client(clientRecord("c5", purpose: .swapOut, at: day1),
                                                      events: clientEvents(claimed: 99_800, end: nil, at: day1))
        XCTAssertEqual(inFlight.outcome, .inFlight)
        XCTAssertNil(inFlight.endedAt)
        let done = try SwapAccountingEntry.client(clientRecord("c1", purpose: .swapOut, at: day1),
                                                  events: clientEvents(claimed: 99_800, end: .completed, at: day1))
        let books = SwapAccounting(entries: [inFlight, done])
        XCTAssertEqual(books.entries.map(\.id), ["c1"])
        XCTAssertEqual(books.inFlight.map(\.id), ["c5"])
        XCTAssertEqual(books.overall[.client]?.swaps, 1)
        XCTAssertEqual(books.netMsat, -1_000_000)
    }

    func testAClientSwapWithoutAQuoteIsATypedError() {
        let record = SwapRecord(id: "bad", role: .client, swapIndex: 1, keyScheme: .current, peer: "p", createdAt: day1,
                                contract: .object(["purpose": .string("swapOut")]))
        XCTAssertThrowsError(try SwapAccountingEntry.client(record, events: [])) { error in
            guard case .unreadableSwap(let id, _)? = error as? AccountingError else { return XCTFail("\(error)") }
            XCTAssertEqual(id, "bad")
        }
    }

    // MARK: provider

    private let lock = ProviderLock(transaction: transaction(1, value: 100_000), outputIndex: 0, fee: 154, height: 160)

    private func providerRecord(_ id: String, at: Int64) -> SwapRecord {
        SwapRecord(id: id, role: .provider, swapIndex: 2, keyScheme: .current, peer: "client", createdAt: at,
                   contract: .object(["quote": quote.json]))
    }

    private func providerEvents(_ states: [ProviderSwapState], at: Int64) -> [SwapEvent] {
        states.enumerated().map { index, state in
            event(Int64(index + 1), state.kind.rawValue, state.eventData, final: state.isFinal, at: at + Int64(index) * 60)
        }
    }

    private func refund(_ tag: UInt8, fee: Int64) -> ProviderRefund {
        ProviderRefund(transaction: Self.transaction(tag, value: 100_000 - fee), feeRate: try! FeeRate(satPerKvB: fee * 10),
                       fee: fee, destination: Script(bytes: [0x51]))
    }

    func testASettledSwapEarnsTheInvoiceLessTheLockAndItsFee() throws {
        let entry = try SwapAccountingEntry.provider(providerRecord("p1", at: day1), events: providerEvents(
            [.invoiceCreated, .invoiceAccepted(htlcExpiry: 300), .fundingIntent(lock), .lockBroadcast(lock), .lockConfirmed(lock),
             .claimObserved(lock, preimage: [UInt8](repeating: 1, count: 32)), .settled], at: day1))
        XCTAssertEqual(entry.outcome, .completed)
        XCTAssertEqual(entry.serviceFeeSat, 500)
        XCTAssertEqual(entry.lockFeeSat, 154)
        XCTAssertEqual(entry.routingFeeMsat, 0)
        XCTAssertEqual(entry.lightningMsat, 100_800_000)
        XCTAssertEqual(entry.onchainSat, -100_154)
        XCTAssertEqual(entry.netMsat, 646_000, "service 500 + quoted on-chain 300 - lock fee 154")
        XCTAssertEqual(entry.endedAt, day1 + 6 * 60)
    }

    func testARefundedSwapCostsTheLockFeeAndTheLastRefundSigned() throws {
        let entry = try SwapAccountingEntry.provider(providerRecord("p2", at: day1), events: providerEvents(
            [.invoiceCreated, .invoiceAccepted(htlcExpiry: 300), .fundingIntent(lock), .lockBroadcast(lock),
             .refundIntent(lock, refund(2, fee: 150)), .refundBroadcast(lock, refund(2, fee: 150)),
             .refundBroadcast(lock, refund(3, fee: 220)), .refunded], at: day1))
        XCTAssertEqual(entry.outcome, .refunded)
        XCTAssertEqual(entry.refundFeeSat, 220, "the bump replaced the first refund")
        XCTAssertEqual(entry.serviceFeeSat, 0)
        XCTAssertEqual(entry.lightningMsat, 0)
        XCTAssertEqual(entry.netMsat, -374_000)
    }

    func testARefundAfterTheHTLCWasCancelledCostsTheSame() throws {
        let cancelled = lock.withHTLCCancelled(at: 170)
        let entry = try SwapAccountingEntry.provider(providerRecord("p3", at: day1), events: providerEvents(
            [.invoiceCreated, .invoiceAccepted(htlcExpiry: 300), .fundingIntent(lock), .lockBroadcast(cancelled),
             .refundIntent(cancelled, refund(2, fee: 180)), .refundedAfterHTLCCancel(cancelled)], at: day1))
        XCTAssertEqual(entry.outcome, .refunded)
        XCTAssertEqual(entry.netMsat, -334_000)
    }

    func testACancelledInvoiceCostsNothingAndALostLockCostsTheLock() throws {
        let cancelled = try SwapAccountingEntry.provider(providerRecord("p4", at: day1),
                                                         events: providerEvents([.invoiceCreated, .cancelled], at: day1))
        XCTAssertEqual(cancelled.outcome, .failed)
        XCTAssertEqual(cancelled.netMsat, 0)
        let lost = try SwapAccountingEntry.provider(providerRecord("p5", at: day1), events: providerEvents(
            [.invoiceCreated, .fundingIntent(lock), .lockLost(lock, spendingTxid: Self.transaction(4, value: 1).txid)], at: day1))
        XCTAssertEqual(lost.outcome, .lost)
        XCTAssertEqual(lost.netMsat, -100_154_000)
    }

    // MARK: books

    func testTotalsPerDayAndRoleAndSince() throws {
        let settled = try SwapAccountingEntry.provider(providerRecord("p1", at: day1), events: providerEvents(
            [.invoiceCreated, .fundingIntent(lock), .lockBroadcast(lock), .settled], at: day1))
        let refunded = try SwapAccountingEntry.provider(providerRecord("p2", at: day2), events: providerEvents(
            [.invoiceCreated, .fundingIntent(lock), .refundBroadcast(lock, refund(2, fee: 150)), .refunded], at: day2))
        let swapOut = try SwapAccountingEntry.client(clientRecord("c1", purpose: .swapOut, at: day2),
                                                     events: clientEvents(claimed: 99_800, end: .completed, at: day2))
        let books = SwapAccounting(entries: [swapOut, refunded, settled])
        XCTAssertEqual(books.entries.map(\.id), ["p1", "p2", "c1"], "oldest end first (p2 ended 3 min into day 2, c1 at 10)")
        XCTAssertEqual(books.days.map(\.day.description), ["2026-11-30", "2026-12-01"])
        XCTAssertEqual(books.days[0].totals[.provider]?.netMsat, 646_000)
        XCTAssertNil(books.days[0].totals[.client])
        XCTAssertEqual(books.days[1].totals[.provider]?.netMsat, -304_000)
        XCTAssertEqual(books.days[1].totals[.client]?.netMsat, -1_000_000)
        XCTAssertEqual(books.days[1].totals[.client]?.routingFeeUnrecorded, 1)
        let provider = try XCTUnwrap(books.overall[.provider])
        XCTAssertEqual(provider.swaps, 2)
        XCTAssertEqual(provider.completed, 1)
        XCTAssertEqual(provider.refunded, 1)
        XCTAssertEqual(provider.serviceFeeSat, 500)
        XCTAssertEqual(provider.onchainFeesSat, 154 + 154 + 150)
        XCTAssertEqual(provider.netMsat, 342_000)
        XCTAssertEqual(books.netMsat, 342_000 - 1_000_000)

        let recent = SwapAccounting(entries: [swapOut, refunded, settled], since: try AccountingDay(parsing: "2026-12-01"))
        XCTAssertEqual(recent.entries.map(\.id), ["p2", "c1"])
        XCTAssertEqual(recent.json["since"]?.stringValue, "2026-12-01")
        XCTAssertEqual(recent.json["net_msat"]?.int64Value, -1_304_000)
    }
}
