import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

/// Cooperative key-path spends of submarine locks (issue 17), the provider's side:
/// - its claim: after paying, it asks the client to co-sign a key-path claim (the client
///   answers with DeterministicSign once it has checked the preimage); any failure is the
///   script-path claim;
/// - the client's refund: once its payment is tracked to a final failure, it offers the
///   client a cooperative refund (`CoopRefundOffer`) and co-signs the refund the client
///   asks for (`CoopRefundRequest`), which may pay anywhere: the lock is the client's.
extension SubmarineProviderEngine {
    /// Whether this provider takes part in cooperative spends: its offers list `musig2`
    /// (the desk's terms are the one source) and it can reach its clients.
    nonisolated var cooperates: Bool {
        dependencies.desk.terms.features.contains(OfferFeature.musig2) && push != nil && request != nil
    }

    /// The machine's context for `swap`, cooperative when both sides are.
    nonisolated func context(of swap: SubmarineProviderRecord) -> SubmarineProviderContext {
        swap.context(cooperates: cooperates)
    }

    // MARK: the claim

    /// A fresh round: the key-path claim to the provider's claim address at the claim's
    /// estimate, the claim key's secret nonce kept in this process only.
    func prepareCooperativeClaim(_ swap: SubmarineProviderRecord, lock: SubmarineLock) async -> SubmarineProviderInput {
        let id = swap.swapID
        do {
            let tip = UInt32(clamping: try await dependencies.chain.tip().height)
            let rate = try await dependencies.feeEstimator.feeRate(targetBlocks: configuration.claimConfirmationTarget)
            let (request, key) = try await claimRequest(swap, lock: lock, rate: rate, tipHeight: tip)
            let initiator = try CoopClaimInitiator(request: request, claimKey: key, policy: configuration.claimPolicy)
            let round = CoopRound(record: initiator.record, scriptPathOutputSat: initiator.scriptPathPlan.outputValue,
                                  scriptPathVirtualSize: initiator.scriptPathPlan.virtualSize)
            coopRounds[id] = SubmarineCoopRoundHolder(initiator, feeRate: rate, builtAtHeight: tip)
            return .coopClaimPrepared(round)
        } catch {
            log("submarine swap \(id): no cooperative claim (\(error)); claiming through the script path")
            return .coopUnavailable("\(error)")
        }
    }

    /// Sends the recorded round to the client and finishes the key-path claim from its
    /// answer. The secret nonce is taken out first, so it signs at most once: a refusal,
    /// no answer within `coopTimeoutMilliseconds`, another message or a partial signature
    /// that does not verify drops it unused (erased), and the claim takes the script path.
    /// The preimage is in the request (the client's proof of payment) and never logged.
    func requestCooperativeClaim(_ swap: SubmarineProviderRecord, round: CoopRound,
                                 preimage: [UInt8]) async -> SubmarineProviderInput {
        let id = swap.swapID
        guard let held = coopRounds.removeValue(forKey: id), let initiator = held.take() else {
            return fallBack(id, "the round's secret nonce is not in this process's memory")
        }
        // The record on disk must be this round's: a nonce never recorded is never sent.
        guard initiator.publicNonce == round.publicNonce, initiator.unsignedClaim == round.unsignedTransaction,
              let request else {
            return fallBack(id, "the recorded round is not the one in memory")
        }
        let fee = initiator.plan.fee
        let message = CoopClaimRequest(requestID: RandomID.make(), swapID: id, preimage: preimage,
                                       publicNonce: round.publicNonce, claimTransaction: round.unsignedTransaction)
        log("submarine swap \(id): asking the client to co-sign a key-path claim "
            + "(\(round.scriptPathVirtualSize - initiator.plan.virtualSize) vB smaller than the script path)")
        let reply: SwapMessage
        do {
            reply = try SwapMessage(bytes: try await request(swap.client, message.encoded, message.requestID,
                                                              configuration.coopTimeoutMilliseconds))
        } catch {
            return fallBack(id, "the client did not answer: \(error)")
        }
        guard case .coopClaimSigned(let signed) = reply, signed.swapID == id, signed.requestID == message.requestID else {
            if case .reject(let reject) = reply { return fallBack(id, "the client refused (\(reject.code.rawValue)): \(reject.reason)") }
            return fallBack(id, "the client answered with another message")
        }
        do {
            let claim = try initiator.finish(responderNonce: signed.publicNonce, partialSignature: signed.partialSignature)
            log("submarine swap \(id): the client co-signed: the claim \(claim.txid) takes the key path")
            return .claimPrepared(SubmarineClaim(transaction: claim, feeRate: held.feeRate, fee: fee,
                                                 builtAtHeight: held.builtAtHeight))
        } catch {
            return fallBack(id, "the client's partial signature was refused: \(error)")
        }
    }

