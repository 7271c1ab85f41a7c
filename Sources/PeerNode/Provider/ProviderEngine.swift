import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

/// What the provider engine works with; the daemon builds these once.
public struct ProviderDependencies: Sendable {
    public var store: any SwapStore
    /// Answers offers and quotes, and hands out each quote once (`redeem`).
    public var desk: ProviderDesk
    public var lightning: any LightningBackend
    public var chain: any ChainBackend
    public var feeEstimator: FeeEstimator
    public var wallet: Wallet
    /// The engine registers one watch for its locks and reads blocks from it; whoever owns
    /// the follower runs it (`run()`, or `poll()` in tests).
    public var follower: ChainFollower
    /// The node seed's swap keys for the engine's network: a swap's refund key is
    /// `secrets(index:scheme:).refundKey` with its record's index and scheme.
    public var keyChain: SwapKeyChain
    public var clock: any UnixClock

    public init(store: any SwapStore, desk: ProviderDesk, lightning: any LightningBackend, chain: any ChainBackend,
                feeEstimator: FeeEstimator, wallet: Wallet, follower: ChainFollower, keyChain: SwapKeyChain,
                clock: any UnixClock) {
        self.store = store
        self.desk = desk
        self.lightning = lightning
        self.chain = chain
        self.feeEstimator = feeEstimator
        self.wallet = wallet
        self.follower = follower
        self.keyChain = keyChain
        self.clock = clock
    }
}

