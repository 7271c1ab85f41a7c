import Bitcoin
import HTLC
import Offers
import Transport

extension ClientEngine {
    /// The first claim, asked for cooperatively (issue 17). Only once the lock is ready to
    /// claim as the swap requires and `CoopRevealRule` lets the preimage go to the provider
    /// before any claim is out: then a fresh round (the unsigned key-path claim, a new
    /// secret nonce kept in memory) is handed to the machine to record before the request
    /// leaves. Whatever keeps cooperation out says `coopUnavailable`, and the claim takes
    /// the script path as it would without it.
    func prepareCooperativeClaim(_ run: ClientSwapRun, lock: LockOutput) async {
        guard let contract = run.contract,
              let tipHeight = await readyTip(run, lock: lock, revealed: false, impossible: { .coopUnavailable($0) }) else {
            return
        }
        // The round for this lock is being recorded already (two blocks raced): one nonce.
        if run.coopLock == lock.outPoint { return }
        do {
            // The lock is this node's own sighting (`claimReadiness` read it), deep enough.
            try configuration.coopRevealRule.check(
                timeoutHeight: contract.terms.timeoutHeight, tipHeight: UInt32(clamping: tipHeight),
                lockConfirmations: max(run.state.lock?.confirmations ?? 0, run.terms.requiredConfirmations),
                requiredConfirmations: run.terms.requiredConfirmations, lockSeenByOwnNode: true)
            guard let request = claimRequest(run, lock: lock, rate: run.terms.claimFeeRate, tipHeight: tipHeight) else { return }
            let client = try CoopClaimInitiator(request: request, claimKey: run.secrets.claimKey, policy: configuration.claimPolicy)
            let round = CoopRound(record: client.record, scriptPathOutputSat: client.scriptPathPlan.outputValue,
                                          scriptPathVirtualSize: client.scriptPathPlan.virtualSize)
            run.coopClient = consume client
            run.coopLock = lock.outPoint
            feed(run.id, .coopPrepared(round))
        } catch {
            note(run.id, "no cooperative claim: \(error); claiming through the script path")
            feed(run.id, .coopUnavailable("\(error)"))
        }
    }

    /// Sends the recorded round's request and turns the provider's answer into the signed
    /// key-path claim. The secret nonce is taken out of the run first, so it signs at most
    /// once: a refusal, silence past `coopClaimTimeoutMilliseconds`, a reply that is not
    /// the answer, or a partial signature that does not verify drops it unused (erased),
    /// and the machine hears `coopFailed`. The preimage is in the request and never logged.
    func requestCooperativeClaim(_ run: ClientSwapRun, _ round: CoopRound) async {
        guard let client = run.coopClient.take() else {
            feed(run.id, .coopFailed("the round's secret nonce is not in this process's memory"))
            return
        }
        run.coopLock = nil
        // The record on disk must be this round's: a nonce never recorded is never sent.
        guard client.publicNonce == round.publicNonce, client.unsignedClaim == round.unsignedTransaction,
              let providerSwapID = run.providerSwapID else {
            feed(run.id, .coopFailed("the recorded round is not the one in memory"))
            return
        }
        let provider = run.terms.provider
        report(run.id, .note, "asking \(provider.name) to co-sign a key-path claim (\(round.scriptPathVirtualSize - client.plan.virtualSize) vB "
               + "smaller than the script path)")
        let message = CoopClaimRequest(requestID: RandomID.make(), swapID: providerSwapID, preimage: run.secrets.preimage,
                                       publicNonce: round.publicNonce, claimTransaction: round.unsignedTransaction)
        let reply: SwapMessage
        do {
            reply = try await link(for: provider).request(message.encoded, id: message.requestID,
                                                          timeoutMilliseconds: configuration.coopClaimTimeoutMilliseconds)
        } catch {
            // `reason`, not `description`: the fate it would add ("nothing was paid") is not this one's.
            fallBack(run, "\(provider.name) did not co-sign: \(error.reason)")
            return
        }
        guard case .coopClaimSigned(let signed) = reply, signed.swapID == providerSwapID else {
            fallBack(run, "\(provider.name) answered the cooperative claim with another message")
            return
        }
        do {
            let claim = try client.finish(responderNonce: signed.publicNonce, partialSignature: signed.partialSignature)
            report(run.id, .note, "\(provider.name) co-signed: the claim takes the key path")
            feed(run.id, .claimSigned(claim))
        } catch {
            fallBack(run, "\(provider.name)'s partial signature was refused: \(error)")
        }
    }

    private func fallBack(_ run: ClientSwapRun, _ why: String) {
        report(run.id, .note, "no cooperative claim (\(why)); claiming through the script path")
        feed(run.id, .coopFailed(why))
    }
}
