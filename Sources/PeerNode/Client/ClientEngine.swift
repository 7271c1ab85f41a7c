import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

/// The client side of reverse swaps (Lightning -> on-chain), DESIGN section 1: quote,
/// commit, pay the hold invoice, wait for the provider's lock, verify it, claim it to the
/// destination, push the preimage, and follow the claim until it confirms.
///
/// The decisions are `ClientSwapMachine`'s; this actor performs its actions. Every
/// transition is written to the `SwapStore` before any later action that reaches outside
/// the process (`process`: steps with nothing done outside between them share one write),
/// so a crash between an intent and its act leaves a record that says what may have
/// happened, and `recover()` resumes every unfinished swap from there. Each swap runs
/// its inputs one at a time in its own task; actions that wait (the payment, timers)
/// run in tasks that feed inputs back.
///
/// Never logged or reported: the preimage and the keys (they derive from the seed and
/// the swap index, and are not stored either).
public actor ClientEngine {
    public nonisolated let configuration: ClientEngineConfiguration
    /// Every step of every swap, with timestamps.
    public nonisolated let progress: AsyncStream<ClientProgress>
    let progressSink: AsyncStream<ClientProgress>.Continuation

    let keyChain: SwapKeyChain
    let store: any SwapStore
    let lightning: any LightningBackend
    let chain: any ChainBackend
    let feeEstimator: FeeEstimator
    let follower: ChainFollower
    let connector: ClientProviderConnector
    let clock: any UnixClock
    let sleeper: any Sleeper
    let log: @Sendable (String) -> Void

    var runs: [String: ClientSwapRun] = [:]
    var links: [Pubky: ClientProviderLink] = [:]
    var watchID: UInt64?
    var watchTask: Task<Void, Never>?
    /// Keeps the blocks a rescan reports again from reaching the swaps as new ones.
    var newBlocks = NewBlockFilter()
    var nextObserver: UInt64 = 0
    /// Payments followed after their swap ended, until LND's final update records the
    /// routing fee or the held payment's end (`ClientEngine+LatePayment`), by swap id; and
    /// the restart's search for them.
    var paymentWatches: [String: Task<Void, Never>] = [:]
    var paymentSearch: Task<Void, Never>?

    public init(configuration: ClientEngineConfiguration, seed: [UInt8], store: any SwapStore,
                lightning: any LightningBackend, chain: any ChainBackend, feeEstimator: FeeEstimator,
                follower: ChainFollower, connector: @escaping ClientProviderConnector, clock: any UnixClock,
                sleeper: any Sleeper, log: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.configuration = configuration
        keyChain = try SwapKeyChain(seed: seed, network: configuration.network)
        self.store = store
        self.lightning = lightning
        self.chain = chain
        self.feeEstimator = feeEstimator
        self.follower = follower
        self.connector = connector
        self.clock = clock
        self.sleeper = sleeper
        self.log = log
        (progress, progressSink) = AsyncStream.makeStream(of: ClientProgress.self, bufferingPolicy: .bufferingNewest(4_096))
    }

    /// The state of a swap this engine runs now, or nil.
    public func state(of swapID: String) -> ClientSwapState? { runs[swapID]?.state }

    /// Stops every swap's tasks and connections without touching their records (a
    /// restart resumes them). For shutdown, and for tests that simulate a crash.
    public func shutDown() async {
        for run in runs.values { stopTasks(of: run) }
        runs = [:]
        for watch in paymentWatches.values { watch.cancel() }
        paymentWatches = [:]
        paymentSearch?.cancel()
        paymentSearch = nil
        watchTask?.cancel()
        watchTask = nil
        if let watchID { await follower.unregister(watchID) }
        watchID = nil
        for link in links.values { await link.stop() }
        links = [:]
        progressSink.finish()
    }

    // MARK: running swaps

    /// Starts a swap's input loop. Inputs are handled one at a time, in order.
    func start(_ run: ClientSwapRun, stream: AsyncStream<ClientSwapInput>) {
        runs[run.id] = run
        let id = run.id
        run.loop = Task { [weak self] in
            for await input in stream {
                guard let self else { return }
                if await !self.process(id, input) { return }
            }
        }
    }

    /// Handles one input; false once the swap's loop should end.
    ///
    /// Steps are written before any action that needs them on disk (one that reaches
    /// outside the process, ends the run or starts a cooperative round:
    /// `ClientSwapAction.needsStepsWritten`), and otherwise once no input is waiting: the
    /// steps a burst of inputs records with nothing done outside between them (the accept
    /// verified and the payment's intent; the lock seen and verified) take one write.
    func process(_ id: String, _ input: ClientSwapInput) async -> Bool {
        guard let run = runs[id] else { return false }
        run.queuedInputs = max(0, run.queuedInputs - 1)
        let actions = run.machine.handle(input)
        do {
            for action in actions {
                guard runs[id] === run else { return false }
                if action.needsStepsWritten { try await writeSteps(of: run) }
                await perform(action, for: run)
            }
            if runs[id] === run, Self.writesStepsNow(queuedInputs: run.queuedInputs, unwritten: run.unwrittenSteps.count) {
                try await writeSteps(of: run)
            }
        } catch {
            // A failed write: nothing after it may happen. The record on disk is the
            // last good state, and a restart resumes from it.
            log("swap \(id): stopped, \(error)")
            report(run.id, .note, "stopped: \(error); it resumes when the node restarts")
            stopTasks(of: run)
            runs[id] = nil
            notify(run, finished: true)
            return false
        }
        notify(run, finished: run.state.phase.isFinal)
        return !run.state.phase.isFinal
    }

    /// At most this many steps wait for a write, whatever keeps inputs queued: a provider
    /// that pushes status updates without pause cannot hold a swap's steps in memory.
    static let unwrittenStepLimit = 8

    /// Whether the steps recorded so far are written at the end of an input, with no
    /// action asking for it: once nothing is queued, or once `unwrittenStepLimit` wait.
    static func writesStepsNow(queuedInputs: Int, unwritten: Int) -> Bool {
        queuedInputs == 0 || unwritten >= unwrittenStepLimit
    }

    /// Writes the swap's recorded steps in one transaction. Only the swap's own loop calls
    /// it, one write at a time, so the log keeps the steps' order.
    func writeSteps(of run: ClientSwapRun) async throws(ClientEngineError) {
        guard !run.unwrittenSteps.isEmpty else { return }
        let steps = run.unwrittenSteps
        run.unwrittenSteps = []
        let id = run.id
        _ = try await storeCall { () async throws(StoreError) in try await store.append(steps, to: id) }
    }

    func feed(_ id: String, _ input: ClientSwapInput) {
        guard let run = runs[id] else { return }
        run.queuedInputs += 1
        run.inputs.yield(input)
    }

    func stopTasks(of run: ClientSwapRun) {
        run.giveUpTimer?.cancel()
        run.payment?.cancel()
        run.inputs.finish()
        run.loop?.cancel()
    }

    // MARK: observing

    /// The swap's state after each handled input, ending when the swap ends or stops.
    func observe(_ run: ClientSwapRun) -> AsyncStream<ClientSwapState> {
        let (stream, continuation) = AsyncStream.makeStream(of: ClientSwapState.self)
        nextObserver += 1
        run.observers[nextObserver] = continuation
        continuation.yield(run.state)
        return stream
    }

    func notify(_ run: ClientSwapRun, finished: Bool) {
        for observer in run.observers.values {
            observer.yield(run.state)
            if finished { observer.finish() }
        }
        if finished { run.observers = [:] }
    }

    func report(_ swapID: String?, _ stage: ClientProgress.Stage, _ detail: String) {
        let event = ClientProgress(swapID: swapID, stage: stage, atUnix: clock.nowUnix, detail: detail)
        log(event.description)
        progressSink.yield(event)
    }

    // MARK: providers

    func link(for contact: Offers.Contact) -> ClientProviderLink {
        if let existing = links[contact.pubky], existing.contact == contact { return existing }
        let pubky = contact.pubky
        let link = ClientProviderLink(
            contact: contact, connector: connector, sleeper: sleeper,
            initialBackoffMilliseconds: configuration.reconnectInitialMilliseconds,
            maximumBackoffMilliseconds: configuration.reconnectMaximumMilliseconds,
            onPush: { [weak self] bytes in await self?.received(push: bytes, from: pubky) },
            onReconnect: { [weak self] in await self?.reconnected(to: pubky) })
        links[contact.pubky] = link
        return link
    }
}
