import Bitcoin
import HTLC
@testable import Offers
import Transport
import XCTest

/// The client's check of an `onchain_to_ln` accept before it locks: every term it names is
/// the request's, the quote's or the invoice's, and the contract it rebuilds itself has the
/// advertised address and scripts.
final class SubmarineAcceptPolicyTests: XCTestCase {
    private let policy = SubmarineAcceptPolicy()
    private let tip: UInt32 = 1_000

    private func check(_ accept: SubmarineSwapAccept, signer: NodeIdentity = Fixtures.provider,
                       request: SubmarineSwapRequest = Fixtures.submarineRequest(),
                       quote: Quote = Fixtures.submarineQuote(), hash: [UInt8] = Fixtures.paymentHash,
                       tip: UInt32? = nil) throws -> SwapContract {
        try policy.check(Signed(signing: accept, with: signer), quote: quote, request: request, invoicePaymentHash: hash,
                         provider: Fixtures.provider.pubky, network: .regtest, tipHeight: tip ?? self.tip)
    }

    func testAnHonestAcceptGivesTheSubmarineContract() throws {
        for type in ContractType.allCases {
            let contract = try check(Fixtures.submarineAccept(type), request: Fixtures.submarineRequest(type))
            XCTAssertEqual(contract, Fixtures.submarineContract(type))
            XCTAssertEqual(contract.terms.roles, .submarine)
            XCTAssertEqual(contract.terms.refundPublicKey, Fixtures.clientRefundKey.publicKey)
        }
    }

    /// The retired unsized P2WSH layout lets a 33-byte "preimage" claim: never lock into it,
    /// even when the request named it and the accept matches.
    func testARetiredContractTypeIsRefusedEvenWhenEverythingMatches() {
        XCTAssertThrowsError(try check(Fixtures.submarineAccept(.p2wshUnsized), request: Fixtures.submarineRequest(.p2wshUnsized))) {
            XCTAssertEqual($0 as? OffersError, .htlc(.retiredContractType(ContractType.p2wshUnsized.rawValue)))
        }
    }

    func testEveryTermThatIsNotTheAgreedOneIsRefused() throws {
        let good = Fixtures.submarineAccept()
        var cases: [(String, SubmarineSwapAccept, OffersError)] = []
        var accept = good
        accept.requestID = "other"
        cases.append(("request id", accept, .acceptMismatch("request_id is not the request's")))
        accept = good
        accept.quoteID = "quote-9"
        cases.append(("quote id", accept, .acceptMismatch("quote_id is not the quote's")))
        accept = good
        accept.paymentHash = [UInt8](repeating: 9, count: 32)
        cases.append(("hash", accept, .acceptMismatch("payment_hash is not the invoice's")))
        accept = good
        accept.refundPublicKey = Fixtures.key(0x77).publicKey
        cases.append(("refund key", accept, .acceptMismatch("refund_pubkey is not ours")))
        accept = good
        accept.claimPublicKey = Fixtures.clientRefundKey.publicKey
        cases.append(("our key as the claim key", accept, .acceptMismatch("claim_pubkey is our own refund key")))
        accept = good
        accept.scriptType = .p2wsh
        cases.append(("script type", accept, .acceptMismatch("script_type is not the one asked for")))
        accept = good
        accept.amountSat += 1
        cases.append(("invoice amount", accept, .acceptMismatch("amount_sat is not the quote's")))
        accept = good
        accept.totalSat += 1
        cases.append(("a larger lock", accept, .acceptMismatch("total_sat is not the quote's")))
        accept = good
        accept.timeoutHeight = 1_151
        cases.append(("a far timeout", accept, .htlc(.timeoutOutsideWindow(timeout: 1_151, expected: 1_144, tolerance: 6))))
        // The provider's key in the refund path and the client's in the claim path: the
        // reverse contract of the same keys, whose address is not the submarine one.
        accept = good
        let reverse = try SwapContract(type: .taprootBoltz, terms: try SwapTerms(
            network: .regtest, paymentHash: Fixtures.paymentHash, claimPublicKey: Fixtures.clientRefundKey.publicKey,
            refundPublicKey: Fixtures.providerClaimKey.publicKey, timeoutHeight: 1_144))
        accept.htlcAddress = reverse.encodedAddress
        accept.scripts = SwapAccept.Scripts(contract: reverse)
        cases.append(("the roles swapped back", accept, .htlc(.contractMismatch("HTLC address"))))
        accept = good
        accept.scripts = SwapAccept.Scripts(contract: reverse)
        cases.append(("the reverse leaves at the submarine address", accept, .htlc(.contractMismatch("claim leaf"))))
        accept = good
        accept.scripts = SwapAccept.Scripts(contract: Fixtures.submarineContract(.p2wsh))
        cases.append(("a witness script for a Taproot contract", accept, .htlc(.contractMismatch("script form"))))
        for (what, accept, expected) in cases {
            XCTAssertOffersError(expected) { try check(accept) }
            _ = what
        }
    }

