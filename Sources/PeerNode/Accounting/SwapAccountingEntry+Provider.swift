import Offers
import Transport

extension SwapAccountingEntry {
    /// A provider swap's money from its contract (the quote it honoured) and its event log
    /// (the lock and the last refund signed, each with the fee it pays).
    ///
    /// Settled: the invoice's total came in over Lightning, the lock (value and fee) left
    /// the wallet. Refunded: the lock came back less the refund's fee, so the cost is both
    /// fees. Lost: the lock is gone. Cancelled before any lock: nothing moved; cancelled
    /// after its lock was taken back (it never confirmed): the withdrawal's fee, recorded
    /// beside the log (`lockWithdrawalFeeSat`), is what the lock cost. A lock that confirmed
    /// with a child paying for it (CPFP, `lockChildFeeSat`) cost both fees.
    static func provider(_ record: SwapRecord, events: [SwapEvent], lockChildFeeSat: Int64? = nil,
                         lockWithdrawalFeeSat: Int64? = nil) throws(AccountingError) -> SwapAccountingEntry {
        guard let quoteJSON = record.contract["quote"] else {
            throw .unreadableSwap(id: record.id, why: "its contract lacks the quote")
        }
        let quote: Quote
        do { quote = try Quote(json: quoteJSON) } catch {
            throw .unreadableSwap(id: record.id, why: "its quote does not decode (\(error))")
        }
        var states: [ProviderSwapState] = []
        for event in events {
            do { states.append(try ProviderSwapState(event: event)) } catch {
                throw .unreadableSwap(id: record.id, why: "event \(event.sequence) (\(event.kind)) does not decode")
            }
        }
        guard let last = events.last, let state = states.last else {
            throw .unreadableSwap(id: record.id, why: "it has no event")
        }
        func entry(_ outcome: AccountingOutcome, endedAt: Int64?, serviceFee: Int64 = 0, quotedOnchainFee: Int64 = 0,
                   lockFee: Int64 = 0, refundFee: Int64 = 0, lightning: Int64 = 0, onchain: Int64 = 0) -> SwapAccountingEntry {
            SwapAccountingEntry(id: record.id, role: .provider, purpose: "provide", peer: record.peer,
                                createdAt: record.createdAt, endedAt: endedAt, outcome: outcome, amountSat: quote.amountSat,
                                serviceFeeSat: serviceFee, quotedOnchainFeeSat: quotedOnchainFee, lockFeeSat: lockFee,
                                refundFeeSat: refundFee, routingFeeMsat: 0, lightningMsat: lightning, onchainSat: onchain)
        }
        guard last.isFinal else { return entry(.inFlight, endedAt: nil) }
        let lock = states.compactMap(\.lock).last
        let refund = states.compactMap(\.refund).last
        // The lock confirmed in these outcomes, and its child with or after it.
        let child = lockChildFeeSat ?? 0
        switch state {
        case .settled:
            guard let lock else { throw .unreadableSwap(id: record.id, why: "it settled without a recorded lock") }
            return entry(.completed, endedAt: last.at, serviceFee: quote.serviceFeeSat, quotedOnchainFee: quote.onchainFeeSat,
                         lockFee: lock.fee + child, lightning: quote.totalSat * 1_000, onchain: -(lock.output.value + lock.fee + child))
        case .refunded, .refundedAfterHTLCCancel:
            guard let lock else { throw .unreadableSwap(id: record.id, why: "it was refunded without a recorded lock") }
            let refundFee = refund?.fee ?? 0
            return entry(.refunded, endedAt: last.at, lockFee: lock.fee + child, refundFee: refundFee,
                         onchain: -(lock.fee + child + refundFee))
        case .lockLost(let lost, _):
            return entry(.lost, endedAt: last.at, lockFee: lost.fee + child, onchain: -(lost.output.value + lost.fee + child))
        default:
            // Cancelled: before anything was locked, or with the lock taken back (its
            // inputs returned to the wallet less the withdrawal's fee).
            guard lock != nil, let withdrawalFee = lockWithdrawalFeeSat else { return entry(.failed, endedAt: last.at) }
            return entry(.failed, endedAt: last.at, lockFee: withdrawalFee, onchain: -withdrawalFee)
        }
    }
}

extension ProviderSwapState {
    /// The refund, in every state that carries one.
    var refund: ProviderRefund? {
        switch self {
        case .refundIntent(_, let refund), .refundBroadcast(_, let refund), .claimPending(_, let refund, _): return refund
        default: return nil
        }
    }
}
