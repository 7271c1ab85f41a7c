import Bitcoin
import HTLC
import Offers
import Transport

/// A provider's `onchain_to_ln` swap as stored (`SwapRecord.contract`): the signed accept
/// exactly as sent, the quote it redeemed and the request it answered (the invoice to pay
/// is the request's). Written once, before the accept leaves. `direction` marks it, so the
/// reverse engine, which reads the same provider records, leaves it to this engine.
struct SubmarineProviderRecord: Sendable {
    static let direction = SwapDirection.onchainToLightning.rawValue

    let record: SwapRecord
    let accept: Signed<SubmarineSwapAccept>
    let quote: Quote
    let request: SubmarineSwapRequest
    let contract: SwapContract
    let invoice: SubmarineInvoice
    let client: Pubky

    var swapID: String { record.id }
    var paymentHash: [UInt8] { contract.terms.paymentHash }
    var amountSat: Int64 { accept.body.amountSat }
    /// The tip when the swap was accepted: no lock can be older.
    var acceptedAtHeight: UInt32 {
        SubmarineRules.acceptHeight(timeoutHeight: accept.body.timeoutHeight, htlcTimeoutBlocks: quote.htlcTimeoutBlocks)
    }

    var context: SubmarineProviderContext { context(cooperates: false) }

    /// The machine's context; `cooperates`: this provider co-signs (its offers list
    /// `musig2`), which makes the swap cooperative when the client's request listed it too.
    func context(cooperates: Bool) -> SubmarineProviderContext {
        SubmarineProviderContext(contract: contract, lockTotalSat: accept.body.totalSat,
                                 requiredConfirmations: quote.requiredConfirmations, invoice: invoice,
                                 cooperative: cooperates && request.cooperates,
                                 lockDeadlineHeight: SubmarineRules.lockDeadlineHeight(
                                    timeoutHeight: accept.body.timeoutHeight, htlcTimeoutBlocks: quote.htlcTimeoutBlocks))
    }

    /// Whether a stored provider record is a submarine one.
    static func isSubmarine(_ record: SwapRecord) -> Bool {
        record.role == .provider && record.contract["direction"]?.stringValue == direction
    }

    static func contractJSON(accept: Signed<SubmarineSwapAccept>, quote: Quote, request: SubmarineSwapRequest) -> JSONValue {
        .object(["direction": .string(direction), "accept": accept.json, "quote": quote.json, "request": request.json])
    }

    init(record: SwapRecord, network: Network) throws(ProviderError) {
        self.record = record
        guard Self.isSubmarine(record), let acceptJSON = record.contract["accept"],
              let quoteJSON = record.contract["quote"], let requestJSON = record.contract["request"] else {
            throw .corruptRecord("submarine swap \(record.id) has no accept, quote or request")
        }
        do {
            accept = try Signed<SubmarineSwapAccept>(json: acceptJSON)
            quote = try Quote(json: quoteJSON)
            request = try SubmarineSwapRequest(json: requestJSON)
        } catch {
            throw .corruptRecord("submarine swap \(record.id): \(error)")
        }
        do {
            invoice = try SubmarineInvoice(bolt11: request.invoice)
        } catch {
            throw .corruptRecord("submarine swap \(record.id): its invoice does not decode: \(error)")
        }
        do {
            let body = accept.body
            let terms = try SwapTerms(network: network, paymentHash: body.paymentHash, claimPublicKey: body.claimPublicKey,
                                      refundPublicKey: body.refundPublicKey, timeoutHeight: body.timeoutHeight,
                                      roles: .submarine)
            contract = try SwapContract(type: body.scriptType, terms: terms)
        } catch {
            throw ProviderError.htlc(error)
        }
        do {
            client = try Pubky(parsing: record.peer)
        } catch {
            throw .corruptRecord("submarine swap \(record.id) has an unreadable peer")
        }
    }

    /// Whether `other` asks for exactly this swap again (the request id may differ).
    func isResend(of other: SubmarineSwapRequest, from peer: Pubky) -> Bool {
        peer == client && other.quoteID == request.quoteID && other.invoice == request.invoice
            && other.refundPublicKey == request.refundPublicKey && other.scriptType == request.scriptType
            && other.features == request.features
    }
}
