import Bitcoin
import HTLC
@testable import Offers
import XCTest

/// The provider's checks of an `onchain_to_ln` invoice, on numbers: tip 1,000, timeout
/// 1,288 (the default 288 blocks), one confirmation, so the earliest payment is at 1,001,
/// the latest planned one at 1,013 (12 blocks of confirmation wait), and the CLTV limit
/// there is 1,288 − 1,013 − 12 = 263 blocks: with the default route allowance of 160 and
/// LND's padding of 3, a final delta up to 100 is admitted.
final class SubmarineRulesTests: XCTestCase {
    private let providerNode = Fixtures.key(0x88).publicKey
    private let payeeNode = Fixtures.key(0x99).publicKey
    private let now = Fixtures.now
    private var rules: SubmarineRules { SubmarineRules(network: .regtest, providerNodeID: providerNode) }

    private func invoice(network: Network = .regtest, hash: [UInt8] = Fixtures.paymentHash, msat: UInt64? = 100_000_000,
                         payee: PublicKey? = nil, expiresIn: UInt64 = 3_600, minFinal: Int = 18) -> SubmarineInvoice {
        SubmarineInvoice(network: network, paymentHash: hash, amountMsat: msat, payeeNodeID: payee ?? payeeNode,
                         expiresAtUnix: now + expiresIn, minFinalCLTVExpiry: minFinal)
    }

    private func check(_ invoice: SubmarineInvoice, quote: Quote = Fixtures.submarineQuote(), timeout: UInt32 = 1_288,
                       tip: UInt32 = 1_000, route: Int = SubmarineRules.defaultRouteCLTVBlocks) throws(SubmarineRefusal) -> Int {
        try SubmarineRules(network: .regtest, providerNodeID: providerNode, routeCLTVBlocks: route)
            .check(invoice, quote: quote, timeoutHeight: timeout, tipHeight: tip, nowUnix: now)
    }

    private func refusal(_ body: () throws -> Int) -> SubmarineRefusal? {
        do { _ = try body(); return nil } catch { return error as? SubmarineRefusal }
    }

    func testTheMarginAndItsParts() {
        XCTAssertEqual(SubmarineRules.claimWindowBlocks, 6)
        XCTAssertEqual(SubmarineRules.onchainResolutionBlocks, 3)
        XCTAssertEqual(SubmarineRules.tipSkewBlocks, 3)
        XCTAssertEqual(SubmarineRules.cltvMarginBlocks, 12)
        XCTAssertEqual(SubmarineRules.cltvLimit(timeoutHeight: 1_144, tipHeight: 1_001), 131)
        XCTAssertEqual(SubmarineRules.cltvLimit(timeoutHeight: 1_144, tipHeight: 1_140), -8)
        // The allowances of the admission rule.
        XCTAssertEqual(SubmarineRules.confirmationWaitBlocks, 12)
        XCTAssertEqual(SubmarineRules.defaultRouteCLTVBlocks, 160)
        XCTAssertEqual(rules.routeCLTVBlocks, 160)
        XCTAssertEqual(SubmarineRules.latestPlannedPayment(tipHeight: 1_000, confirmations: 1), 1_013)
        XCTAssertEqual(SubmarineRules.latestPlannedPayment(tipHeight: 1_000, confirmations: 2), 1_014)
        XCTAssertEqual(SubmarineRules.latestPlannedPayment(tipHeight: 1_000, confirmations: 0), 1_013, "never fewer than 1")
        XCTAssertEqual(SubmarineTerms.defaultTimeoutBlocks, 288)
        XCTAssertEqual(SubmarineTerms.shortestTimeoutBlocks(requiredConfirmations: 1), 206, "1 + 12 + 12 + 3 + 160 + 18")
        XCTAssertEqual(SubmarineTerms.shortestTimeoutBlocks(requiredConfirmations: 2, routeCLTVBlocks: 40), 87)
    }

    func testAGoodInvoicePassesWithTheLimitAtTheLatestPlannedPayment() throws {
        XCTAssertEqual(try check(invoice()), 263)
        var twoConfirmations = Fixtures.submarineQuote()
        twoConfirmations.requiredConfirmations = 2
        XCTAssertEqual(try check(invoice(), quote: twoConfirmations), 262)
        // A quote without a hash binds only the amount.
        XCTAssertEqual(try check(invoice(hash: [UInt8](repeating: 3, count: 32)), quote: Fixtures.submarineQuote(paymentHash: nil)), 263)
    }

