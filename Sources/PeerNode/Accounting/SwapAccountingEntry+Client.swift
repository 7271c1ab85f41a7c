import HTLC
import Offers
import Transport

extension SwapAccountingEntry {
    /// A client swap's money from its contract (the signed quote, X, the purpose), its
    /// event log (the verified lock, the last claim signed, the outcome) and the routing fee
    /// recorded when its payment succeeded (nil: none recorded).
    ///
    /// The client pays the invoice (the quote's total) and, on a swap-out, gets the claim's
    /// output back in its own wallet; on a payment to a contact the output is the contact's.
    /// A swap that ended any other way paid nothing, or its payment returns (a held
    /// payment comes back when the provider cancels), so it counts zero; unless the held
    /// payment's end, recorded after the swap's (`paymentEnd`), says the provider settled
    /// it: then the invoice is spent for nothing, and the swap counts `lost`.
    static func client(_ record: SwapRecord, events: [SwapEvent], routingFeeMsat routingFee: Int64? = nil,
                       paymentEnd: ClientPaymentEnd? = nil) throws(AccountingError) -> SwapAccountingEntry {
        let contract = record.contract
        guard let purposeName = contract["purpose"]?.stringValue, let purpose = ClaimPurpose(rawValue: purposeName),
              let quoteJSON = contract["quote"] else {
            throw .unreadableSwap(id: record.id, why: "its contract lacks the quote or the purpose")
        }
        let quote: Quote
        do { quote = try Signed<Quote>(json: quoteJSON).body } catch {
            throw .unreadableSwap(id: record.id, why: "its quote does not decode (\(error))")
        }
        var states: [ClientSwapState] = []
        for event in events {
            do { states.append(try ClientSwapState(kind: event.kind, data: event.data)) } catch {
                throw .unreadableSwap(id: record.id, why: "event \(event.sequence) (\(event.kind)) does not decode")
            }
        }
        let purposeText = purpose == .swapOut ? "swap_out" : "pay_contact"
        guard let last = events.last, let state = states.last else {
            throw .unreadableSwap(id: record.id, why: "it has no event")
        }
        guard last.isFinal else {
            return SwapAccountingEntry(id: record.id, role: .client, purpose: purposeText, peer: record.peer,
                                       createdAt: record.createdAt, endedAt: nil, outcome: .inFlight,
                                       amountSat: quote.amountSat, routingFeeMsat: routingFee)
        }
        let delivered = state.delivered
        if !delivered, state.outcome?.funds.after(paymentEnd) == .lost {
            return SwapAccountingEntry(id: record.id, role: .client, purpose: purposeText, peer: record.peer,
                                       createdAt: record.createdAt, endedAt: last.at, outcome: .lost,
                                       amountSat: quote.amountSat, routingFeeMsat: routingFee,
                                       lightningMsat: -quote.totalSat * 1_000 - (routingFee ?? 0))
        }
        guard delivered else {
            return SwapAccountingEntry(id: record.id, role: .client, purpose: purposeText, peer: record.peer,
                                       createdAt: record.createdAt, endedAt: last.at, outcome: .failed,
                                       amountSat: quote.amountSat, routingFeeMsat: 0)
        }
        // The claim that paid: the version found mined when the machine noted one (an
        // earlier version can confirm before its bump), else the last version signed.
        let lockValue = states.compactMap(\.verifiedLock).last?.value ?? quote.amountSat
        let versions = states.compactMap(\.claim)
        let paid = state.minedClaimTxid.flatMap { mined in versions.last { $0.txid == mined } } ?? versions.last
        let received: Int64
        if let claim = paid {
            received = claim.outputs.reduce(0) { $0 + $1.value }
        } else {
            received = lockValue - (contract["claim_fee_sat"]?.int64Value ?? 0)
        }
        let lightning = -quote.totalSat * 1_000 - (routingFee ?? 0)
        return SwapAccountingEntry(id: record.id, role: .client, purpose: purposeText, peer: record.peer,
                                   createdAt: record.createdAt, endedAt: last.at, outcome: .completed,
                                   amountSat: quote.amountSat, deliveredSat: received, serviceFeeSat: quote.serviceFeeSat,
                                   quotedOnchainFeeSat: quote.onchainFeeSat, claimFeeSat: lockValue - received,
                                   routingFeeMsat: routingFee, lightningMsat: lightning,
                                   onchainSat: purpose == .swapOut ? received : 0)
    }
}