    private func fallBack(_ id: String, _ why: String) -> SubmarineProviderInput {
        log("submarine swap \(id): no cooperative claim (\(why)); claiming through the script path")
        return .coopFailed(why)
    }

    // MARK: the refund

    /// Tells the client it may ask for a cooperative refund, once its payment cannot
    /// succeed (`paymentCannotSucceed`).
    func offerCooperativeRefund(_ swap: SubmarineProviderRecord) async {
        guard let push, await paymentCannotSucceed(swap) else { return }
        await push(swap.client, CoopRefundOffer(swapID: swap.swapID).encoded)
    }

    /// Whether the swap's payment can never succeed: its history shows it was never
    /// attempted (`neverPaid`: the swap gave up before paying), or LND reports the payment
    /// FAILED. Never on the machine's word alone: a payment whose intent is recorded and
    /// that LND has no record of (a crash before the send) is not tracked to a failure, and
    /// its client waits for the timeout.
    func paymentCannotSucceed(_ swap: SubmarineProviderRecord) async -> Bool {
        do {
            if Self.neverPaid(try await dependencies.store.events(of: swap.swapID)) { return true }
        } catch {
            log("submarine swap \(swap.swapID): reading its events for a cooperative refund: \(error)")
            return false
        }
        return await paymentTrackedToFailure(swap)
    }

    /// Whether a swap's own history, complete from its `accepted`, holds no `payment_intent`:
    /// the engine pays only once that step is written, so nothing was ever sent. A record
    /// that recovery re-created starts later (at `payment_failed`) and never counts: it
    /// cannot tell what the node paid before its database was lost.
    static func neverPaid(_ events: [SwapEvent]) -> Bool {
        guard events.first?.kind == SubmarineProviderState.Kind.accepted.rawValue else { return false }
        return !events.contains { $0.kind == SubmarineProviderState.Kind.paymentIntent.rawValue }
    }

    /// Whether LND's tracking of the swap's payment says FAILED: a final status, so no
    /// HTLC of it is in flight and none will be sent (this engine never sends a payment
    /// twice). In flight, succeeded, unknown to LND, or LND unreachable: false.
    func paymentTrackedToFailure(_ swap: SubmarineProviderRecord) async -> Bool {
        do {
            for try await update in dependencies.lightning.trackPayment(paymentHash: swap.paymentHash) {
                if case .failed = update.status { return true }
                return false
            }
        } catch {
            log("submarine swap \(swap.swapID): tracking the payment for a cooperative refund: \(error)")
        }
        return false
    }