    func testAmountHashNetworkAndPayeeMustBeTheQuotes() {
        XCTAssertEqual(refusal { try check(invoice(msat: 100_000_001)) },
                       .amountMismatch(invoiceMsat: 100_000_001, quotedSat: 100_000))
        XCTAssertEqual(refusal { try check(invoice(msat: 99_999_000)) }, .amountMismatch(invoiceMsat: 99_999_000, quotedSat: 100_000))
        XCTAssertEqual(refusal { try check(invoice(msat: nil)) }, .noAmount)
        XCTAssertEqual(refusal { try check(invoice(hash: [UInt8](repeating: 3, count: 32))) }, .hashMismatch)
        XCTAssertEqual(refusal { try check(invoice(network: .testnet)) }, .wrongNetwork(invoice: "testnet", provider: "regtest"))
        XCTAssertEqual(refusal { try check(invoice(payee: providerNode)) }, .paysProvider)
    }

    /// Valid until now + confirmations × 600 s + 1,800 s: 2,400 s for one confirmation.
    func testTheInvoiceMustOutliveTheLocksConfirmations() {
        XCTAssertNoThrow(try check(invoice(expiresIn: 2_400)))
        XCTAssertEqual(refusal { try check(invoice(expiresIn: 2_399)) },
                       .expiresTooSoon(expiresAtUnix: now + 2_399, neededUntilUnix: now + 2_400))
        var threeConfirmations = Fixtures.submarineQuote()
        threeConfirmations.requiredConfirmations = 3
        XCTAssertNoThrow(try check(invoice(expiresIn: 3_600), quote: threeConfirmations), "the usual hour covers 3")
        var sixConfirmations = Fixtures.submarineQuote()
        sixConfirmations.requiredConfirmations = 6
        XCTAssertEqual(refusal { try check(invoice(expiresIn: 3_600), quote: sixConfirmations) },
                       .expiresTooSoon(expiresAtUnix: now + 3_600, neededUntilUnix: now + 5_400))
    }

    /// min_final_cltv_expiry + 3 + the route allowance must fit under the limit at the
    /// latest planned payment.
    /// SUB-CLTV-1: LND counts `cltv_limit` from its own height; a backend behind it takes
    /// the lag off the limit, and a limit the lag uses up is 1 (no route), never 0 (LND's
    /// maximum).
    func testTheLimitLNDIsGivenIsCountedFromItsHeight() {
        XCTAssertEqual(SubmarineRules.cltvLimit(80, countedFrom: 100, lightningHeight: 103), 77)
        XCTAssertEqual(SubmarineRules.cltvLimit(80, countedFrom: 100, lightningHeight: 100), 80)
        XCTAssertEqual(SubmarineRules.cltvLimit(80, countedFrom: 100, lightningHeight: 98), 80, "LND behind: the backend's count stands")
        XCTAssertEqual(SubmarineRules.cltvLimit(80, countedFrom: 100, lightningHeight: nil), 80, "no height from LND")
        XCTAssertEqual(SubmarineRules.cltvLimit(3, countedFrom: 100, lightningHeight: 103), 1)
        XCTAssertEqual(SubmarineRules.cltvLimit(3, countedFrom: 100, lightningHeight: 500), 1)
    }

    /// Both sides read the accept's tip from the signed accept (the timeout less the
    /// quote's blocks): the provider waits for a lock up to 24 blocks after it, and the
    /// client sends one it has not sent until 3 blocks before that.
    func testTheLockDeadlineAndTheClientsLastBroadcastCountFromTheAccept() {
        XCTAssertEqual(SubmarineRules.lockDeadlineHeight(timeoutHeight: 1_144, htlcTimeoutBlocks: 144), 1_024)
        XCTAssertEqual(SubmarineRules.lastLockBroadcastHeight(timeoutHeight: 1_144, htlcTimeoutBlocks: 144), 1_021)
        XCTAssertEqual(SubmarineRules.lockDeadlineHeight(timeoutHeight: 100, htlcTimeoutBlocks: 500), 24,
                       "a timeout below its own blocks counts from 0, never wraps")
        XCTAssertLessThan(SubmarineRules.lockWaitBlocks, 144, "the wait ends well before a timeout of a day")
    }

