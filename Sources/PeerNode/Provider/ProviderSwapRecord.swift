import Bitcoin
import HTLC
import Offers
import Transport

/// A provider swap's contract as stored (`SwapRecord.contract`): the signed accept exactly
/// as sent (it holds the invoice, the keys, the timeout and the amounts, and is what a
/// resent SwapRequest gets back), the quote it redeemed, and the request it answered.
/// Written once, before the accept is sent.
struct ProviderSwapRecord: Sendable {
    let record: SwapRecord
    let accept: Signed<SwapAccept>
    let quote: Quote
    /// The SwapRequest as received, to tell an identical resend from a conflicting one.
    let request: SwapRequest
    let policy: TimelockPolicy
    let contract: SwapContract
    let client: Pubky

    var swapID: String { record.id }
    var paymentHash: [UInt8] { accept.body.paymentHash }
    var context: ProviderSwapContext {
        ProviderSwapContext(paymentHash: paymentHash, timeoutHeight: accept.body.timeoutHeight, policy: policy)
    }

    static func contractJSON(accept: Signed<SwapAccept>, quote: Quote, request: SwapRequest) -> JSONValue {
        .object(["accept": accept.json, "quote": quote.json, "request": request.json])
    }

    init(record: SwapRecord, network: Network) throws(ProviderError) {
        self.record = record
        guard let acceptJSON = record.contract["accept"], let quoteJSON = record.contract["quote"],
              let requestJSON = record.contract["request"] else {
            throw .corruptRecord("swap \(record.id) has no accept, quote or request")
        }
        do {
            accept = try Signed<SwapAccept>(json: acceptJSON)
            quote = try Quote(json: quoteJSON)
            request = try SwapRequest(json: requestJSON)
        } catch {
            throw .corruptRecord("swap \(record.id): \(error)")
        }
        do {
            policy = try TimelockPolicy(requiredConfirmations: quote.requiredConfirmations,
                                        htlcTimeoutBlocks: quote.htlcTimeoutBlocks)
            let body = accept.body
            let terms = try SwapTerms(network: network, paymentHash: body.paymentHash, claimPublicKey: body.claimPublicKey,
                                      refundPublicKey: body.refundPublicKey, timeoutHeight: body.timeoutHeight)
            contract = try SwapContract(type: body.scriptType, terms: terms)
        } catch {
            throw ProviderError.htlc(error)
        }
        do {
            client = try Pubky(parsing: record.peer)
        } catch {
            throw .corruptRecord("swap \(record.id) has an unreadable peer")
        }
    }

    /// Whether `other` asks for exactly this swap again (the request id may differ: a
    /// client that lost its connection resends under a new one).
    func isResend(of other: SwapRequest, from peer: Pubky) -> Bool {
        peer == client && other.quoteID == request.quoteID && other.paymentHash == request.paymentHash
            && other.claimPublicKey == request.claimPublicKey && other.scriptType == request.scriptType
    }
}
