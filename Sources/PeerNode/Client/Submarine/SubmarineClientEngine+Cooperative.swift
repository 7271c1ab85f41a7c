import Bitcoin
import HTLC
import Offers
import Transport

/// Cooperative key-path spends of submarine locks (issue 17), the client's side, with a
/// provider whose offer and this client's SwapRequest both list `musig2`:
/// - the provider's claim: having paid, the provider asks (over the connection this
///   client dialled) for a co-signature; the client gives it with DeterministicSign only
///   once the request's preimage hashes to the invoice's payment hash and the claim spends
///   exactly the lock: the preimage is its proof of payment, so the lock is the
///   provider's by then;
/// - its own refund: when the provider says it cannot pay (`CoopRefundOffer`), the client
///   asks it to co-sign a key-path refund to this node's own wallet, and broadcasts it at
///   once instead of waiting for the timeout. Anything else: the script-path refund from
///   the timeout, as without cooperation.
extension SubmarineClientEngine {
    /// The provider's pushes: a `CoopRefundOffer` for one of its swaps with this client.
    func received(push bytes: [UInt8], from pubky: Pubky) {
        guard case .coopRefundOffer(let offer)? = try? SwapMessage(bytes: bytes),
              let run = run(ofProvider: pubky, swapID: offer.swapID), run.machine.settings.cooperative else { return }
        // Sent again at each block: the round it starts says so, not every offer.
        feed(run.id, .coopRefundOffered)
    }

    /// The provider's requests over this client's connection: only `CoopClaimRequest`.
    func answer(providerRequest bytes: [UInt8], from pubky: Pubky) async -> [UInt8] {
        guard case .coopClaimRequest(let request)? = try? SwapMessage(bytes: bytes) else {
            return Reject(requestID: (try? MessageEnvelope.parse(bytes))?.requestID ?? "unknown", code: .invalidRequest,
                          reason: "a client answers only CoopClaimRequest from its provider").encoded
        }
        return await answer(request, from: pubky)
    }

    /// A cooperative swap's provider must be able to reach this client (it cannot dial
    /// it): the connection is kept open, redialled, from the lock's broadcast until the swap
    /// ends (its link stops with the provider's last swap).
    func keepProviderReachable(_ run: SubmarineClientRun) async {
        guard run.machine.settings.cooperative else { return }
        await link(for: run.record.provider).keepOpen()
    }

    /// The running swap `swapID` (the provider's id, the accept's) with provider `pubky`.
    func run(ofProvider pubky: Pubky, swapID: String) -> SubmarineClientRun? {
        runs.values.first { $0.record.provider.pubky == pubky && $0.accept?.body.swapID == swapID }
    }

    // MARK: the provider's claim

    /// Answers the provider's `CoopClaimRequest`. In order:
    ///
    /// 1. the swap is this provider's and cooperative, holds a lock, and no refund of ours
    ///    is out (the provider had until the timeout), else a Reject;
    /// 2. the claim passes `CoopSpendCheck` with the preimage: it hashes to the invoice's
    ///    payment hash (the invoice is paid) and the claim spends exactly the lock;
    /// 3. a request the swap's `coop_signed` record answers gets that answer, any other
    ///    once a record exists is refused (one co-signature per swap);
    /// 4. DeterministicSign (no nonce kept); the machine records preimage and co-signature
    ///    (`coop_signed`), and the partial signature leaves only once the store holds them.
    func answer(_ request: CoopClaimRequest, from pubky: Pubky) async -> [UInt8] {
        func reject(_ code: RejectCode, _ reason: String) -> [UInt8] {
            Reject(requestID: request.requestID, code: code, reason: reason).encoded
        }
        guard let run = run(ofProvider: pubky, swapID: request.swapID) else {
            return reject(.notFound, OffersError.swapNotFound.description)
        }
        guard run.machine.settings.cooperative else {
            return reject(.invalidRequest, "this swap takes no cooperative claim (its SwapRequest did not list "
                          + "\(OfferFeature.musig2)); claim through the script path")
        }
        if let fault = configuration.coopFault {
            // A regtest test of a client that will not cooperate (CoopFault).
            note(run.id, "the provider's cooperative claim refused (\(fault))")
            await fault.stall()
            return reject(.invalidRequest, "this client does not co-sign now; claim through the script path")
        }
        let state = run.state
        guard let contract = state.contract, let lock = state.lock else { return reject(.invalidRequest, "the swap has no lock") }
        guard state.refund == nil else {
            return reject(.invalidRequest, "a refund of the lock is out; claim through the script path")
        }
        let cosigned: CoopCosigned
        let answer: CoopCosignature
        do {
            let cosigner = try CoopCosigner(context: try CoopSpendContext(contract: contract, lock: lock), kind: .claim,
                                            key: run.refundKey)
            let checked = try cosigner.check(claim: request.claimTransaction, preimage: request.preimage)
            if let recorded = state.coopClaim, !recorded.record.answers(initiatorNonce: request.publicNonce, sighash: checked.sighash) {
                return reject(.invalidRequest, "this swap's claim is co-signed already; claim through the script path")
            }
            answer = try cosigner.sign(checked, initiatorNonce: request.publicNonce, record: state.coopClaim?.record)
            cosigned = CoopCosigned(kind: .claim, record: answer.record, txid: checked.transaction.txid)
        } catch {
            note(run.id, "the provider's cooperative claim refused: \(error)")
            return reject(.invalidRequest, "\(error)")
        }
        if !answer.fromRecord {
            // The provider pays only against a confirmed lock, so it may ask before this
            // node's follower has polled that block: the lock's depth is read first, and the
            // record holds `lock_confirmed`, as the chain does, before `coop_signed`.
            await catchUpLockDepth(run)
            await feedAndWait(.coopClaimAgreed(preimage: request.preimage, cosigned), to: run)
        }
        guard await isStored(cosigned, of: run.id) else {
            return reject(.internal, "this client could not record the co-signature (or its swap moved on); "
                          + "claim through the script path")
        }
        note(run.id, "co-signed the provider's key-path claim \(cosigned.txid.hex)" + (answer.fromRecord ? " (again, from the record)" : ""))
        return CoopClaimSigned(requestID: request.requestID, swapID: request.swapID, publicNonce: answer.publicNonce,
                               partialSignature: answer.partialSignature).encoded
    }

