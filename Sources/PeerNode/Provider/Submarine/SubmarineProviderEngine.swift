import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

/// The provider side of submarine (`onchain_to_ln`) swaps: answers the onchain_to_ln
/// SwapRequest and drives every such swap through `SubmarineProviderMachine`: wait for the
/// client's lock to confirm, pay its invoice, claim the lock with the preimage.
///
/// A separate shell from the reverse engine (`ProviderEngine`) with the same plumbing: the
/// store, the chain follower, the wallet (claim destinations), the fee estimator, the key
/// chain and LND come from the same `ProviderDependencies`. Each swap has a mailbox: its
/// inputs are handled one at a time, in order. For each input the machine decides; the
/// engine stores the new state durably first, then runs the actions and feeds their
/// results back (so `pay` always follows a stored `payment_intent`). `start()` resumes every
/// unfinished submarine swap from its last event.
public actor SubmarineProviderEngine {
    public nonisolated let configuration: SubmarineProviderConfiguration
    nonisolated let dependencies: ProviderDependencies
    /// How the engine reaches a client over the connection it opened: a push (the
    /// cooperative refund's offer) and a request (the cooperative claim's co-signature).
    /// Without them the engine never cooperates.
    let push: ProviderPush?
    let request: ProviderRequest?
    /// Lightning amounts promised to accepted, unpaid swaps; the desk's state subtracts them.
    public nonisolated let liquidity: SubmarineLiquidity
    let log: ProviderLog
    var risk: RiskLimits
    var peerLines = LogThrottle()

    var swaps: [String: SubmarineProviderRecord] = [:]
    var states: [String: SubmarineProviderState] = [:]
    /// Each swap's inputs, handled one at a time (`process`).
    let mailboxes = SwapMailboxes<SubmarineProviderInput>()
    /// The payment stream (or its tracking) per swap: at most one, so a payment is
    /// followed once and never sent twice.
    var payments: [String: Task<Void, Never>] = [:]
    /// One look at a payment's state while its stream is open (`lookUpPayment`).
    var paymentLookups: [String: Task<Void, Never>] = [:]
    /// SwapRequests being set up, by quote id: a resend waits for the first.
    var settingUp: [String: Task<[UInt8], Never>] = [:]
    var watchID: UInt64?
    var newBlocks = NewBlockFilter()
    private var chainTask: Task<Void, Never>?
    /// Contract scripts, recorded locks' txids and outpoints, by swap.
    var scripts: [Script: String] = [:]
    var lockTxids: [TransactionID: String] = [:]
    var lockOutpoints: [OutPoint: String] = [:]
    /// The tip at which each swap's claim was last replaced: one bump per tip.
    var claimBumpTips: [String: UInt32] = [:]
    /// The provider's own Lightning node key (an invoice paying it is refused), read once.
    var ownNodeID: PublicKey?
    /// The tip the follower last reported (for spends it reports between blocks).
    var lastTipHeight: UInt32 = 0
    /// Each open cooperative claim round's secret nonce, in memory only (never stored),
    /// taken out by the request so it signs at most once.
    var coopRounds: [String: SubmarineCoopRoundHolder] = [:]

    public init(dependencies: ProviderDependencies, configuration: SubmarineProviderConfiguration,
                riskSettings: RiskLimits.Settings = RiskLimits.Settings(), liquidity: SubmarineLiquidity = SubmarineLiquidity(),
                push: ProviderPush? = nil, request: ProviderRequest? = nil, log: ProviderLog = .silent) {
        self.dependencies = dependencies
        self.push = push
        self.request = request
        self.configuration = configuration
        self.liquidity = liquidity
        self.log = log
        risk = RiskLimits(settings: riskSettings, clock: dependencies.clock)
    }

    public nonisolated var identity: NodeIdentity { dependencies.desk.identity }

    // MARK: life cycle

    /// Starts following the chain for the engine's contracts, then resumes every unfinished
    /// submarine swap: each gets `.recover`, handled before this returns.
    public func start() async throws(ProviderError) {
        if watchID == nil {
            let watch = await dependencies.follower.register(WatchFilter(), confirmationDepth: SubmarineProviderMachine.claimFinalDepth)
            watchID = watch.id
            chainTask = Task { [weak self] in
                for await event in watch.events { await self?.handle(event) }
            }
        }
        try await recover()
    }

    /// Resumes every unfinished submarine swap from its last stored event.
    func recover() async throws(ProviderError) {
        let store = dependencies.store
        let unfinished: [SwapRecord]
        do {
            unfinished = try await store.unfinishedSwaps(role: .provider)
        } catch {
            throw .store(error)
        }
        var loaded: [(SubmarineProviderRecord, SubmarineProviderState)] = []
        for record in unfinished where SubmarineProviderRecord.isSubmarine(record) && swaps[record.id] == nil {
            do {
                let swap = try SubmarineProviderRecord(record: record, network: configuration.network)
                guard let event = try await store.lastEvent(of: record.id) else {
                    throw ProviderError.corruptRecord("submarine swap \(record.id) has no events")
                }
                loaded.append((swap, try SubmarineProviderState(kind: event.kind, data: event.data)))
            } catch {
                // One unreadable swap must not stop the others from being finished.
                log("submarine swap \(record.id) cannot be resumed: \(error)")
            }
        }
        risk.restore(from: loaded.filter { Self.holdsRisk($0.1) }.map { swap, state in
            RiskLimits.ActiveSwap(swapID: swap.swapID, peer: swap.client, amountSat: swap.amountSat,
                                  startedUnix: UInt64(max(swap.record.createdAt, 0)), paid: Self.isCommitted(state))
        })
        for (swap, state) in loaded where Self.holdsPromise(state) {
            liquidity.restore(promise(for: swap), for: swap.swapID)
        }
        for (swap, state) in loaded {
            log("submarine swap \(swap.swapID) resumes at \(state)")
            swaps[swap.swapID] = swap
            states[swap.swapID] = state
            await watchScript(swap)
            if let lock = state.lock { await watchLockOutput(lock, swapID: swap.swapID) }
        }
        // Locks (and their spends) that came while the node was down: the follower reports
        // them again from the oldest accept on, matched against the watch just completed.
        if let lowest = loaded.map({ $0.0.acceptedAtHeight }).min() {
            await dependencies.follower.rescan(fromHeight: Int(lowest))
        }
        for (swap, _) in loaded {
            openMailbox(swap.swapID)
            await process(swap.swapID, .recover)
        }
    }

    /// Stops every task of the engine (swaps stay where the store has them; a new engine
    /// resumes them). In-flight actions are abandoned, as a crash would.
    public func shutdown() async {
        chainTask?.cancel()
        chainTask = nil
        if let watchID { await dependencies.follower.unregister(watchID) }
        watchID = nil
        mailboxes.closeAll()
        for task in payments.values { task.cancel() }
        for task in paymentLookups.values { task.cancel() }
        for id in swaps.keys { liquidity.release(id) }
        payments = [:]
        paymentLookups = [:]
        swaps = [:]
        states = [:]
        scripts = [:]
        lockTxids = [:]
        lockOutpoints = [:]
        claimBumpTips = [:]
        coopRounds = [:]
    }

    /// The state of a swap this engine drives, or nil when it runs no such swap.
    public func state(of swapID: String) -> SubmarineProviderState? { states[swapID] }

    /// Ids of the swaps being driven.
    public var activeSwapIDs: [String] { Array(states.keys).sorted() }

    // MARK: driving swaps

    func deliver(_ input: SubmarineProviderInput, to swapID: String) {
        mailboxes.deliver(input, to: swapID)
    }

    /// Queues an input and returns once the swap has handled it (its transition stored and
    /// its actions run), in order with the swap's other inputs: for a request whose answer
    /// depends on the outcome (a cooperative refund's co-signature).
    func deliverAndWait(_ input: SubmarineProviderInput, to swapID: String) async {
        await mailboxes.deliverAndWait(input, to: swapID)
    }

    func openMailbox(_ swapID: String) {
        mailboxes.open(swapID) { [weak self] input in await self?.process(swapID, input) }
    }

    /// One input: decide, store the transition, run the actions, feed their results back.
    func process(_ swapID: String, _ input: SubmarineProviderInput) async {
        guard let swap = swaps[swapID], let state = states[swapID] else { return }
        let step = SubmarineProviderMachine(context: context(of: swap)).step(state, input)
        if let next = step.next, next != state {
            do {
                _ = try await dependencies.store.append(next.kind.rawValue, data: next.eventData, isFinal: next.isFinal,
                                                        to: swapID, at: Int64(dependencies.clock.nowUnix))
            } catch {
                // Not stored, so not done: the actions it announces (a payment) must not run.
                log("submarine swap \(swapID): storing \(next.kind.rawValue) failed: \(error)")
                return
            }
            log("submarine swap \(swapID): \(state.kind.rawValue) -> \(next)")
            states[swapID] = next
            if let lock = next.lock { await watchLockOutput(lock, swapID: swapID) }
            if !Self.holdsPromise(next) { liquidity.release(swapID) }
            if !Self.holdsRisk(next) {
                risk.release(swapID: swapID)
            } else if Self.isCommitted(next) {
                // The client's lock is confirmed: no longer a free accept but exposure. Its
                // amount was checked against the exposure limits at the accept.
                do { try risk.markPaid(swapID: swapID) } catch { log("submarine swap \(swapID): \(error)") }
            }
        }
        let entered = states[swapID]
        for action in step.actions {
            guard let current = states[swapID] else { return }
            let result = await perform(action, swap: swap, state: current)
            if let result { await process(swapID, result) }
            // A result that moved the swap on makes the rest of this list stale.
            if states[swapID] != entered { break }
        }
        if let final = states[swapID], final.isFinal { finish(swapID) }
    }

    /// Until its payment leaves (LND's balance then shows it), a swap holds its promise of
    /// Lightning liquidity.
    static func holdsPromise(_ state: SubmarineProviderState) -> Bool {
        switch state {
        case .accepted, .lockSeen, .lockConfirmed, .paymentIntent: return true
        default: return false
        }
    }

    /// Whether a swap still counts against the risk limits: every unfinished one but a swap
    /// that gave up before paying (`SubmarineProviderState.gaveUpBeforePaying`), which will never pay
    /// and only waits for the client to take its refund. A client that locks, lets the
    /// provider give up and never takes the refund would otherwise hold its share of the
    /// limits until the timeout.
    static func holdsRisk(_ state: SubmarineProviderState) -> Bool {
        !state.isFinal && !state.gaveUpBeforePaying
    }

    /// From the confirmed lock on, a swap is the provider's exposure (the risk limits'
    /// "paid"); before it, an accept that costs the client nothing yet.
    static func isCommitted(_ state: SubmarineProviderState) -> Bool {
        switch state {
        case .accepted, .lockSeen: return false
        default: return true
        }
    }

    /// The invoice amount and the routing fee allowed on top.
    func promise(for swap: SubmarineProviderRecord) -> Int64 {
        swap.amountSat + configuration.routingReserve.fee(paymentSat: swap.amountSat)
    }

    private func finish(_ swapID: String) {
        risk.release(swapID: swapID)
        liquidity.release(swapID)
        claimBumpTips[swapID] = nil
        coopRounds[swapID] = nil
        payments.removeValue(forKey: swapID)?.cancel()
        mailboxes.close(swapID)
        for (script, owner) in scripts where owner == swapID { scripts[script] = nil }
        for (txid, owner) in lockTxids where owner == swapID { lockTxids[txid] = nil }
        for (outpoint, owner) in lockOutpoints where owner == swapID { lockOutpoints[outpoint] = nil }
        swaps[swapID] = nil
        states[swapID] = nil
    }
}
