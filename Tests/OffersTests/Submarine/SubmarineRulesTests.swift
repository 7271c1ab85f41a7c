import Bitcoin
import HTLC
@testable import Offers
import XCTest

/// The provider's checks of an `onchain_to_ln` invoice, on numbers: tip 1,000, timeout
/// 1,144 (144 blocks), one confirmation, so the earliest payment is at 1,001 and the CLTV
/// limit there is 1,144 − 1,001 − 12 = 131 blocks.
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

    private func check(_ invoice: SubmarineInvoice, quote: Quote = Fixtures.submarineQuote(), timeout: UInt32 = 1_144,
                       tip: UInt32 = 1_000) throws(SubmarineRefusal) -> Int {
        try rules.check(invoice, quote: quote, timeoutHeight: timeout, tipHeight: tip, nowUnix: now)
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
    }

    func testAGoodInvoicePassesWithTheLimitAtTheEarliestPayment() throws {
        XCTAssertEqual(try check(invoice()), 131)
        var twoConfirmations = Fixtures.submarineQuote()
        twoConfirmations.requiredConfirmations = 2
        XCTAssertEqual(try check(invoice(), quote: twoConfirmations), 130)
        // A quote without a hash binds only the amount.
        XCTAssertEqual(try check(invoice(hash: [UInt8](repeating: 3, count: 32)), quote: Fixtures.submarineQuote(paymentHash: nil)), 131)
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

    /// min_final_cltv_expiry + 3 must fit under the limit at the earliest payment.
    func testTheFinalCLTVMustLeaveARouteUnderTheLimit() {
        XCTAssertNoThrow(try check(invoice(minFinal: 128)))
        XCTAssertEqual(refusal { try check(invoice(minFinal: 129)) }, .finalCLTVTooLong(minFinalCLTVExpiry: 129, cltvLimit: 131))
        // A shorter timeout (40 blocks): limit 27, so LND's default 80 does not fit, 18 does.
        XCTAssertEqual(refusal { try check(invoice(minFinal: 80), timeout: 1_040) },
                       .finalCLTVTooLong(minFinalCLTVExpiry: 80, cltvLimit: 27))
        XCTAssertEqual(try? check(invoice(minFinal: 18), timeout: 1_040), 27)
        // A timeout so close that not even a 1-block final delta fits.
        XCTAssertEqual(refusal { try check(invoice(minFinal: 1), timeout: 1_016) }, .timeoutTooClose(blocksLeft: 15, needed: 16))
        XCTAssertNoThrow(try check(invoice(minFinal: 1), timeout: 1_017))
    }

    /// The refusals are typed, with a stable code, and answered as `invalid_request`.
    func testRefusalsMapToCodesAndRejects() {
        let refusal = SubmarineRefusal.finalCLTVTooLong(minFinalCLTVExpiry: 129, cltvLimit: 131)
        XCTAssertEqual(refusal.code, "invoice_final_cltv_too_long")
        XCTAssertTrue(refusal.description.hasPrefix("invoice_final_cltv_too_long: "))
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