    /// The provider's default timeout (288 blocks, two days) is inside the accept window;
    /// an accept more than 6 blocks past tip + the quoted timeout is not, and a quote of
    /// more than a week is never locked into, whatever the accept says.
    func testTheDefaultTimeoutIsAcceptedAndAFarOneIsNot() throws {
        func accept(timeout: UInt32, quote: Quote) -> SubmarineSwapAccept {
            SubmarineSwapAccept(requestID: "req-7", swapID: "swap-2", quoteID: quote.quoteID, amountSat: quote.amountSat,
                                totalSat: quote.totalSat, contract: Fixtures.submarineContract(timeout: timeout))
        }
        var quote = Fixtures.submarineQuote()
        quote.htlcTimeoutBlocks = SubmarineTerms.defaultTimeoutBlocks
        XCTAssertEqual(quote.htlcTimeoutBlocks, 288)
        let contract = try check(accept(timeout: tip + 288, quote: quote), quote: quote)
        XCTAssertEqual(contract.terms.timeoutHeight, tip + 288)
        XCTAssertNoThrow(try check(accept(timeout: tip + 288 + 6, quote: quote), quote: quote), "tips may differ by 6")
        XCTAssertOffersError(.htlc(.timeoutOutsideWindow(timeout: tip + 288 + 7, expected: tip + 288, tolerance: 6))) {
            try check(accept(timeout: tip + 288 + 7, quote: quote), quote: quote)
        }
        var week = Fixtures.submarineQuote()
        week.htlcTimeoutBlocks = TimelockPolicy.maximumHTLCTimeoutBlocks
        XCTAssertNoThrow(try check(accept(timeout: tip + 1_008, quote: week), quote: week))
        var beyond = Fixtures.submarineQuote()
        beyond.htlcTimeoutBlocks = TimelockPolicy.maximumHTLCTimeoutBlocks + 1
        XCTAssertOffersError(.htlc(.htlcTimeoutBlocksOutOfRange(1_009, maximum: 1_008))) {
            try check(accept(timeout: tip + 1_009, quote: beyond), quote: beyond)
        }
    }

    func testTheSignatureAndTheQuoteDirectionAreChecked() {
        XCTAssertOffersError(.invalidSignature) { try check(Fixtures.submarineAccept(), signer: Fixtures.stranger) }
        XCTAssertOffersError(.acceptMismatch("the quote is not for onchain_to_ln")) {
            try check(Fixtures.submarineAccept(), quote: Fixtures.quote())
        }
        XCTAssertOffersError(.acceptMismatch("payment_hash is not the invoice's")) {
            try check(Fixtures.submarineAccept(), hash: [UInt8](repeating: 9, count: 32))
        }
        // The timeout must leave the lock its confirmations and the accept margin.
        XCTAssertOffersError(.htlc(.timeoutOutsideWindow(timeout: 1_144, expected: 1_164, tolerance: 6))) {
            try check(Fixtures.submarineAccept(), tip: 1_020)
        }
    }
}
