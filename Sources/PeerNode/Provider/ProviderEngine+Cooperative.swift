import Bitcoin
import HTLC
import Offers
import Transport

extension ProviderEngine {
    /// Whether this provider co-signs cooperative claims: its offers list `musig2` (the
    /// desk's terms are the one source of both).
    nonisolated var cooperates: Bool { dependencies.desk.terms.features.contains(OfferFeature.musig2) }

    /// Answers a `CoopClaimRequest` (issue 17): the client's preimage and its unsigned
    /// key-path claim of the lock, for our partial signature. In order:
    ///
    /// 1. the claim passes `CoopSpendCheck` (one input, exactly this swap's lock; the
    ///    preimage hashes to the payment hash), else `invalid_request`;
    /// 2. the partial signature is computed (DeterministicSign: no secret nonce is kept);
    ///    a request the swap's `coop_signed` record answers already gets that answer, any
    ///    other once a record exists is refused (one co-signature per swap);
    /// 3. the machine records preimage and co-signature together (`coop_signed`, only where
    ///    a push would be settled: a lock out, no refund of ours, the HTLC held) and
    ///    settles the invoice;
    /// 4. the partial signature leaves only once the store says `settled` after that
    ///    record: never co-sign a claim we are not paid for. Otherwise a Reject, and the
    ///    client claims through the script path, which is as good for us.
    func answer(_ request: CoopClaimRequest, from peer: Pubky) async -> [UInt8] {
        func reject(_ code: RejectCode, _ reason: String) -> [UInt8] {
            Reject(requestID: request.requestID, code: code, reason: reason).encoded
        }
        guard cooperates else {
            return reject(.invalidRequest, "this provider does not co-sign cooperative claims (its offers do not list "
                          + "\(OfferFeature.musig2)); claim through the script path")
        }
        if let fault = configuration.coopFault, configuration.network == .regtest {
            // A regtest test of a provider that will not cooperate (CoopFault).
            logFromPeer(peer, "provider swap \(UntrustedText.quoted(request.swapID)): cooperative claim refused (\(fault))")
            await fault.stall()
            return reject(.invalidRequest, "this provider does not co-sign now; claim through the script path")
        }
        let id = request.swapID
        let stored: SwapRecord
        let events: [SwapEvent]
        do {
            guard let record = try await dependencies.store.swap(id), record.role == .provider,
                  !SubmarineProviderRecord.isSubmarine(record), record.peer == peer.description else {
                return reject(.notFound, OffersError.swapNotFound.description)
            }
            stored = record
            events = try await dependencies.store.events(of: id)
        } catch {
            log("cooperative claim for swap \(UntrustedText.quoted(id)): reading the store failed: \(error)")
            return reject(.internal, "the provider cannot read the swap now; claim through the script path")
        }
        let answer: CoopCosignature
        let checked: CheckedCoopSpend
        do {
            let swap = try ProviderSwapRecord(record: stored, network: configuration.network)
            let history = try events.map { (event) throws(ProviderError) in try ProviderSwapState(event: event) }
            guard let lock = history.compactMap(\.lock).last else {
                return reject(.invalidRequest, "the swap has no lock to claim yet")
            }
            let key = try dependencies.keyChain.secrets(index: stored.swapIndex, scheme: stored.keyScheme).refundKey
            let provider = try CoopCosigner(context: try CoopSpendContext(contract: swap.contract, lock: lock.output),
                                            kind: .claim, key: key)
            checked = try provider.check(claim: request.claimTransaction, preimage: request.preimage)
            let recorded = history.compactMap(\.coopClaim).last
            if let recorded, !recorded.record.answers(initiatorNonce: request.publicNonce, sighash: checked.sighash) {
                // One co-signature per swap: another nonce or another claim is not signed at all.
                return reject(.invalidRequest, "this swap's claim is co-signed already; claim through the script path")
            }
            answer = try provider.sign(checked, initiatorNonce: request.publicNonce, record: recorded?.record)
            if !answer.fromRecord {
                guard let current = states[id] else {
                    return reject(.invalidRequest, "the swap ended (\(history.last?.kind.rawValue ?? "?")): nothing to co-sign")
                }
                switch current.kind {
                case .lockBroadcast, .lockConfirmed, .claimObserved: break
                default: return reject(.invalidRequest, "the swap is in \(current.kind.rawValue): no cooperative claim now")
                }
                let claim = CoopCosigned(record: answer.record, txid: checked.transaction.txid)
                let tip = try? await dependencies.chain.tip()
                await deliverAndWait(.coopClaimAgreed(preimage: request.preimage, claim: claim,
                                                      tipHeight: tip.map { UInt32(clamping: $0.height) }), to: id)
            }
        } catch let error as CoopSpendError {
            logFromPeer(peer, "provider swap \(UntrustedText.quoted(id)): cooperative claim refused: \(error)")
            return reject(.invalidRequest, error.description)
        } catch {
            log("provider swap \(id): cooperative claim failed: \(error)")
            return reject(.internal, "the provider cannot co-sign now; claim through the script path")
        }
        guard await coopAnswerMayLeave(id, answer.record) else {
            return reject(.internal, "the provider has not settled its invoice (or may not co-sign in this state); "
                          + "claim through the script path")
        }
        log("provider swap \(id): co-signed the cooperative claim \(checked.transaction.txid)"
            + (answer.fromRecord ? " (answered again from the record)" : ""))
        return CoopClaimSigned(requestID: request.requestID, swapID: id, publicNonce: answer.publicNonce,
                               partialSignature: answer.partialSignature).encoded
    }

    /// Whether the store holds `record` as the swap's `coop_signed` and, after it, `settled`:
    /// only then is the partial signature sent.
    private func coopAnswerMayLeave(_ id: String, _ record: CoopSignedRecord) async -> Bool {
        guard let events = try? await dependencies.store.events(of: id),
              let signedAt = events.lastIndex(where: { (try? ProviderSwapState(event: $0))?.coopClaim?.record == record }) else {
            return false
        }
        return events[signedAt...].contains { $0.kind == ProviderSwapState.Kind.settled.rawValue }
    }

    /// A key-path spend of a lock: the cooperative claim we co-signed (by its txid), which
    /// reveals no preimage (we recorded it from the request), or else a spend we never
    /// signed for, whose alarm `unreadableSpend` raises.
    func keyPathSpendInput(_ watched: WatchedTransaction, swap: ProviderSwapRecord) -> ProviderSwapInput {
        if case .coopSigned(_, let preimage, let claim)? = states[swap.swapID], claim.txid == watched.txid {
            log("provider swap \(swap.swapID): its cooperative claim \(watched.txid) seen (\(watched.confirmations) confirmations)")
            return .claimSeen(preimage: preimage, confirmations: watched.confirmations, txid: watched.txid)
        }
        return .unreadableSpend(txid: watched.txid, confirmations: watched.confirmations)
    }
}