    /// Answers a client's `CoopRefundRequest`. In order:
    ///
    /// 1. the swap is this client's, cooperative (both sides offered `musig2`), has a
    ///    lock, and the refund passes `CoopSpendCheck` (one input, exactly this lock), else
    ///    `invalid_request`;
    /// 2. a request the swap's `coop_refund_signed` record answers gets that answer;
    /// 3. otherwise the swap must be in `payment_failed` or `coop_refund_signed` (states
    ///    that never pay) and its payment must be unable to succeed (never attempted, or
    ///    FAILED in LND now: `paymentCannotSucceed`); else refused, and the
    ///    client waits for the timeout. A new request after a co-signature (the client's
    ///    round died with its process) is signed anew: every refund pays the client, and
    ///    DeterministicSign derives a new nonce from the new request;
    /// 4. DeterministicSign; the machine records the co-signature (`coop_refund_signed`)
    ///    through the swap's mailbox, in order with its other inputs, and the partial
    ///    signature leaves only once the store holds it.
    func answer(_ request: CoopRefundRequest, from peer: Pubky) async -> [UInt8] {
        func reject(_ code: RejectCode, _ reason: String) -> [UInt8] {
            Reject(requestID: request.requestID, code: code, reason: reason).encoded
        }
        let id = request.swapID
        guard let swap = swaps[id], swap.client == peer else { return reject(.notFound, OffersError.swapNotFound.description) }
        guard context(of: swap).cooperative else {
            return reject(.invalidRequest, "this swap takes no cooperative refund (both sides must offer \(OfferFeature.musig2) "
                          + "for a taproot_boltz contract); refund after the timeout")
        }
        if let fault = configuration.coopFault {
            // A regtest test of a provider that will not cooperate (CoopFault).
            logFromPeer(peer, "submarine swap \(UntrustedText.quoted(id)): cooperative refund refused (\(fault))")
            await fault.stall()
            return reject(.invalidRequest, "this provider does not co-sign now; refund after the timeout")
        }
        guard let state = states[id], let lock = state.lock else {
            return reject(.invalidRequest, "the swap has no lock to refund")
        }
        let answer: CoopCosignature
        let checked: CheckedCoopSpend
        do {
            let key = try dependencies.keyChain.secrets(index: swap.record.swapIndex, scheme: swap.record.keyScheme).claimKey
            let cosigner = try CoopCosigner(context: try CoopSpendContext(contract: swap.contract, lock: lock.output),
                                            kind: .refund, key: key)
            checked = try cosigner.check(refund: request.refundTransaction)
            var recorded: CoopCosigned?
            if case .coopRefundSigned(_, _, let cosigned) = state,
               cosigned.record.answers(initiatorNonce: request.publicNonce, sighash: checked.sighash) {
                recorded = cosigned
            }
            if recorded == nil {
                guard state.kind == .paymentFailed || state.kind == .coopRefundSigned else {
                    return reject(.invalidRequest, "the swap is in \(state.kind.rawValue): its payment has not failed, "
                                  + "no cooperative refund now")
                }
                guard await paymentCannotSucceed(swap) else {
                    return reject(.invalidRequest, "the payment is not tracked to a final failure; refund after the timeout")
                }
            }
            answer = try cosigner.sign(checked, initiatorNonce: request.publicNonce, record: recorded?.record)
        } catch let error as CoopSpendError {
            logFromPeer(peer, "submarine swap \(UntrustedText.quoted(id)): cooperative refund refused: \(error)")
            return reject(.invalidRequest, error.description)
        } catch {
            log("submarine swap \(id): cooperative refund failed: \(error)")
            return reject(.internal, "the provider cannot co-sign now; refund after the timeout")
        }
        let cosigned = CoopCosigned(kind: .refund, record: answer.record, txid: checked.transaction.txid)
        if !answer.fromRecord { await deliverAndWait(.coopRefundAgreed(cosigned), to: id) }
        guard await refundCosignatureStored(id, cosigned) else {
            return reject(.internal, "the provider could not record the co-signature (or its swap moved on); "
                          + "refund after the timeout")
        }
        log("submarine swap \(id): co-signed the client's key-path refund \(cosigned.txid)"
            + (answer.fromRecord ? " (answered again from the record)" : ""))
        return CoopClaimSigned(requestID: request.requestID, swapID: id, publicNonce: answer.publicNonce,
                               partialSignature: answer.partialSignature).encoded
    }

    /// Whether a stored `coop_refund_signed` event of the swap holds `cosigned`: only then
    /// is the partial signature sent.
    private func refundCosignatureStored(_ id: String, _ cosigned: CoopCosigned) async -> Bool {
        guard let events = try? await dependencies.store.events(of: id) else { return false }
        return events.contains { event in
            guard case .coopRefundSigned(_, _, let stored)? = try? SubmarineProviderState(kind: event.kind, data: event.data) else {
                return false
            }
            return stored == cosigned
        }
    }

    // MARK: the watch

    /// A key-path spend of a lock: only the provider and the client together can make one,
    /// and the provider signs only two kinds: the client's refunds it co-signed (only from
    /// `coop_refund_signed` on, a state with no preimage, so no claim of its own) and its
    /// own claim, which it finishes itself once paid. Anything else is a spend it never
    /// signed for: an alarm (only a leaked key makes one).
    func keyPathSpendInput(_ watched: WatchedTransaction, swap: SubmarineProviderRecord) -> SubmarineProviderInput? {
        let state = states[swap.swapID]
        switch state {
        case .coopRefundSigned?:
            log("submarine swap \(swap.swapID): the client's cooperative refund \(watched.txid) seen "
                + "(\(watched.confirmations) confirmations)")
            return .lockRefunded(txid: watched.txid, confirmations: watched.confirmations)
        case .paid?, .coopRequested?, .claimBroadcast?:
            let status: SubmarineClaimStatus = watched.confirmations > 0 ? .confirmed(watched.confirmations, txid: watched.txid) : .unconfirmed
            return .claimStatus(status, tipHeight: lastTipHeight)
        default:
            log("ALARM submarine swap \(swap.swapID): the lock is spent through its key path by \(watched.txid), "
                + "which this provider never signed for")
            return nil
        }
    }
}

/// The secret nonce of one cooperative claim round between its preparation and its
/// request, with what the claim version will be recorded with. Confined to the engine
/// actor; `take` hands the round out once.
final class SubmarineCoopRoundHolder {
    private var initiator: CoopClaimInitiator?
    let feeRate: FeeRate
    let builtAtHeight: UInt32

    init(_ initiator: consuming CoopClaimInitiator, feeRate: FeeRate, builtAtHeight: UInt32) {
        self.initiator = consume initiator
        self.feeRate = feeRate
        self.builtAtHeight = builtAtHeight
    }

    func take() -> CoopClaimInitiator? { initiator.take() }
}
