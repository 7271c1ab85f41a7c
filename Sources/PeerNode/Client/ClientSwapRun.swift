import Bitcoin
import HTLC
import Offers

/// One live client swap inside the engine: its machine, what it was agreed from, its
/// secrets (in memory only, re-derived from the seed after a restart), its input queue
/// and its timers. Confined to the engine actor.
final class ClientSwapRun {
    let id: String
    let index: UInt32
    let terms: ClientSwapTerms
    let secrets: SwapSecrets
    var machine: ClientSwapMachine
    var accept: Signed<SwapAccept>?
    var contract: SwapContract?
    /// The tip when the accept was checked: where a rescan for the lock starts.
    var acceptedTip: Int?
    let inputs: AsyncStream<ClientSwapInput>.Continuation
    var loop: Task<Void, Never>?
    var giveUpTimer: Task<Void, Never>?
    var payment: Task<Void, Never>?
    /// Whether a claim was accepted by the chain backend at least once (`pay` says "sent" then).
    var claimAccepted = false
    /// Whether the provider has our PreimagePush (this run); a later push is then skipped.
    var preimageDelivered = false
    /// The cooperative round being prepared or sent: the client's half with its secret
    /// nonce, in memory only (never stored; gone with the process), and the lock it is for.
    /// Taken out by the request, so it signs at most once.
    var coopClient: CoopClaimInitiator?
    /// Set exactly while `coopClient` holds a round.
    var coopLock: OutPoint?
    /// Whether the chain was searched for the lock's spender (a refused claim found the lock
    /// spent): once per run, the follower then reports the spender as it deepens.
    var lockSpenderSearched = false
    /// The last status update's sequence, to drop stale or repeated pushes.
    var lastStatusSequence: UInt64?
    /// The step last reported (phase and detail): storing the same step again (the claim
    /// accepted by this node) is not reported, or logged, a second time.
    var lastReportedStep: String?
    var observers: [UInt64: AsyncStream<ClientSwapState>.Continuation] = [:]
    /// Inputs fed and not handled yet.
    var queuedInputs = 0
    /// Steps recorded and not yet written to the store, oldest first
    /// (`ClientEngine.writeSteps`).
    var unwrittenSteps: [NewSwapEvent] = []

    init(id: String, index: UInt32, terms: ClientSwapTerms, secrets: SwapSecrets, machine: ClientSwapMachine,
         inputs: AsyncStream<ClientSwapInput>.Continuation) {
        self.id = id
        self.index = index
        self.terms = terms
        self.secrets = secrets
        self.machine = machine
        self.inputs = inputs
    }

    var state: ClientSwapState { machine.state }
    var providerSwapID: String? { accept?.body.swapID }
}
