import Bitcoin
import Offers
import Transport

extension SwapAccountingEntry {
    /// One swap's entry from what the store holds of it, by role and direction.
    init(_ swap: SwapHistory) throws(AccountingError) {
        let record = swap.record
        switch record.role {
        case .client where Self.isSubmarine(record.contract):
            self = try .submarineClient(record, events: swap.events, fundingChildFeeSat: swap.lockChildFeeSat,
                                        fundingWithdrawalFeeSat: swap.lockWithdrawalFeeSat)
        case .client:
            self = try .client(record, events: swap.events, routingFeeMsat: swap.routingFeeMsat, paymentEnd: swap.paymentEnd)
        case .provider where Self.isSubmarine(record.contract):
            self = try .submarineProvider(record, events: swap.events, routingFeeMsat: swap.routingFeeMsat)
        case .provider:
            self = try .provider(record, events: swap.events, lockChildFeeSat: swap.lockChildFeeSat,
                                 lockWithdrawalFeeSat: swap.lockWithdrawalFeeSat)
        }
    }

    /// Whether a stored contract is an `onchain_to_ln` (submarine) swap's: both engines
    /// mark their records with the direction, under the same roles as the reverse swaps.
    static func isSubmarine(_ contract: JSONValue) -> Bool {
        contract["direction"]?.stringValue == SwapDirection.onchainToLightning.rawValue
    }

    /// A client's submarine swap: the lock (its value and the funding's fee, recorded with
    /// `lock_intent`) left the wallet. Completed: the invoice was paid, so on a swap-in the
    /// node's own Lightning balance gained X. Refunded: the lock came back less the
    /// refund's fee, so the cost is both fees: the fee of the version mined when the state
    /// names an earlier one (`mined_refund_txid`: it confirmed before its bump), else of the
    /// last version signed. Abandoned: nothing was locked; when the funding was taken back
    /// (the provider had stopped waiting for it), the withdrawal's fee, recorded beside the
    /// log (`fundingWithdrawalFeeSat`), is what the swap cost. A child that paid for a
    /// stuck funding (`fundingChildFeeSat`) confirmed with it: its fee counts as the lock's.
    static func submarineClient(_ record: SwapRecord, events: [SwapEvent], fundingChildFeeSat: Int64? = nil,
                                fundingWithdrawalFeeSat: Int64? = nil)
        throws(AccountingError) -> SwapAccountingEntry {
        let contract = record.contract
        guard let quoteJSON = contract["quote"] else { throw .unreadableSwap(id: record.id, why: "its contract lacks the quote") }
        let quote: Quote
        do { quote = try Signed<Quote>(json: quoteJSON).body } catch {
            throw .unreadableSwap(id: record.id, why: "its quote does not decode (\(error))")
        }
        var states: [SubmarineClientState] = []
        for event in events {
            do { states.append(try SubmarineClientState(kind: event.kind, data: event.data)) } catch {
                throw .unreadableSwap(id: record.id, why: "event \(event.sequence) (\(event.kind)) does not decode")
            }
        }
        guard let last = events.last, let state = states.last else { throw .unreadableSwap(id: record.id, why: "it has no event") }
        let swapIn = contract["own_invoice"]?.boolValue ?? false
        let purpose = swapIn ? "swap_in" : "pay_contact"
        func entry(_ outcome: AccountingOutcome, endedAt: Int64?, delivered: Int64 = 0, serviceFee: Int64 = 0,
                   quotedOnchainFee: Int64 = 0, lockFee: Int64 = 0, refundFee: Int64 = 0, lightning: Int64 = 0,
                   onchain: Int64 = 0) -> SwapAccountingEntry {
            SwapAccountingEntry(id: record.id, role: .client, purpose: purpose, peer: record.peer, createdAt: record.createdAt,
                                endedAt: endedAt, outcome: outcome, amountSat: quote.amountSat, deliveredSat: delivered,
                                serviceFeeSat: serviceFee, quotedOnchainFeeSat: quotedOnchainFee, lockFeeSat: lockFee,
                                refundFeeSat: refundFee, routingFeeMsat: 0, lightningMsat: lightning, onchainSat: onchain)
        }
        guard last.isFinal else { return entry(.inFlight, endedAt: nil) }
        guard let lock = states.compactMap(\.lock).last else { return entry(.failed, endedAt: last.at) }
        guard let fundingFee = events.compactMap({ $0.data["lock_fee_sat"]?.int64Value }).last else {
            throw .unreadableSwap(id: record.id, why: "its lock has no recorded fee")
        }
        let lockFee = fundingFee + (fundingChildFeeSat ?? 0)
        // The preimage is known once the invoice was paid, whatever happened to the lock
        // after: a swap-in's own balance gained X either way.
        let paid = states.contains { $0.preimage != nil }
        let lightning = paid && swapIn ? quote.amountSat * 1_000 : 0
        switch state.phase {
        case .completed:
            return entry(.completed, endedAt: last.at, delivered: quote.amountSat, serviceFee: quote.serviceFeeSat,
                         quotedOnchainFee: quote.onchainFeeSat, lockFee: lockFee, lightning: lightning,
                         onchain: -(lock.value + lockFee))
        case .refunded:
            let versions = states.compactMap(\.refund)
            let mined = state.minedRefundTxid.flatMap { txid in versions.last { $0.txid == txid } }
            guard let refund = mined ?? versions.last else {
                throw .unreadableSwap(id: record.id, why: "it was refunded without a recorded refund")
            }
            let refundFee = lock.value - refund.outputs.reduce(0) { $0 + $1.value }
            return entry(.refunded, endedAt: last.at, lockFee: lockFee, refundFee: refundFee, lightning: lightning,
                         onchain: -(lockFee + refundFee))
        default:
            // Abandoned with a funding recorded: its inputs went elsewhere, final, so no
            // lock exists; the wallet paid for it only when it took the inputs back itself.
            guard let withdrawalFee = fundingWithdrawalFeeSat else { return entry(.failed, endedAt: last.at) }
            return entry(.failed, endedAt: last.at, lockFee: withdrawalFee, onchain: -withdrawalFee)
        }
    }

