import Bitcoin
import HTLC
import Offers
import Synchronization
import Transport
import XCTest

/// A clock the test sets.
final class TestClock: UnixClock {
    private let now: Mutex<UInt64>

    init(_ start: UInt64 = 1_700_000_000) {
        now = Mutex(start)
    }

    var nowUnix: UInt64 { now.withLock { $0 } }

    func advance(by seconds: UInt64) {
        now.withLock { $0 += seconds }
    }
}

enum Fixtures {
    static func identity(_ byte: UInt8) -> NodeIdentity {
        NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: byte, count: NodeSeed.length)))
    }

    static let provider = identity(0x50)
    static let client = identity(0x51)
    static let stranger = identity(0x52)

    static func key(_ byte: UInt8) -> PrivateKey {
        try! PrivateKey([UInt8](repeating: byte, count: 32))
    }

    static let claimKey = key(0x11)
    static let refundKey = key(0x22)
    static let paymentHash = SHA256.hash([UInt8](repeating: 0x07, count: 32))
    static let now: UInt64 = 1_700_000_000

    static func rate(_ satPerVByte: Int64) -> FeeRate { try! FeeRate(satPerVByte: satPerVByte) }

    static func offer(requestID: String = "req-1", provider: NodeIdentity = provider, network: String = "regtest",
                      min: Int64 = 10_000, max: Int64 = 1_000_000, base: Int64 = 500, ppm: Int64 = 2_000,
                      onchain: Int64 = 743, confirmations: Int = 1, timeout: Int = 144,
                      validUntil: UInt64 = now + 600, version: Int64 = 1,
                      features: [String] = ["taproot_boltz", "p2wsh", "preimage_push"]) -> Offer {
        Offer(requestID: requestID, offerID: "offer-1", providerPubky: provider.pubky, network: network,
              directions: ["ln_to_onchain"], minAmountSat: min, maxAmountSat: max, baseFeeSat: base, feePPM: ppm,
              onchainFeeSat: onchain, feeRateSatPerVByte: 2, requiredConfirmations: confirmations,
              htlcTimeoutBlocks: timeout, validUntilUnix: validUntil, protocolVersion: version, features: features)
    }

    static func quote(requestID: String = "req-2", amount: Int64 = 100_000, service: Int64 = 700, onchain: Int64 = 743,
                      confirmations: Int = 1, timeout: Int = 144, validUntil: UInt64 = now + 300) -> Quote {
        Quote(requestID: requestID, quoteID: "quote-1", offerID: "offer-1", amountSat: amount, serviceFeeSat: service,
              onchainFeeSat: onchain, feeRateSatPerVByte: 2, htlcTimeoutBlocks: timeout,
              requiredConfirmations: confirmations, validUntilUnix: validUntil)
    }

    static func contract(_ type: ContractType = .taprootBoltz, timeout: UInt32 = 1_144) -> SwapContract {
        try! SwapContract(type: type, terms: try! SwapTerms(network: .regtest, paymentHash: paymentHash,
                                                             claimPublicKey: claimKey.publicKey,
                                                             refundPublicKey: refundKey.publicKey,
                                                             timeoutHeight: timeout))
    }

    static func accept(_ type: ContractType = .taprootBoltz, quote: Quote = quote(), timeout: UInt32 = 1_144) -> SwapAccept {
        SwapAccept(requestID: "req-3", swapID: "swap-1", quoteID: quote.quoteID, invoice: "lnbcrt1fake",
                   amountSat: quote.amountSat, totalSat: quote.totalSat, contract: contract(type, timeout: timeout))
    }

    static func swapRequest(_ type: ContractType = .taprootBoltz) -> SwapRequest {
        SwapRequest(requestID: "req-3", quoteID: "quote-1", paymentHash: paymentHash,
                    claimPublicKey: claimKey.publicKey, scriptType: type)
    }

    static let providerClaimKey = key(0x55)
    static let clientRefundKey = key(0x66)

    /// The `onchain_to_ln` terms an offer lists beside the reverse ones.
    static func submarineTerms(min: Int64 = 10_000, max: Int64 = 500_000, confirmations: Int = 1) -> DirectionTerms {
        DirectionTerms(direction: .onchainToLightning, minAmountSat: min, maxAmountSat: max, baseFeeSat: 400,
                       feePPM: 1_500, onchainFeeSat: 380, requiredConfirmations: confirmations, htlcTimeoutBlocks: 144)
    }

    /// An offer running both directions, with `direction_terms`.
    static func twoWayOffer(submarine: DirectionTerms = submarineTerms()) -> Offer {
        var twoWay = Fixtures.offer()
        twoWay.directions = ["ln_to_onchain", "onchain_to_ln"]
        twoWay.directionTerms = [twoWay.terms(for: .lightningToOnchain)!, submarine]
        return twoWay
    }

    static func submarineQuote(amount: Int64 = 100_000, paymentHash: [UInt8]? = paymentHash) -> Quote {
        Quote(requestID: "req-2", quoteID: "quote-2", offerID: "offer-1", direction: .onchainToLightning, amountSat: amount,
              serviceFeeSat: 550, onchainFeeSat: 380, feeRateSatPerVByte: 2, htlcTimeoutBlocks: 144,
              requiredConfirmations: 1, validUntilUnix: now + 300, paymentHash: paymentHash)
    }

    static func submarineContract(_ type: ContractType = .taprootBoltz, timeout: UInt32 = 1_144) -> SwapContract {
        try! SwapContract(type: type, terms: try! SwapTerms(network: .regtest, paymentHash: paymentHash,
                                                             claimPublicKey: providerClaimKey.publicKey,
                                                             refundPublicKey: clientRefundKey.publicKey,
                                                             timeoutHeight: timeout, roles: .submarine))
    }

    static func submarineAccept(_ type: ContractType = .taprootBoltz, quote: Quote = submarineQuote()) -> SubmarineSwapAccept {
        SubmarineSwapAccept(requestID: "req-7", swapID: "swap-2", quoteID: quote.quoteID, amountSat: quote.amountSat,
                            totalSat: quote.totalSat, contract: submarineContract(type))
    }

    static func submarineRequest(_ type: ContractType = .taprootBoltz) -> SubmarineSwapRequest {
        SubmarineSwapRequest(requestID: "req-7", quoteID: "quote-2", invoice: "lnbcrt1000u1fake",
                             refundPublicKey: clientRefundKey.publicKey, scriptType: type)
    }

    /// One of every message type.
    static var everyMessage: [SwapMessage] {
        [
            .offerRequest(OfferRequest(requestID: "r1", network: "regtest")),
            .offerRequest(OfferRequest(requestID: "r1b")),
            .offer(Signed(signing: offer(), with: provider)),
            .offer(Signed(signing: twoWayOffer(), with: provider)),
            .quoteRequest(QuoteRequest(requestID: "r2", offerID: "offer-1", amountSat: 100_000)),
            .quoteRequest(QuoteRequest(requestID: "r2b", offerID: "offer-1", direction: .onchainToLightning,
                                       amountSat: 100_000, paymentHash: paymentHash)),
            .quote(Signed(signing: quote(), with: provider)),
            .quote(Signed(signing: submarineQuote(), with: provider)),
            .submarineSwapRequest(submarineRequest()),
            .submarineSwapRequest(submarineRequest(.p2wsh)),
            .submarineSwapAccept(Signed(signing: submarineAccept(), with: provider)),
            .submarineSwapAccept(Signed(signing: submarineAccept(.p2wsh), with: provider)),
            .invoiceRequest(ContactInvoiceRequest(requestID: "r8", amountMsat: 20_000_000, description: "dinner")),
            .invoice(Signed(signing: ContactInvoice(requestID: "r8", invoice: "lnbcrt200u1fake"), with: provider)),
            .swapRequest(swapRequest()),
            .swapRequest(swapRequest(.p2wsh)),
            .swapAccept(Signed(signing: accept(), with: provider)),
            .swapAccept(Signed(signing: accept(.p2wsh), with: provider)),
            .swapStatusRequest(SwapStatusRequest(requestID: "r4", swapID: "swap-1")),
            .swapStatusSnapshot(SwapStatusSnapshot(requestID: "r4", swapID: "swap-1", status: .invoicePending,
                                                   timeoutHeight: 1_144)),
            .swapStatusSnapshot(SwapStatusSnapshot(requestID: "r4", swapID: "swap-1", status: .lockConfirmed,
                                                   lock: LockReference(txid: String(repeating: "ab", count: 32), vout: 1),
                                                   timeoutHeight: 1_144)),
            .swapStatusUpdate(SwapStatusUpdate(swapID: "swap-1", sequence: 3, status: .settled,
                                               lock: LockReference(txid: String(repeating: "cd", count: 32), vout: 0))),
            .reject(Reject(requestID: "r5", code: .quoteExpired, reason: "the quote has expired")),
            .preimagePush(PreimagePush(swapID: "swap-1", preimage: [UInt8](repeating: 0x07, count: 32))),
            .coopClaimRequest(coopClaimRequest()),
            .coopClaimSigned(coopClaimSigned()),
            .coopRefundRequest(coopRefundRequest()),
            .coopRefundOffer(CoopRefundOffer(swapID: "swap-2")),
            .submarineSwapRequest(SubmarineSwapRequest(requestID: "req-8", quoteID: "quote-2", invoice: "lnbcrt1000u1fake",
                                                       refundPublicKey: clientRefundKey.publicKey, features: ["musig2"])),
            .endpointsRequest(EndpointsRequest(requestID: "r6")),
            .endpoints(Endpoints(requestID: "r6", endpoints: [
                Endpoint(address: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", network: "regtest"),
                Endpoint.lightning(pubky: provider.pubky, network: "regtest"),
            ])),
            .swapListRequest(SwapListRequest(requestID: "r9")),
            .swapListRequest(SwapListRequest(requestID: "r9b", offset: 16)),
            .swapList(SwapList(requestID: "r9", offset: 0, total: 2, swaps: [swapListEntry(.provider),
                                                                             swapListEntry(.client, .p2wsh)])),
            .swapList(SwapList(requestID: "r9b", offset: 16, total: 2, swaps: [])),
        ]
    }

    /// One swap of a `SwapList`: the accept, the signed quote and the request of one swap.
    static func swapListEntry(_ role: SwapListEntry.Role, _ type: ContractType = .taprootBoltz) -> SwapListEntry {
        SwapListEntry(role: role, accept: Signed(signing: submarineAccept(type), with: provider),
                      quote: Signed(signing: submarineQuote(), with: provider), request: submarineRequest(type))
    }

    /// A public nonce from two fixed keys (any two points are a well-formed nonce).
    static let publicNonce = try! MuSig2PublicNonce(key(0x61).publicKey.compressed + key(0x62).publicKey.compressed)

    /// An unsigned one-input one-output claim of a fixed outpoint.
    static let claimTransaction = Transaction(
        inputs: [TransactionInput(previousOutput: OutPoint(txid: try! TransactionID(bytes: [UInt8](repeating: 0xab, count: 32)),
                                                            index: 1),
                                  sequence: TransactionInput.replaceableSequence)],
        outputs: [TransactionOutput(value: 99_889, scriptPubKey: Address.p2tr(outputKey: key(0x44).xOnlyPublicKey.bytes).script)])

    static func coopClaimRequest() -> CoopClaimRequest {
        CoopClaimRequest(requestID: "r9", swapID: "swap-1", preimage: [UInt8](repeating: 0x07, count: 32),
                         publicNonce: publicNonce, claimTransaction: claimTransaction)
    }

    static func coopRefundRequest() -> CoopRefundRequest {
        CoopRefundRequest(requestID: "r10", swapID: "swap-2", publicNonce: publicNonce, refundTransaction: claimTransaction)
    }

    static func coopClaimSigned() -> CoopClaimSigned {
        CoopClaimSigned(requestID: "r9", swapID: "swap-1", publicNonce: publicNonce,
                        partialSignature: try! MuSig2PartialSignature([UInt8](repeating: 0x05, count: 32)))
    }

    static func json(_ text: String) throws -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
    }

    /// `value` with `key` set (or removed, for nil), at the top level.
    static func setting(_ key: String, to member: JSONValue?, in value: JSONValue) -> JSONValue {
        guard case .object(var members) = value else { return value }
        members[key] = member
        return .object(members)
    }
}

/// Asserts `body` throws an OffersError equal to `expected`.
func XCTAssertOffersError<T>(_ expected: OffersError, file: StaticString = #filePath, line: UInt = #line,
                             _ body: () throws -> T) {
    do {
        _ = try body()
        XCTFail("expected \(expected), nothing thrown", file: file, line: line)
    } catch let error as OffersError {
        XCTAssertEqual(error, expected, file: file, line: line)
    } catch {
        XCTFail("expected \(expected), got \(error)", file: file, line: line)
    }
}

/// The Reject code `body`'s error maps to (nil if it does not throw).
func rejectCode<T>(_ body: () throws -> T) -> RejectCode? {
    do {
        _ = try body()
        return nil
    } catch let error as OffersError {
        return error.rejectCode
    } catch {
        return nil
    }
}