    /// Whether a stored event of the swap (`coop_signed` or later: the record is kept) holds
    /// `cosigned`: only then does the partial signature leave.
    private func isStored(_ cosigned: CoopCosigned, of id: String) async -> Bool {
        guard let events = try? await store.events(of: id) else { return false }
        return events.contains { (event: SwapEvent) -> Bool in
            guard let json = event.data["coop"] else { return false }
            return CoopCosigned(json: json, direction: .onchainToLightning) == cosigned
        }
    }

    // MARK: our refund

    /// A fresh refund round: the key-path refund of `lock` to the swap's recorded refund
    /// address (our own wallet's, the one the script-path refund pays), at the refund's fee
    /// estimate, and a new secret nonce kept in this process only. One round at a time.
    func prepareCooperativeRefund(_ run: SubmarineClientRun, lock: LockOutput) async {
        guard run.coopRefund == nil, let contract = run.state.contract else { return }
        note(run.id, "the provider cannot pay the invoice and offers a cooperative refund")
        do {
            let destination = try await refundDestination(run)
            let rate = try await feeEstimator.feeRate(targetBlocks: configuration.refundFeeTargetBlocks)
            let initiator = try CoopRefundInitiator(
                request: RefundRequest(contract: contract, lock: lock, destination: destination, feeRate: rate),
                refundKey: run.refundKey)
            let round = CoopRound(kind: .refund, record: initiator.record,
                                  scriptPathOutputSat: lock.value - rate.fee(forVirtualSize: initiator.scriptPathVirtualSize),
                                  scriptPathVirtualSize: initiator.scriptPathVirtualSize)
            run.coopRefund = consume initiator
            feed(run.id, .coopRefundPrepared(round))
        } catch {
            note(run.id, "no cooperative refund: \(error); the refund waits for the timeout")
        }
    }

    /// Sends the recorded round's request and turns the provider's answer into the signed
    /// key-path refund. The secret nonce is taken out of the run first, so it signs at most
    /// once: a refusal, silence past `coopTimeoutMilliseconds`, another message, or a
    /// partial signature that does not verify drops it unused (erased).
    func requestCooperativeRefund(_ run: SubmarineClientRun, _ round: CoopRound) async {
        guard let initiator = run.coopRefund.take() else {
            return feed(run.id, .coopRefundFailed("the round's secret nonce is not in this process's memory"))
        }
        // The record on disk must be this round's: a nonce never recorded is never sent.
        guard initiator.publicNonce == round.publicNonce, initiator.unsignedRefund == round.unsignedTransaction,
              let providerSwapID = run.accept?.body.swapID else {
            return feed(run.id, .coopRefundFailed("the recorded round is not the one in memory"))
        }
        let provider = run.record.provider
        note(run.id, "asking \(provider.name) to co-sign a key-path refund to our wallet (\(round.scriptPathVirtualSize - initiator.virtualSize) vB "
             + "smaller than the script path, valid now instead of after the timeout)")
        let message = CoopRefundRequest(requestID: RandomID.make(), swapID: providerSwapID, publicNonce: round.publicNonce,
                                        refundTransaction: round.unsignedTransaction)
        let reply: SwapMessage
        do {
            reply = try await link(for: provider).request(message.encoded, id: message.requestID,
                                                          timeoutMilliseconds: configuration.coopTimeoutMilliseconds)
        } catch {
            return refundFallBack(run, "\(provider.name) did not co-sign: \(error.reason)")
        }
        guard case .coopClaimSigned(let signed) = reply, signed.swapID == providerSwapID else {
            return refundFallBack(run, "\(provider.name) answered the cooperative refund with another message")
        }
        do {
            let refund = try initiator.finish(responderNonce: signed.publicNonce, partialSignature: signed.partialSignature)
            note(run.id, "\(provider.name) co-signed: refund \(refund.txid.hex) takes the key path")
            feed(run.id, .coopRefundSigned(refund))
        } catch {
            refundFallBack(run, "\(provider.name)'s partial signature was refused: \(error)")
        }
    }

    private func refundFallBack(_ run: SubmarineClientRun, _ why: String) {
        note(run.id, "no cooperative refund (\(why)); the refund waits for the timeout")
        feed(run.id, .coopRefundFailed(why))
    }
}