/// The provider side of reverse swaps: answers SwapRequest, SwapStatusRequest,
/// CoopClaimRequest and PreimagePush, and drives every swap through `ProviderSwapMachine`: hold invoice, lock,
/// settle on the preimage, or refund after the timeout.
///
/// Each swap has a mailbox: its inputs (invoice updates, blocks, spends, pushes) are
/// handled one at a time, in order. For each input the machine decides; the engine stores
/// the new state (durably) first, then runs the actions and feeds their results back in.
/// `start()` resumes every unfinished provider swap from its last event and the chain.
public actor ProviderEngine {
    public nonisolated let configuration: ProviderConfiguration
    nonisolated let dependencies: ProviderDependencies
    let push: ProviderPush
    let log: ProviderLog
    var risk: RiskLimits
    /// Lines a peer's own messages cause are budgeted per peer.
    var peerLines = LogThrottle()
    /// The clients of the swaps below, for the daemon's eviction policy (`ProtectedPeers`).
    public nonisolated let liveClients: LiveSwapPeers

    /// Swaps being driven (unfinished), by id. Every change hands their clients to
    /// `liveClients`, so the set follows the swaps wherever they start, resume or end.
    var swaps: [String: ProviderSwapRecord] = [:] {
        didSet { liveClients.replace(with: Set(swaps.values.map(\.client))) }
    }
    var states: [String: ProviderSwapState] = [:]
    /// Each swap's inputs, handled one at a time (`process`).
    let mailboxes = SwapMailboxes<ProviderSwapInput>()
    var invoiceWatches: [String: Task<Void, Never>] = [:]
    /// SwapRequests being set up, by quote id: a resend waits for the first instead of
    /// racing it.
    var settingUp: [String: Task<[UInt8], Never>] = [:]

    var watchID: UInt64?
    /// Keeps the blocks a rescan reports again (a client engine on this node looking back
    /// for its lock) from reaching the swaps as new ones. It starts empty: the rescan of
    /// `start()` walks the blocks missed while the node was down, each of them news.
    var newBlocks = NewBlockFilter()
    private var chainTask: Task<Void, Never>?
    /// The last invoice state each swap saw (for status displays and diagnostics).
    var invoiceObservations: [String: ProviderInvoiceObservation] = [:]
    var lockTxids: [TransactionID: String] = [:]
    /// The tip at which each swap's refund was last replaced: one bump per tip, even when
    /// the follower delivers several blocks at once while catching up.
    var refundBumpTips: [String: UInt32] = [:]
    /// The tip at which each swap's stuck lock last got a child (CPFP).
    var lockBumpTips: [String: UInt32] = [:]
    /// How many 20 ms waits a lock short of funds spends for another swap's prepared lock to
    /// go out (its change then pays): 10 s in all.
    static let preparedLockWaits = 500
    /// Blocks a lock may stay unconfirmed before it gets a child.
    static let lockBumpAfterBlocks = 2
    /// Blocks between lookups of an open lock's HTLC (every block near its expiry).
    static let htlcCheckInterval: UInt32 = 6
    var lockOutpoints: [OutPoint: String] = [:]

    public init(dependencies: ProviderDependencies, configuration: ProviderConfiguration,
                riskSettings: RiskLimits.Settings = RiskLimits.Settings(),
                push: @escaping ProviderPush, log: ProviderLog = .silent, liveClients: LiveSwapPeers = LiveSwapPeers()) {
        self.dependencies = dependencies
        self.liveClients = liveClients
        self.configuration = configuration
        self.push = push
        self.log = log
        risk = RiskLimits(settings: riskSettings, clock: dependencies.clock)
    }

    public nonisolated var identity: NodeIdentity { dependencies.desk.identity }

    // MARK: life cycle

    /// Starts following the chain for the engine's locks, then resumes every unfinished
    /// provider swap: each gets `.recover`, handled before this returns, so a recorded
    /// lock is re-published (or found on chain) before any new swap can spend a coin.
    public func start() async throws(ProviderError) {
        if watchID == nil {
            let watch = await dependencies.follower.register(WatchFilter(), confirmationDepth: 6)
            watchID = watch.id
            chainTask = Task { [weak self] in
                for await event in watch.events { await self?.handle(event) }
            }
        }
        try await recover()
    }

    /// Resumes every unfinished provider swap from its last stored event.
    func recover() async throws(ProviderError) {
        let store = dependencies.store
        let unfinished: [SwapRecord]
        do {
            unfinished = try await store.unfinishedSwaps(role: .provider)
        } catch {
            throw .store(error)
        }
        var loaded: [(ProviderSwapRecord, ProviderSwapState)] = []
        // Submarine swaps are the submarine engine's (`SubmarineProviderEngine`).
        for record in unfinished where swaps[record.id] == nil && !SubmarineProviderRecord.isSubmarine(record) {
            do {
                let swap = try ProviderSwapRecord(record: record, network: configuration.network)
                guard let event = try await store.lastEvent(of: record.id) else { throw ProviderError.corruptRecord("swap \(record.id) has no events") }
                loaded.append((swap, try ProviderSwapState(event: event)))
            } catch {
                // One unreadable swap must not stop the others from being finished.
                log("provider swap \(record.id) cannot be resumed: \(error)")
            }
        }
        risk.restore(from: loaded.map { swap, state in
            RiskLimits.ActiveSwap(swapID: swap.swapID, peer: swap.client, amountSat: swap.accept.body.amountSat,
                                  startedUnix: UInt64(max(swap.record.createdAt, 0)), paid: state.kind != .invoiceCreated)
        })
        // Spends of our locks while we were down: the follower reports them again.
        if let lowest = loaded.compactMap({ $0.1.lock?.height }).min() {
            await dependencies.follower.rescan(fromHeight: Int(lowest))
        }
        let tip = try? await dependencies.chain.tip()
        for (swap, state) in loaded {
            log("provider swap \(swap.swapID) resumes at \(state)")
            swaps[swap.swapID] = swap
            states[swap.swapID] = state
            await process(swap.swapID, .recover)
            // A lock whose timeout passed while the node was down is refunded now, not at
            // the next block: the blocks it missed may all be old news to the chain watch
            // (a rescan replays them), and the refund's deadline counts from the timeout.
            if let tip, let current = states[swap.swapID], current.kind == .lockBroadcast || current.kind == .lockConfirmed {
                await process(swap.swapID, .block(height: UInt32(clamping: tip.height)))
            }
            if states[swap.swapID] != nil { openMailbox(swap.swapID) }
        }
    }

    /// Stops every task of the engine (swaps stay where the store has them; a new engine
    /// resumes them). In-flight actions are abandoned, which is what a crash would do.
    public func shutdown() async {
        chainTask?.cancel()
        chainTask = nil
        if let watchID { await dependencies.follower.unregister(watchID) }
        watchID = nil
        mailboxes.closeAll()
        for task in invoiceWatches.values { task.cancel() }
        invoiceWatches = [:]
        swaps = [:]
        states = [:]
        lockTxids = [:]
        refundBumpTips = [:]
        lockBumpTips = [:]
        lockOutpoints = [:]
        invoiceObservations = [:]
    }

    /// The state of a swap this engine drives, or nil when it runs no such swap (finished
    /// swaps are in the store).
    public func state(of swapID: String) -> ProviderSwapState? { states[swapID] }

    /// The invoice as a swap last saw it, while the swap runs.
    public func invoiceObservation(of swapID: String) -> ProviderInvoiceObservation? { invoiceObservations[swapID] }

    /// Ids of the swaps being driven.
    public var activeSwapIDs: [String] { Array(states.keys).sorted() }

    // MARK: driving swaps

    /// Queues an input for a swap; its mailbox handles inputs one at a time.
    func deliver(_ input: ProviderSwapInput, to swapID: String) {
        mailboxes.deliver(input, to: swapID)
    }

    /// Queues an input and returns once the swap has handled it (its transition stored and
    /// its actions run), in order with every other input of the swap; at once when the swap
    /// is not driven, or stops first. For a request whose answer depends on the outcome.
    func deliverAndWait(_ input: ProviderSwapInput, to swapID: String) async {
        await mailboxes.deliverAndWait(input, to: swapID)
    }

    func openMailbox(_ swapID: String) {
        mailboxes.open(swapID) { [weak self] input in await self?.process(swapID, input) }
    }

    /// One input: decide, store the transition, run the actions, feed their results back.
    func process(_ swapID: String, _ input: ProviderSwapInput) async {
        guard let swap = swaps[swapID], let state = states[swapID] else { return }
        if case .invoice(let seen) = input { invoiceObservations[swapID] = seen }
        let step = ProviderSwapMachine(context: swap.context).step(state, input)
        if let next = step.next, next != state {
            do {
                _ = try await dependencies.store.append(next.kind.rawValue, data: next.eventData, isFinal: next.isFinal,
                                                        to: swapID, at: Int64(dependencies.clock.nowUnix))
            } catch {
                // Not stored, so not done: the action it announces must not run.
                log("provider swap \(swapID): storing \(next.kind.rawValue) failed: \(error)")
                if case .fundingPrepared(let lock) = input { await dependencies.wallet.discard(lock.txid) }
                return
            }
            log("provider swap \(swapID): \(state.kind.rawValue) -> \(next)")
            states[swapID] = next
            // Once a lock is recorded the engine settles or cancels the invoice itself and
            // reads its state by lookups; the subscription would only hold one of the
            // Lightning client's few connections, which settles need.
            if next.lock != nil { invoiceWatches.removeValue(forKey: swapID)?.cancel() }
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

    /// The swap reached a final state: its funds are free, its watches end. A client whose
    /// swap ended in a refund (it paid, we locked, it never claimed: our coins were tied up
    /// until the timeout) is refused new swaps for a while (audit M-5).
    private func finish(_ swapID: String) {
        risk.release(swapID: swapID)
        if let kind = states[swapID]?.kind, kind == .refunded || kind == .refundedAfterHTLCCancel, let client = swaps[swapID]?.client { risk.coolDown(peer: client) }
        invoiceObservations[swapID] = nil
        refundBumpTips[swapID] = nil
        lockBumpTips[swapID] = nil
        invoiceWatches.removeValue(forKey: swapID)?.cancel()
        // Inputs still queued are never handled: their callers go on.
        mailboxes.close(swapID)
        for (txid, owner) in lockTxids where owner == swapID { lockTxids[txid] = nil }
        for (outpoint, owner) in lockOutpoints where owner == swapID { lockOutpoints[outpoint] = nil }
        swaps[swapID] = nil
        states[swapID] = nil
    }
}