    /// The rule a provider gives a swap up by, and a client stops lifting its lock by: a
    /// lock confirming `blocksToGo` blocks on must still find the invoice unexpired (a block
    /// counted as 600 s) and its final delta + LND's 3 under the limit from that height.
    func testAProviderCanStillPayWhileTheInvoiceLivesAndARouteFits() {
        // Timeout 1,288, final delta 18: the limit from height h is 1,288 − h − 12, and 18 + 3
        // fit under it up to h = 1,255.
        let fresh = invoice(expiresIn: 3_600)
        XCTAssertTrue(SubmarineRules.canStillPay(fresh, timeoutHeight: 1_288, tipHeight: 1_254, nowUnix: now, blocksToGo: 1))
        XCTAssertFalse(SubmarineRules.canStillPay(fresh, timeoutHeight: 1_288, tipHeight: 1_255, nowUnix: now, blocksToGo: 1))
        XCTAssertFalse(SubmarineRules.canStillPay(fresh, timeoutHeight: 1_288, tipHeight: 1_254, nowUnix: now, blocksToGo: 2),
                       "two blocks to go from 1,254 reach past the last height a route fits")
        // The invoice must outlive the blocks to go, each counted as 600 s.
        XCTAssertTrue(SubmarineRules.canStillPay(invoice(expiresIn: 601), timeoutHeight: 1_288, tipHeight: 1_000,
                                                 nowUnix: now, blocksToGo: 1))
        XCTAssertFalse(SubmarineRules.canStillPay(invoice(expiresIn: 600), timeoutHeight: 1_288, tipHeight: 1_000,
                                                  nowUnix: now, blocksToGo: 1))
        XCTAssertFalse(SubmarineRules.canStillPay(invoice(expiresIn: 1_200), timeoutHeight: 1_288, tipHeight: 1_000,
                                                  nowUnix: now, blocksToGo: 2))
        XCTAssertFalse(SubmarineRules.canStillPay(fresh, timeoutHeight: 1_288, tipHeight: 1_000, nowUnix: now + 3_600,
                                                  blocksToGo: 0), "an expired invoice is never paid")
    }

    func testTheFinalCLTVMustLeaveARouteUnderTheLimit() {
        XCTAssertNoThrow(try check(invoice(minFinal: 100)))
        XCTAssertEqual(refusal { try check(invoice(minFinal: 101)) },
                       .finalCLTVTooLong(minFinalCLTVExpiry: 101, routeCLTVBlocks: 160, cltvLimit: 263))
        // A provider whose route is the hub's one hop of 40 admits up to 220; one whose
        // payees are its direct peers (0), up to 260.
        XCTAssertNoThrow(try check(invoice(minFinal: 220), route: 40))
        XCTAssertEqual(refusal { try check(invoice(minFinal: 221), route: 40) },
                       .finalCLTVTooLong(minFinalCLTVExpiry: 221, routeCLTVBlocks: 40, cltvLimit: 263))
        XCTAssertNoThrow(try check(invoice(minFinal: 260), route: 0))
        // The old default timeout (144 blocks): limit 119 at the latest planned payment, so
        // LND's default 80 fits only a route of at most 36.
        XCTAssertEqual(refusal { try check(invoice(minFinal: 80), timeout: 1_144, route: 40) },
                       .finalCLTVTooLong(minFinalCLTVExpiry: 80, routeCLTVBlocks: 40, cltvLimit: 119))
        XCTAssertEqual(try? check(invoice(minFinal: 80), timeout: 1_144, route: 36), 119)
        // A timeout so close that not even a 1-block final delta leaves the route its 160.
        XCTAssertEqual(refusal { try check(invoice(minFinal: 1), timeout: 1_188) }, .timeoutTooClose(blocksLeft: 175, needed: 176))
        XCTAssertNoThrow(try check(invoice(minFinal: 1), timeout: 1_189))
    }

