import Bitcoin
import HTLC
import Offers

/// A funding the node took that stays unconfirmed (its fee fell behind the market after
/// the broadcast) gets a child from the wallet paying for it (CPFP), as the provider's
/// reverse locks do. Without one the provider, which pays only a confirmed lock, waits for
/// it until the payment could no longer be made safely and gives up; the lock confirming
/// later then waits for the refund at the timeout (two days at mainnet pace), and the
/// swap the user asked for never happens. Never by replacing the funding: the provider
/// may have recorded its txid, and a replacement is a double spend it has to judge anew.
extension SubmarineClientEngine {
    /// Blocks a funding waits unconfirmed before a child lifts it: one block can pass
    /// over a transaction paying the estimate; two in a row say its fee is behind.
    static let fundingBumpAfterBlocks = 2

    /// Where the fee of the child paying for the funding is kept (sat, decimal text): no
    /// event carries it; the accounting counts it with the lock's fee. One child at a time
    /// spends the funding's change, so a newer child (the first evicted) replaces it.
    public static func fundingChildFeeKey(_ swapID: String) -> String {
        "client.submarine.funding_child_fee_sat.\(swapID)"
    }

    /// The child's fee recorded for `swapID`; nil when the funding never needed one.
    public static func recordedFundingChildFee(_ swapID: String, in store: any KeyValueStore)
        async throws(StoreError) -> Int64? {
        try await store.amount(forKey: fundingChildFeeKey(swapID), what: "the funding child fee recorded for swap \(swapID)")
    }

    /// Called while the funding is in the mempool, unconfirmed (at each block the machine
    /// sends it again). Once it has waited `fundingBumpAfterBlocks` and pays less than the
    /// estimate at the lock's target, the wallet spends its change in a child that brings
    /// the package to the estimate. One try per tip; none while something already spends
    /// it in the mempool (a child made before, or the provider's claim).
    func liftStuckFunding(_ funding: Transaction, of run: SubmarineClientRun) async {
        // The follower's tip, the block that brought the machine here: no chain request per
        // block for this (a follower behind the backend only delays the child a block).
        guard let tip = await follower.tip?.height else { return }
        let since = run.fundingUnconfirmedSince ?? tip
        run.fundingUnconfirmedSince = since
        guard tip - since >= Self.fundingBumpAfterBlocks, run.fundingBumpTip != tip, let fee = run.lockFeeSat else { return }
        run.fundingBumpTip = tip
        guard childStillWorthItsFee(for: funding, of: run, tipHeight: tip) else { return }
        guard let estimate = try? await feeEstimator.feeRate(targetBlocks: configuration.lockFeeTargetBlocks),
              estimate.satPerKvB > fee * 1_000 / Int64(max(1, funding.virtualSize)) else { return }
        guard let descendants = try? await chain.mempoolDescendantCount(funding.txid), descendants <= 1 else { return }
        do {
            let child = try await wallet.bumpByChild(of: funding.txid, feeRate: estimate)
            note(run.id, "lock \(funding.txid.hex) unconfirmed for \(tip - since) blocks: child \(child.txid.hex) "
                 + "brings it to \(estimate)")
            await recordFee(of: child, key: Self.fundingChildFeeKey(run.id), what: "the funding's child", of: run)
        } catch {
            note(run.id, "no child for the stuck lock \(funding.txid.hex): \(error)")
        }
    }

    /// Whether a child can still be worth its fee, by the rule a provider gives a swap up
    /// by: the invoice unexpired and a route under the CLTV limit if the lock confirms in the
    /// next block. Past that, without cooperation, the lock waits for the refund at the
    /// timeout however soon it confirms, and the fee market has until then to let it
    /// confirm for nothing more. A cooperative swap is always lifted: the provider that gives
    /// up offers the key-path refund at once, and that refund (paying the estimate for its
    /// own size) confirms promptly only behind a confirmed lock; without the child the coins
    /// could wait for the timeout. Judged on this node's tip and clock: a provider a block or
    /// two ahead may have given up a little earlier, which costs at most one child; stopping
    /// early instead could cost the swap. Said once in the swap's progress.
    private func childStillWorthItsFee(for funding: Transaction, of run: SubmarineClientRun, tipHeight: Int) -> Bool {
        if run.machine.settings.cooperative { return true }
        if run.fundingPastPayWindow { return false }
        // Decoded when the swap was made; should it fail now, lifting is the safe side.
        guard let timeout = run.state.timeoutHeight,
              let invoice = try? SubmarineInvoice(bolt11: run.record.request.invoice) else { return true }
        if SubmarineRules.canStillPay(invoice, timeoutHeight: UInt32(clamping: timeout), tipHeight: UInt32(clamping: tipHeight),
                                      nowUnix: clock.nowUnix, blocksToGo: 1) {
            return true
        }
        run.fundingPastPayWindow = true
        note(run.id, "lock \(funding.txid.hex) still unconfirmed, and the provider can no longer pay the invoice "
             + "(expired, or no route under the CLTV limit); no child: the lock waits for its refund (by height \(timeout) at the latest)")
        return false
    }
}
