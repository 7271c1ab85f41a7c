import HTLC
import Offers
import Transport

extension SwapAccountingEntry {
    /// A client submarine swap's money (savings -> Lightning): the lock total and the
    /// lock's fee leave the wallet when the invoice is paid; a swap-in's invoice is this
    /// node's own, so its Lightning balance gains the amount. A refund brings the lock back
    /// less its fee: the two fees are what the swap cost. Nothing locked, nothing moved.
    static func submarineClient(_ record: SwapRecord, events: [SwapEvent]) throws(AccountingError) -> SwapAccountingEntry {
        let terms: SubmarineClientRecord
        do { terms = try SubmarineClientRecord(json: record.contract) } catch {
            throw .unreadableSwap(id: record.id, why: "its submarine contract does not decode (\(error))")
        }
        let quote = terms.quote.body
        let purpose = terms.ownInvoice ? "swap_in" : "pay_lightning"
        guard let last = events.last else { throw .unreadableSwap(id: record.id, why: "it has no event") }
        let state: SubmarineClientState
        do { state = try SubmarineClientState(kind: last.kind, data: last.data) } catch {
            throw .unreadableSwap(id: record.id, why: "event \(last.sequence) (\(last.kind)) does not decode")
        }
        let lockFee = events.last { $0.kind == SubmarineClientPhase.lockIntent.rawValue }?.data["lock_fee_sat"]?.int64Value ?? 0
        switch state.phase {
        case .completed:
            let lockTotal = state.lock?.value ?? quote.totalSat
            return SwapAccountingEntry(id: record.id, role: .client, purpose: purpose, peer: record.peer,
                                       createdAt: record.createdAt, endedAt: last.at, outcome: .completed,
                                       amountSat: quote.amountSat, deliveredSat: quote.amountSat,
                                       serviceFeeSat: quote.serviceFeeSat, quotedOnchainFeeSat: quote.onchainFeeSat,
                                       lockFeeSat: lockFee, routingFeeMsat: 0,
                                       lightningMsat: terms.ownInvoice ? quote.amountSat * 1_000 : 0,
                                       onchainSat: -(lockTotal + lockFee))
        case .refunded:
            let lockValue = state.lock?.value ?? quote.totalSat
            let refundFee = state.refund.map { lockValue - $0.outputs.reduce(Int64(0)) { $0 + $1.value } } ?? 0
            return SwapAccountingEntry(id: record.id, role: .client, purpose: purpose, peer: record.peer,
                                       createdAt: record.createdAt, endedAt: last.at, outcome: .refunded,
                                       amountSat: quote.amountSat, lockFeeSat: lockFee, refundFeeSat: refundFee,
                                       routingFeeMsat: 0, onchainSat: -(lockFee + refundFee))
        case .abandoned:
            return SwapAccountingEntry(id: record.id, role: .client, purpose: purpose, peer: record.peer,
                                       createdAt: record.createdAt, endedAt: last.at, outcome: .failed,
                                       amountSat: quote.amountSat, routingFeeMsat: 0)
        default:
            return SwapAccountingEntry(id: record.id, role: .client, purpose: purpose, peer: record.peer,
                                       createdAt: record.createdAt, endedAt: nil, outcome: .inFlight,
                                       amountSat: quote.amountSat, routingFeeMsat: 0)
        }
    }
}
