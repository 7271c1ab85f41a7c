import Offers
import Transport

extension SwapAccountingEntry {
    /// A provider's onchain_to_ln swap's money from its contract (the quote) and its event
    /// log (the last claim version signed, with its fee).
    ///
    /// Claimed: the invoice and its routing fee left over Lightning, the lock came in less
    /// the claim's fee. Claim lost: the payment left and nothing came in. Every other end
    /// (abandoned, lock mismatch, released) moved nothing of the provider's.
    static func submarineProvider(_ record: SwapRecord, events: [SwapEvent],
                                  routingFeeMsat: Int64?) throws(AccountingError) -> SwapAccountingEntry {
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
        guard let last = events.last, let state = states.last else {
            throw .unreadableSwap(id: record.id, why: "it has no event")
        }
        let paidMsat = quote.amountSat * 1_000 + (routingFeeMsat ?? 0)
        func entry(_ outcome: AccountingOutcome, endedAt: Int64?, serviceFee: Int64 = 0, quotedOnchainFee: Int64 = 0,
                   claimFee: Int64 = 0, lightning: Int64 = 0, onchain: Int64 = 0) -> SwapAccountingEntry {
            SwapAccountingEntry(id: record.id, role: .provider, purpose: "provide", peer: record.peer,
                                createdAt: record.createdAt, endedAt: endedAt, outcome: outcome, amountSat: quote.amountSat,
                                serviceFeeSat: serviceFee, quotedOnchainFeeSat: quotedOnchainFee, claimFeeSat: claimFee,
                                routingFeeMsat: routingFeeMsat, lightningMsat: lightning, onchainSat: onchain)
        }
        guard last.isFinal else { return entry(.inFlight, endedAt: nil) }
        switch state {
        case .claimed:
            let claimed = states.compactMap { state -> (SubmarineLock, SubmarineClaim)? in
                if case .claimBroadcast(let lock, _, let claim) = state { return (lock, claim) }
                return nil
            }.last
            guard let (lock, claim) = claimed else {
                throw .unreadableSwap(id: record.id, why: "it was claimed without a recorded claim")
            }
            return entry(.completed, endedAt: last.at, serviceFee: quote.serviceFeeSat, quotedOnchainFee: quote.onchainFeeSat,
                         claimFee: claim.fee, lightning: -paidMsat, onchain: lock.output.value - claim.fee)
        case .claimLost:
            return entry(.lost, endedAt: last.at, lightning: -paidMsat)
        default:
            return entry(.failed, endedAt: last.at)
        }
    }
}
