import Bitcoin
import HTLC

extension SubmarineProviderEngine {
    /// Builds and signs a claim of the lock with the preimage, to the provider's wallet,
    /// at the estimate for `claimConfirmationTarget`; a bump pays at least `claimBumpStep`
    /// more than the version it replaces, once per tip. The provider's own money: the claim
    /// keeps what the fee leaves (`ClaimPurpose.swapOut`), within `ClaimPolicy`'s cap, and
    /// near the timeout all of it but dust.
    func prepareClaim(_ swap: SubmarineProviderRecord, lock: SubmarineLock, preimage: [UInt8],
                      replacing previous: SubmarineClaim?) async -> SubmarineProviderInput? {
        let id = swap.swapID
        do {
            let tip = UInt32(clamping: try await dependencies.chain.tip().height)
            if previous != nil, claimBumpTips[id] == tip { return nil }
            var rate = try await dependencies.feeEstimator.feeRate(targetBlocks: configuration.claimConfirmationTarget)
            if let previous {
                rate = try FeeRate(satPerKvB: max(rate.satPerKvB,
                                                  previous.feeRate.satPerKvB + configuration.claimBumpStep.satPerKvB))
            }
            let (request, key) = try await claimRequest(swap, lock: lock, rate: rate, tipHeight: tip)
            let signed = try ClaimBuilder(policy: configuration.claimPolicy).build(request, claimKey: key, preimage: preimage)
            if previous != nil { claimBumpTips[id] = tip }
            return .claimPrepared(SubmarineClaim(transaction: signed.transaction, feeRate: rate, fee: signed.plan.fee,
                                                 builtAtHeight: tip))
        } catch {
            log("submarine swap \(id): building the claim failed: \(error); again at the next block")
            return .claimFailed
        }
    }

    /// The claim of `lock` to the provider's recorded claim address at `rate` (the
    /// script-path size prices it), and the claim key that signs it: one request for the
    /// script-path claim and the cooperative one.
    func claimRequest(_ swap: SubmarineProviderRecord, lock: SubmarineLock, rate: FeeRate,
                      tipHeight tip: UInt32) async throws -> (ClaimRequest, PrivateKey) {
        let address = try Address(script: try await claimDestination(swap))
        let vsize = SpendSize.claim(contract: swap.contract, destination: try DestinationType(address: address))
        let fee = rate.fee(forVirtualSize: vsize)
        let key = try dependencies.keyChain.secrets(index: swap.record.swapIndex, scheme: swap.record.keyScheme).claimKey
        let request = ClaimRequest(contract: swap.contract, lock: lock.output, destination: address,
                                   amount: lock.output.value - fee, purpose: .swapOut, feeRate: rate,
                                   blocksLeft: TimelockPolicy.blocksLeft(timeoutHeight: swap.context.timeoutHeight, tipHeight: tip))
        return (request, key)
    }

    /// The address every claim of `swap` pays: taken from the wallet once and recorded
    /// before its first use, so every version and a restarted node pay the same one.
    func claimDestination(_ swap: SubmarineProviderRecord) async throws -> Script {
        let key = "provider.submarine_claim_destination.\(swap.swapID)"
        if let recorded = try await dependencies.store.value(forKey: key) { return Script(bytes: recorded) }
        let script = await dependencies.wallet.newAddress().scriptPubKey
        try await dependencies.store.setValue(script.bytes, forKey: key)
        return script
    }

    /// Broadcasts the recorded claim (the same bytes however often).
    func broadcastClaim(_ claim: SubmarineClaim, swapID id: String) async -> SubmarineProviderInput {
        let chain = dependencies.chain
        do {
            _ = try await chain.broadcast(claim.transaction)
            log("submarine swap \(id): claim \(claim.txid) broadcast at \(claim.feeRate)")
        } catch {
            guard (try? await chain.transaction(claim.txid)) != nil else {
                log("submarine swap \(id): broadcasting claim \(claim.txid) failed: \(error)")
                return .claimPublishFailed
            }
        }
        let tip = (try? await chain.tip()).map { UInt32(clamping: $0.height) } ?? lastTipHeight
        return .claimPublished(tipHeight: tip)
    }

    /// Where the claim stands. An earlier version may have spent the lock instead: the
    /// chain watch reports that spend by its witness.
    func claimStatus(_ claim: SubmarineClaim, lock: SubmarineLock) async -> SubmarineProviderInput? {
        let chain = dependencies.chain
        do {
            let tip = UInt32(clamping: try await chain.tip().height)
            if let found = try await chain.transaction(claim.txid) {
                let status: SubmarineClaimStatus = found.confirmations > 0
                    ? .confirmed(found.confirmations, txid: claim.txid) : .unconfirmed
                return .claimStatus(status, tipHeight: tip)
            }
            if try await chain.unspentOutput(lock.output.outPoint, includeMempool: true) != nil {
                return .claimStatus(.missing, tipHeight: tip)
            }
            if try await chain.unspentOutput(lock.output.outPoint, includeMempool: false) != nil {
                // Spent in the mempool by another version (or the client's refund).
                return .claimStatus(.unconfirmed, tipHeight: tip)
            }
            // Spent in a block (the watch says by what), or the lock itself is gone.
            if await locate(lock) == .lockMissing { return .claimStatus(.missing, tipHeight: tip) }
            return nil
        } catch {
            log("checking claim \(claim.txid) failed: \(error)")
            return nil
        }
    }
}