    /// Whatever the rule admits can still be paid, through a route within the allowance,
    /// until the end of the confirmation wait: for every allowance, final delta and timeout,
    /// an admitted invoice fits at each payment height up to the latest planned one.
    func testWhatIsAdmittedFitsThroughTheWholeWaitAndRoute() {
        var admitted = 0
        for route in [0, 40, 160] {
            for timeout in stride(from: UInt32(1_040), through: 1_400, by: 9) {
                for minFinal in stride(from: 1, through: 300, by: 7) {
                    guard (try? check(invoice(minFinal: minFinal), timeout: timeout, route: route)) != nil else { continue }
                    admitted += 1
                    for wait: UInt32 in 0...UInt32(SubmarineRules.confirmationWaitBlocks) {
                        let limit = SubmarineRules.cltvLimit(timeoutHeight: timeout, tipHeight: 1_001 + wait)
                        XCTAssertTrue(SubmarineRules.fitsUnder(cltvLimit: limit, minFinalCLTVExpiry: minFinal + route),
                                      "route \(route), timeout \(timeout), final \(minFinal), paid \(wait) block(s) late")
                    }
                }
            }
        }
        XCTAssertGreaterThan(admitted, 100, "the table admits something")
    }

    /// What an admitted invoice must still have when it is paid: a route. At the provider's
    /// default terms, an invoice with LND's final delta of 80, paid through one hop of 40
    /// (the hub's routing node; LND's own default is 80) after the lock waited up to 12
    /// blocks beyond its first possible confirmation (50 swaps at once, or a slow block at
    /// mainnet pace), fits under the CLTV limit of that moment. Admitting it as if the payee
    /// were a direct channel left 8 blocks for that wait (`submarine-concurrent-50`: 15 of 50
    /// payments failed `NO_ROUTE`).
    func testAnAdmittedInvoiceKeepsARouteThroughAHopAfterTheConfirmationWait() throws {
        let terms = try SubmarineTerms()
        var quote = Fixtures.submarineQuote()
        quote.htlcTimeoutBlocks = terms.htlcTimeoutBlocks
        let timeout = 1_000 + UInt32(terms.htlcTimeoutBlocks)
        XCTAssertNoThrow(try check(invoice(minFinal: 80), quote: quote, timeout: timeout), "LND's default final delta is admitted")
        for wait: UInt32 in 0...12 {
            let paidAt = 1_000 + 1 + wait
            let limit = SubmarineRules.cltvLimit(timeoutHeight: timeout, tipHeight: paidAt)
            XCTAssertTrue(SubmarineRules.fitsUnder(cltvLimit: limit, minFinalCLTVExpiry: 80 + 40),
                          "paid \(wait) block(s) after the first confirmation: 80 + 40 + 3 over a limit of \(limit)")
        }
    }

    /// The refusals are typed, with a stable code, and answered as `invalid_request`.
    func testRefusalsMapToCodesAndRejects() {
        let refusal = SubmarineRefusal.finalCLTVTooLong(minFinalCLTVExpiry: 101, routeCLTVBlocks: 160, cltvLimit: 263)
        XCTAssertEqual(refusal.code, "invoice_final_cltv_too_long")
        XCTAssertEqual(refusal.description, "invoice_final_cltv_too_long: the invoice's min_final_cltv_expiry of 101 blocks is "
            + "over the 100 this provider can route: its CLTV limit at the latest payment it plans for is 263 blocks, of which "
            + "160 are kept for the route's hops and 3 for LND's padding; ask for a shorter one or a longer timeout")
        XCTAssertEqual(OffersError.submarine(refusal).rejectCode, .invalidRequest)
        let reject = Reject(requestID: "r", error: .submarine(.paysProvider))
        XCTAssertEqual(reject.code, .invalidRequest)
        XCTAssertEqual(reject.reason, "invoice_pays_provider: the invoice pays this provider's own node")
        let codes: [SubmarineRefusal] = [.wrongNetwork(invoice: "a", provider: "b"), .noAmount,
                                         .amountMismatch(invoiceMsat: 1, quotedSat: 1), .hashMismatch, .paysProvider,
                                         .expiresTooSoon(expiresAtUnix: 1, neededUntilUnix: 2), refusal,
                                         .timeoutTooClose(blocksLeft: 1, needed: 2)]
        XCTAssertEqual(Set(codes.map(\.code)).count, codes.count, "one code per refusal")
    }
}
