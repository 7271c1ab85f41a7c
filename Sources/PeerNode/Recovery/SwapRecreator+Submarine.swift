import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

/// Re-creating an `onchain_to_ln` swap: the record in the submarine engines' own format,
/// resuming where the chain (and, for the provider, its Lightning node) says the swap is.
///
/// | role | chain | resumes at | the engine then |
/// |---|---|---|---|
/// | client | lock unspent | `lock_broadcast` / `lock_confirmed` | refunds from the timeout (or learns the preimage from a claim) |
/// | client | the provider's claim | `paid` (preimage from the witness) | completes once the claim is deep |
/// | provider | lock unspent, LND paid it | `paid` (preimage from LND) | claims |
/// | provider | lock unspent, LND's payment in flight | `payment_in_flight` | tracks it, never sends again |
/// | provider | lock unspent, no payment or a failed one | `payment_failed` | `released` at the timeout: recovery never pays |
///
/// A lock already refunded (client) or claimed or refunded (provider) leaves nothing to do
/// (`nothingToRecover`): the scan reports those spends.
extension SwapRecreator {
    public func recreate(_ parameters: SubmarineRecoveryContract, fromHeight: Int,
                         nowUnix: UInt64) async throws(RecoveryError) -> Outcome {
        let scheme = try parameters.checkOwnership(keyChain)
        let (sighting, tip, spend) = try await locate(parameters.contract, fromHeight: fromHeight,
                                                      amount: parameters.accept.body.totalSat)
        let events: [(String, JSONValue)]
        switch parameters.role {
        case .client: events = try await submarineClientEvents(parameters, sighting: sighting, tip: tip, spend: spend)
        case .provider: events = try await submarineProviderEvents(parameters, sighting: sighting, tip: tip, spend: spend)
        }
        let record = SwapRecord(id: parameters.swapID, role: parameters.role, swapIndex: parameters.index, keyScheme: scheme,
                                peer: parameters.peer.z32, createdAt: Int64(nowUnix), contract: parameters.recordContract)
        if let client = parameters.clientRecord {
            // A lock was found: its invoice is never locked for again (`SubmarineInvoiceIndex`).
            do { try await SubmarineInvoiceIndex.index.record(client.invoicePaymentHash, swapID: record.id, store: store) } catch {
                throw .store(error)
            }
        }
        try await write(record, found: found(parameters.contract, sighting: sighting, tip: tip, spend: spend), events: events,
                        reservingHash: nil, at: Int64(nowUnix))
        return Outcome(swapID: record.id, role: parameters.role, index: parameters.index, scheme: scheme,
                       lock: sighting.output.outPoint, lockValue: sighting.output.value, resumesAt: events.last?.0 ?? "recovered",
                       roles: .submarine)
    }

    /// `accepted` (the contract and the accept as received), `lock_intent` (the lock as
    /// found, its fee read from its parents), then where the chain puts the swap.
    private func submarineClientEvents(_ parameters: SubmarineRecoveryContract, sighting: LockSighting, tip: ChainTip,
                                       spend: Transaction?) async throws(RecoveryError) -> [(String, JSONValue)] {
        let contract = parameters.contract
        let accepted = SubmarineClientState(phase: .accepted, contract: contract)
        var acceptedData = accepted.json
        if case .object(var members) = acceptedData {
            members["accept"] = parameters.accept.json
            acceptedData = .object(members)
        }
        var state = accepted
        state.funding = sighting.transaction
        state.lock = sighting.output
        state.phase = .lockIntent
        var intentData = state.json
        if case .object(var members) = intentData {
            members["lock_fee_sat"] = .integer(sighting.fee)
            intentData = .object(members)
        }
        state.lockConfirmations = sighting.height.map { tip.height - $0 + 1 } ?? 0
        if let spend {
            guard let input = spend.inputs.first(where: { $0.previousOutput == sighting.output.outPoint }) else {
                throw .nothingToRecover("the lock was spent by \(spend.txid.hex), our refund")
            }
            if KeyPathSpend.isKeyPath(input.witness, contract: contract) {
                // Both sides signed it (the provider's cooperative claim, or our cooperative
                // refund): nothing is left to claim back, and it shows no preimage.
                throw .nothingToRecover("the lock was spent through its key path by \(spend.txid.hex), a cooperative claim "
                                        + "or refund both sides signed")
            }
            guard case .claim(let preimage) = PreimageExtractor.spend(input.witness, contract: contract) else {
                throw .nothingToRecover("the lock was spent by \(spend.txid.hex), our refund")
            }
            state.phase = .paid
            state.preimage = preimage
            state.preimageSource = .claim
            state.claimTxid = spend.txid
            state.claimConfirmations = await confirmations(of: spend.txid)
        } else {
            let required = max(1, parameters.quote.requiredConfirmations)
            state.phase = state.lockConfirmations >= required ? .lockConfirmed : .lockBroadcast
        }
        return [(SubmarineClientPhase.accepted.rawValue, acceptedData), (SubmarineClientPhase.lockIntent.rawValue, intentData),
                (state.phase.rawValue, state.json)]
    }

    /// The lock must pay the accepted contract exactly (the engine never pays for any other);
    /// the Lightning node says whether the invoice was paid. Recovery never sends a payment:
    /// a database lost after the send may have taken the node's own record of it with it.
    private func submarineProviderEvents(_ parameters: SubmarineRecoveryContract, sighting: LockSighting, tip: ChainTip,
                                         spend: Transaction?) async throws(RecoveryError) -> [(String, JSONValue)] {
        let contract = parameters.contract
        if let spend {
            let witness = spend.inputs.first { $0.previousOutput == sighting.output.outPoint }?.witness
            if let witness, case .refund = PreimageExtractor.spend(witness, contract: contract) {
                throw .nothingToRecover("the client refunded the lock with \(spend.txid.hex)")
            }
            throw .nothingToRecover("the lock was already claimed by \(spend.txid.hex)")
        }
        let lock: SubmarineLock
        do {
            lock = try SubmarineLock(verifying: sighting.transaction, contract: contract, totalSat: parameters.accept.body.totalSat)
        } catch {
            throw .nothingToRecover("lock \(sighting.transaction.txid.hex): \(error)")
        }
        guard let lightning else { throw .lightning("no Lightning node to ask whether the invoice was paid") }
        let status: PaymentUpdate.Status?
        do { status = try await lightning.paymentStatus(paymentHash: contract.terms.paymentHash) } catch {
            throw .lightning("\(error)")
        }
        let state: SubmarineProviderState
        switch status {
        case .succeeded(let preimage)? where SHA256.hash(preimage) == contract.terms.paymentHash:
            state = .paid(lock, preimage: preimage)
        case .succeeded?:
            throw .lightning("the Lightning node reports a preimage that is not the payment hash's")
        case .inFlight?:
            let limit = SubmarineRules.cltvLimit(timeoutHeight: contract.terms.timeoutHeight,
                                                 tipHeight: UInt32(clamping: tip.height))
            state = .paymentInFlight(lock, cltvLimit: UInt32(clamping: max(0, limit)))
        case .failed(let reason)?:
            state = .paymentFailed(lock, reason: "the payment failed before the database was lost: \(reason)")
        case nil:
            state = .paymentFailed(lock, reason: "the Lightning node has no payment for this invoice; recovery never pays, "
                + "so the client refunds after the timeout")
        }
        return [(state.kind.rawValue, state.eventData)]
    }

    private func confirmations(of txid: TransactionID) async -> Int {
        (try? await chain.transaction(txid))?.confirmations ?? 0
    }
}
