import Bitcoin
import HTLC
import Transport

/// What a client requires of a SwapAccept before it pays the invoice: signed by the
/// provider, the quote and request it answers, an invoice for exactly the quoted total and
/// the client's payment hash with a sane CLTV, the timelock rules of DESIGN 6, and a
/// contract (address and scripts) equal to the one computed from the agreed terms.
public struct AcceptPolicy: Sendable, Hashable {
    public init() {}

    /// Returns the verified contract, ready to watch for the lock.
    public func check(_ signed: Signed<SwapAccept>, quote: Quote, request: SwapRequest, invoice: InvoiceFacts,
                      provider: Pubky, network: Network, tipHeight: UInt32) throws(OffersError) -> SwapContract {
        try signed.verify(by: provider)
        let accept = signed.body
        guard accept.requestID == request.requestID else { throw .acceptMismatch("request_id is not the request's") }
        guard accept.quoteID == request.quoteID, quote.quoteID == request.quoteID else {
            throw .acceptMismatch("quote_id is not the quote's")
        }
        guard accept.paymentHash == request.paymentHash else { throw .acceptMismatch("payment_hash is not ours") }
        guard accept.claimPublicKey == request.claimPublicKey else { throw .acceptMismatch("claim_pubkey is not ours") }
        guard accept.scriptType == request.scriptType else { throw .acceptMismatch("script_type is not the one asked for") }
        guard accept.amountSat == quote.amountSat else { throw .acceptMismatch("amount_sat is not the quote's") }
        guard accept.totalSat == quote.totalSat else { throw .acceptMismatch("total_sat is not the quote's") }
        try checkInvoice(invoice, paymentHash: request.paymentHash, totalSat: quote.totalSat,
                         htlcTimeoutBlocks: quote.htlcTimeoutBlocks)
        do {
            let timelocks = try TimelockPolicy(requiredConfirmations: quote.requiredConfirmations,
                                               htlcTimeoutBlocks: quote.htlcTimeoutBlocks)
            try timelocks.checkAccept(timeoutHeight: accept.timeoutHeight, tipHeight: tipHeight)
            let terms = try SwapTerms(network: network, paymentHash: request.paymentHash,
                                      claimPublicKey: request.claimPublicKey, refundPublicKey: accept.refundPublicKey,
                                      timeoutHeight: accept.timeoutHeight)
            let contract = try SwapContract(type: request.scriptType, terms: terms)
            try Self.check(contract, advertisedAddress: accept.htlcAddress, scripts: accept.scripts)
            return contract
        } catch let error as HTLCError {
            throw .htlc(error)
        } catch {
            throw .acceptMismatch("contract: \(error)")
        }
    }

    /// The address and the scripts a provider sent against the contract computed from the
    /// agreed terms (either direction): a client never funds or pays toward a tree it did
    /// not agree to.
    static func check(_ contract: SwapContract, advertisedAddress: String, scripts: SwapAccept.Scripts) throws {
        try contract.check(advertisedAddress: advertisedAddress)
        switch (contract, scripts) {
        case (.taprootBoltz(let taproot), .taproot(let claimLeaf, let refundLeaf)):
            try taproot.check(claimLeafScript: claimLeaf, refundLeafScript: refundLeaf)
        case (.p2wsh(let p2wsh), .witnessScript(let script)):
            guard script == p2wsh.witnessScript.bytes else { throw HTLCError.contractMismatch("witness script") }
        default:
            throw HTLCError.contractMismatch("script form")
        }
    }

    /// The hold invoice pays our payment hash, asks exactly the quoted total, and has a
    /// final CLTV delta that lets the provider lock (>= htlc_timeout_blocks + 42, DESIGN 6)
    /// without holding our payment much longer than agreed (<= htlc_timeout_blocks + 72,
    /// plus the 6-block tolerance for differing tips).
    public func checkInvoice(_ invoice: InvoiceFacts, paymentHash: [UInt8], totalSat: Int64,
                             htlcTimeoutBlocks: Int) throws(OffersError) {
        guard invoice.paymentHash == paymentHash else { throw .acceptMismatch("the invoice pays another payment hash") }
        guard let amountMsat = invoice.amountMsat else { throw .acceptMismatch("the invoice has no amount") }
        guard totalSat >= 0, amountMsat == UInt64(totalSat) * 1_000 else {
            throw .acceptMismatch("the invoice amount is not the quoted total")
        }
        let shortest = htlcTimeoutBlocks + TimelockPolicy.htlcExpiryMargin
        let longest = htlcTimeoutBlocks + TimelockPolicy.invoiceDeltaMargin + TimelockPolicy.timeoutTolerance
        guard (shortest...longest).contains(invoice.minFinalCLTVExpiry) else {
            throw .acceptMismatch("invoice CLTV delta \(invoice.minFinalCLTVExpiry) outside \(shortest)...\(longest)")
        }
    }
}
