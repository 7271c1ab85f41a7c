import Bitcoin
import HTLC
@testable import Offers
import Transport
import XCTest

/// The client's checks of a SwapAccept before paying its invoice.
final class AcceptPolicyTests: XCTestCase {
    private let policy = AcceptPolicy()
    private let quote = Fixtures.quote()
    private let tip: UInt32 = 1_000
    private let invoice = InvoiceFacts(paymentHash: Fixtures.paymentHash, amountMsat: 101_443_000, minFinalCLTVExpiry: 216)

    private func check(_ accept: SwapAccept, request: SwapRequest = Fixtures.swapRequest(), invoice: InvoiceFacts? = nil,
                       signer: NodeIdentity = Fixtures.provider, tip: UInt32? = nil) throws -> SwapContract {
        try policy.check(Signed(signing: accept, with: signer), quote: quote, request: request,
                         invoice: invoice ?? self.invoice, provider: Fixtures.provider.pubky, network: .regtest,
                         tipHeight: tip ?? self.tip)
    }

    func testMatchingAcceptPassesForBothContractTypes() throws {
        XCTAssertEqual(try check(Fixtures.accept()), Fixtures.contract())
        XCTAssertEqual(try check(Fixtures.accept(.p2wsh), request: Fixtures.swapRequest(.p2wsh)), Fixtures.contract(.p2wsh))
    }

    func testSignatureAndQuoteMustMatch() {
        XCTAssertOffersError(.invalidSignature) { try check(Fixtures.accept(), signer: Fixtures.stranger) }
        var accept = Fixtures.accept()
        accept.quoteID = "other"
        XCTAssertOffersError(.acceptMismatch("quote_id is not the quote's")) { try check(accept) }
        accept = Fixtures.accept()
        accept.amountSat -= 1
        XCTAssertOffersError(.acceptMismatch("amount_sat is not the quote's")) { try check(accept) }
        accept = Fixtures.accept()
        accept.totalSat += 1
        XCTAssertOffersError(.acceptMismatch("total_sat is not the quote's")) { try check(accept) }
        accept = Fixtures.accept()
        accept.paymentHash = [UInt8](repeating: 9, count: 32)
        XCTAssertOffersError(.acceptMismatch("payment_hash is not ours")) { try check(accept) }
        accept = Fixtures.accept()
        accept.claimPublicKey = Fixtures.key(0x33).publicKey
        XCTAssertOffersError(.acceptMismatch("claim_pubkey is not ours")) { try check(accept) }
        XCTAssertOffersError(.acceptMismatch("script_type is not the one asked for")) {
            try check(Fixtures.accept(.p2wsh))
        }
    }

    func testInvoiceMustPayOurHashForTheQuotedTotalWithSaneCLTV() {
        let wrongHash = InvoiceFacts(paymentHash: [UInt8](repeating: 1, count: 32), amountMsat: 101_443_000, minFinalCLTVExpiry: 216)
        XCTAssertOffersError(.acceptMismatch("the invoice pays another payment hash")) { try check(Fixtures.accept(), invoice: wrongHash) }
        let wrongAmount = InvoiceFacts(paymentHash: Fixtures.paymentHash, amountMsat: 101_443_001, minFinalCLTVExpiry: 216)
        XCTAssertOffersError(.acceptMismatch("the invoice amount is not the quoted total")) {
            try check(Fixtures.accept(), invoice: wrongAmount)
        }
        let noAmount = InvoiceFacts(paymentHash: Fixtures.paymentHash, amountMsat: nil, minFinalCLTVExpiry: 216)
        XCTAssertOffersError(.acceptMismatch("the invoice has no amount")) { try check(Fixtures.accept(), invoice: noAmount) }
        // 144 + 42 = 186 is the least that lets the provider lock; 144 + 72 + 6 = 222 the most.
        for (cltv, passes) in [(185, false), (186, true), (222, true), (223, false)] {
            let facts = InvoiceFacts(paymentHash: Fixtures.paymentHash, amountMsat: 101_443_000, minFinalCLTVExpiry: cltv)
            if passes {
                XCTAssertNoThrow(try check(Fixtures.accept(), invoice: facts), "cltv \(cltv)")
            } else {
                XCTAssertOffersError(.acceptMismatch("invoice CLTV delta \(cltv) outside 186...222")) {
                    try check(Fixtures.accept(), invoice: facts)
                }
            }
        }
    }

    func testTimelockRulesOfDesignSection6() {
        // Timeout 1,144 from tip 1,000: 144 blocks, as agreed. Tips 6 apart still pass.
        XCTAssertNoThrow(try check(Fixtures.accept(), tip: 994))
        XCTAssertNoThrow(try check(Fixtures.accept(), tip: 1_006))
        XCTAssertOffersError(.htlc(.timeoutOutsideWindow(timeout: 1_144, expected: 1_151, tolerance: 6))) {
            try check(Fixtures.accept(), tip: 1_007)
        }
        // Too close: timeout − tip < confirmations + 24.
        let close = Fixtures.accept(timeout: 1_024)
        XCTAssertOffersError(.htlc(.timeoutTooClose(blocksLeft: 24, required: 25))) { try check(close) }
    }

    func testContractMustBeTheOneComputedFromTheTerms() {
        var accept = Fixtures.accept()
        accept.htlcAddress = Fixtures.contract(.p2wsh).encodedAddress
        XCTAssertOffersError(.htlc(.contractMismatch("HTLC address"))) { try check(accept) }
        accept = Fixtures.accept()
        guard case .taproot(let claimLeaf, _) = accept.scripts else { return XCTFail("taproot expected") }
        accept.scripts = .taproot(claimLeaf: claimLeaf, refundLeaf: [0x51])
        XCTAssertOffersError(.htlc(.contractMismatch("refund leaf"))) { try check(accept) }
        accept = Fixtures.accept(.p2wsh)
        accept.scripts = .witnessScript([0x51])
        XCTAssertOffersError(.htlc(.contractMismatch("witness script"))) {
            try check(accept, request: Fixtures.swapRequest(.p2wsh))
        }
        // Another refund key moves the address: refused.
        accept = Fixtures.accept()
        accept.refundPublicKey = Fixtures.key(0x44).publicKey
        XCTAssertOffersError(.htlc(.contractMismatch("HTLC address"))) { try check(accept) }
    }
}
