import Bitcoin
import HTLC
import Offers

/// One live client submarine swap inside the engine: its machine, its record, its refund
/// key (in memory only, re-derived from the seed after a restart), its input queue and the
/// tasks that feed it. Confined to the engine actor.
final class SubmarineClientRun {
    let id: String
    let index: UInt32
    let record: SubmarineClientRecord
    let refundKey: PrivateKey
    var machine: SubmarineClientMachine
    let inputs: AsyncStream<SubmarineClientInput>.Continuation
    var loop: Task<Void, Never>?
    /// Follows the node's own invoice (a swap-in) for the preimage its settlement reveals.
    var invoiceWatch: Task<Void, Never>?
    /// The provider's accept as received (stored with the `accepted` event).
    var accept: Signed<SubmarineSwapAccept>?
    /// A funding the wallet signed and reserved coins for, not yet recorded: discarded if
    /// the swap ends before `lock_intent`.
    var preparedFunding: TransactionID?
    /// What the lock transaction pays in fees (stored with the `lock_intent` event).
    var lockFeeSat: Int64?
    /// The transaction taking the funding's inputs back, once made (reported and its fee
    /// recorded once; the wallet hands the same one back at each later block).
    var fundingWithdrawal: TransactionID?
    /// The tip of the refund's last bump: one bump per block.
    var refundBumpTip: Int?
    /// The tip at which the funding was first found in the mempool, unconfirmed (in memory:
    /// after a restart it counts from then), and the tip of the last try to lift it.
    var fundingUnconfirmedSince: Int?
    var fundingBumpTip: Int?
    /// Set once the provider can no longer pay for the lock (`SubmarineRules.canStillPay`):
    /// from then on no child lifts it, and the progress said so once.
    var fundingPastPayWindow = false
    /// The cooperative refund round being prepared or sent: our half with its secret
    /// nonce, in memory only (never stored; gone with the process). Taken out by the
    /// request, so it signs at most once.
    var coopRefund: CoopRefundInitiator?
    var lastReportedStep: String?
    /// Inputs fed to the machine and handled so far: a caller waits for its own input
    /// (`feedAndWait`) by its position.
    var fedInputs: UInt64 = 0
    var handledInputs: UInt64 = 0
    var observers: [UInt64: AsyncStream<SubmarineClientState>.Continuation] = [:]

    init(id: String, index: UInt32, record: SubmarineClientRecord, refundKey: PrivateKey, machine: SubmarineClientMachine,
         inputs: AsyncStream<SubmarineClientInput>.Continuation) {
        self.id = id
        self.index = index
        self.record = record
        self.refundKey = refundKey
        self.machine = machine
        self.inputs = inputs
    }

    var state: SubmarineClientState { machine.state }
}