    /// A provider's submarine swap: it paid the invoice (X, plus the routing fee recorded
    /// with the payment's success) and claimed the lock (its value less the claim's fee: of
    /// the version mined when `claimed` names an earlier one, `mined_claim_txid`, else of
    /// the last version signed). A claim that lost to the client's refund leaves the
    /// payment paid and nothing claimed. Every other ending paid nothing.
    static func submarineProvider(_ record: SwapRecord, events: [SwapEvent], routingFeeMsat: Int64?)
        throws(AccountingError) -> SwapAccountingEntry {
        guard let quoteJSON = record.contract["quote"] else {
            throw .unreadableSwap(id: record.id, why: "its contract lacks the quote")
        }
        let quote: Quote
        do { quote = try Quote(json: quoteJSON) } catch {
            throw .unreadableSwap(id: record.id, why: "its quote does not decode (\(error))")
        }
        var states: [SubmarineProviderState] = []
        for event in events {
            do { states.append(try SubmarineProviderState(kind: event.kind, data: event.data)) } catch {
                throw .unreadableSwap(id: record.id, why: "event \(event.sequence) (\(event.kind)) does not decode")
            }
        }
        guard let last = events.last, let state = states.last else { throw .unreadableSwap(id: record.id, why: "it has no event") }
        func entry(_ outcome: AccountingOutcome, endedAt: Int64?, serviceFee: Int64 = 0, quotedOnchainFee: Int64 = 0,
                   claimFee: Int64 = 0, lightning: Int64 = 0, onchain: Int64 = 0) -> SwapAccountingEntry {
            SwapAccountingEntry(id: record.id, role: .provider, purpose: "provide", peer: record.peer,
                                createdAt: record.createdAt, endedAt: endedAt, outcome: outcome, amountSat: quote.amountSat,
                                serviceFeeSat: serviceFee, quotedOnchainFeeSat: quotedOnchainFee, claimFeeSat: claimFee,
                                routingFeeMsat: routingFeeMsat ?? 0, lightningMsat: lightning, onchainSat: onchain)
        }
        guard last.isFinal else { return entry(.inFlight, endedAt: nil) }
        let paidOut = -(quote.amountSat * 1_000 + (routingFeeMsat ?? 0))
        switch state {
        case .claimed(let mined):
            let versions = states.compactMap(\.claim)
            guard let claim = mined.flatMap({ txid in versions.last { $0.txid == txid } }) ?? versions.last,
                  let lock = states.compactMap(\.lock).last else {
                throw .unreadableSwap(id: record.id, why: "it was claimed without a recorded claim")
            }
            return entry(.completed, endedAt: last.at, serviceFee: quote.serviceFeeSat, quotedOnchainFee: quote.onchainFeeSat,
                         claimFee: claim.fee, lightning: paidOut, onchain: lock.output.value - claim.fee)
        case .claimLost:
            return entry(.lost, endedAt: last.at, lightning: paidOut)
        default:
            return entry(.failed, endedAt: last.at)
        }
    }
}

extension SubmarineProviderState {
    /// The claim version, in the state that carries one.
    var claim: SubmarineClaim? {
        if case .claimBroadcast(_, _, let claim) = self { return claim }
        return nil
    }
}
