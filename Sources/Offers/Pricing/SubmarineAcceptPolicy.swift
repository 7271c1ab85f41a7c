import Bitcoin
import HTLC
import Transport

/// What a client requires of an `onchain_to_ln` accept before it locks anything: signed by
/// the provider it asked, answering its request and quote, the invoice's payment hash, its
/// own refund key echoed, the quote's amounts (`total_sat` is what it will lock, exactly),
/// a timeout inside the accept window (DESIGN 6, as for reverse swaps), and an address and
/// scripts equal to the submarine contract it rebuilds itself from its refund key, the
/// provider's claim key, the invoice's hash and the timeout.
public struct SubmarineAcceptPolicy: Sendable, Hashable {
    public init() {}

    /// Returns the verified contract (roles `submarine`), ready to lock into. `tipHeight`
    /// nil skips only the accept window: recovery (docs/RECOVERY.md) checks an accept long
    /// after it was received, when the tip has moved past that window.
    public func check(_ signed: Signed<SubmarineSwapAccept>, quote: Quote, request: SubmarineSwapRequest,
                      invoicePaymentHash: [UInt8], provider: Pubky, network: Network,
                      tipHeight: UInt32?) throws(OffersError) -> SwapContract {
        try signed.verify(by: provider)
        let accept = signed.body
        guard quote.swapDirection == .onchainToLightning else { throw .acceptMismatch("the quote is not for onchain_to_ln") }
        guard accept.requestID == request.requestID else { throw .acceptMismatch("request_id is not the request's") }
        guard accept.quoteID == request.quoteID, quote.quoteID == request.quoteID else {
            throw .acceptMismatch("quote_id is not the quote's")
        }
        guard accept.paymentHash == invoicePaymentHash, quote.paymentHash.map({ $0 == invoicePaymentHash }) ?? true else {
            throw .acceptMismatch("payment_hash is not the invoice's")
        }
        guard accept.refundPublicKey == request.refundPublicKey else { throw .acceptMismatch("refund_pubkey is not ours") }
        guard accept.claimPublicKey != request.refundPublicKey else {
            throw .acceptMismatch("claim_pubkey is our own refund key")
        }
        guard accept.scriptType == request.scriptType else { throw .acceptMismatch("script_type is not the one asked for") }
        guard accept.amountSat == quote.amountSat else { throw .acceptMismatch("amount_sat is not the quote's") }
        guard accept.totalSat == quote.totalSat else { throw .acceptMismatch("total_sat is not the quote's") }
        do {
            // A retired layout (the unsized P2WSH, whose claim takes any preimage size) is
            // never locked into, even if this node's own request named it.
            try request.scriptType.checkOfferable()
            let timelocks = try TimelockPolicy(requiredConfirmations: quote.requiredConfirmations,
                                               htlcTimeoutBlocks: quote.htlcTimeoutBlocks)
            if let tipHeight { try timelocks.checkAccept(timeoutHeight: accept.timeoutHeight, tipHeight: tipHeight) }
            let terms = try SwapTerms(network: network, paymentHash: invoicePaymentHash,
                                      claimPublicKey: accept.claimPublicKey, refundPublicKey: request.refundPublicKey,
                                      timeoutHeight: accept.timeoutHeight, roles: .submarine)
            let contract = try SwapContract(type: request.scriptType, terms: terms)
            try AcceptPolicy.check(contract, advertisedAddress: accept.htlcAddress, scripts: accept.scripts)
            return contract
        } catch let error as HTLCError {
            throw .htlc(error)
        } catch {
            throw .acceptMismatch("contract: \(error)")
        }
    }
}
