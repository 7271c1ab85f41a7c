import Bitcoin
import HTLC
import Offers

/// Taking back a funding the node never took (SUB-LIQ-2): past the last height at which
/// the provider still waits for a lock (`SubmarineRules.lastLockBroadcastHeight`), the
/// machine asks for the funding's inputs to go back to the wallet instead of sending the
/// lock. The double spend is what makes the swap final: once it is deep, no lock can ever
/// exist (`fundingConflicted`), and the swap ends `abandoned`, nothing locked.
extension SubmarineClientEngine {
    /// Where the fee of a funding's withdrawal is kept (sat, decimal text): no event
    /// carries it, and the accounting counts it as what the swap cost
    /// (`SwapHistory.lockWithdrawalFeeSat`).
    public static func fundingWithdrawalFeeKey(_ swapID: String) -> String {
        "client.submarine.funding_withdrawal_fee_sat.\(swapID)"
    }

    /// The withdrawal fee recorded for `swapID`; nil when its funding was never taken back.
    public static func recordedFundingWithdrawalFee(_ swapID: String, in store: any KeyValueStore)
        async throws(StoreError) -> Int64? {
        try await store.amount(forKey: fundingWithdrawalFeeKey(swapID),
                               what: "the funding withdrawal fee recorded for swap \(swapID)")
    }

    /// Spends `funding`'s inputs back to the wallet, replacing it (BIP125) when the mempool
    /// holds it: a crash may have come after the broadcast and before its record. Nothing is
    /// done when it is already in a block (its depth is fed: the swap goes on, refunded at
    /// the timeout if the provider gave up) or when something spends it in the mempool (a
    /// replacement would evict that; the lock then confirms and is refunded). Asked again at
    /// each block until the withdrawal confirms; the wallet hands back the same withdrawal.
    func takeBackFunding(_ funding: Transaction, of run: SubmarineClientRun) async {
        run.preparedFunding = nil
        // Watched, so that a lock that was out after all is heard.
        await watch(run)
        for input in funding.inputs {
            // Taken back already and in a block: its depth, read at each block
            // (`checkChain`), ends the swap once final.
            if let spender = await wallet.confirmedSpender(of: input.previousOutput), spender.txid != funding.txid { return }
        }
        var inMempool = false
        do {
            if let found = try await chain.transaction(funding.txid) {
                if found.confirmations > 0 {
                    feed(run.id, .lockConfirmations(found.confirmations))
                    return
                }
                inMempool = true
                let descendants = try await chain.mempoolDescendantCount(funding.txid) ?? 1
                if descendants > 1 {
                    note(run.id, "lock \(funding.txid.hex) is in the mempool with \(descendants - 1) descendant(s): not "
                         + "taken back; once it confirms it is refunded at the timeout")
                    return
                }
            }
        } catch {
            note(run.id, "looking up lock \(funding.txid.hex) failed (\(error)); tried again at the next block")
            return
        }
        do {
            let rate = try await feeEstimator.feeRate(targetBlocks: configuration.lockFeeTargetBlocks)
            let withdrawal = try await wallet.withdraw(funding, feeRate: rate, originalFee: inMempool ? run.lockFeeSat : nil)
            guard run.fundingWithdrawal != withdrawal.txid else { return }
            run.fundingWithdrawal = withdrawal.txid
            note(run.id, "lock \(funding.txid.hex) is too late for the provider (it waits \(SubmarineRules.lockWaitBlocks) "
                 + "blocks after the accept): its inputs go back to the wallet by \(withdrawal.txid.hex)")
            await recordFee(of: withdrawal, key: Self.fundingWithdrawalFeeKey(run.id), what: "the funding's withdrawal", of: run)
        } catch {
            note(run.id, "cannot take lock \(funding.txid.hex) back (\(error)); tried again at the next block")
        }
    }

    /// Writes what a wallet transaction of the swap pays in fees (its inputs less its
    /// outputs: the funding's withdrawal, or its child) under `key`. A failed write is only
    /// noted: the swap is unaffected, its report then leaves the fee out.
    func recordFee(of transaction: WalletTransaction, key: String, what: String, of run: SubmarineClientRun) async {
        guard let fee = transaction.fee else { return }
        do {
            try await store.setAmount(fee, forKey: key)
        } catch {
            note(run.id, "could not record the fee of \(what): \(error)")
        }
    }
}
