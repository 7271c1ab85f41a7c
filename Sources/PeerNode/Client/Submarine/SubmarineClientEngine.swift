import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

/// The client side of submarine swaps (on-chain -> Lightning): quote, send the invoice and
/// our refund key, verify the signed accept, fund the lock from the wallet, record it
/// (`lock_intent`) and broadcast it, then follow the chain until the provider's claim
/// reveals the preimage (the proof of payment) or, from the timeout on, refund it.
///
/// The decisions are `SubmarineClientMachine`'s; this actor performs its actions. Every
/// transition is written to the `SwapStore` before the actions that follow it, and
/// `recover()` resumes every unfinished swap from its last event. It shares the store, the
/// chain follower, the wallet, the fee estimator and the seed with the reverse
/// `ClientEngine`; its records are role `client` marked `"direction": "onchain_to_ln"`
/// (`SubmarineClientRecord`), and its refund key is the refund branch of a freshly reserved
/// swap index, a key no reverse swap uses (they take the claim key and the preimage).
///
/// Never logged: keys. The preimage is reported only once learned: it is the payee's
/// secret made public by the payment.
public actor SubmarineClientEngine {
    public nonisolated let configuration: SubmarineClientConfiguration
    public nonisolated let progress: AsyncStream<SubmarineClientProgress>
    let progressSink: AsyncStream<SubmarineClientProgress>.Continuation

    let keyChain: SwapKeyChain
    let store: any SwapStore
    let wallet: Wallet
    let lightning: any LightningBackend
    let chain: any ChainBackend
    let feeEstimator: FeeEstimator
    let follower: ChainFollower
    let connector: ClientProviderConnector
    let clock: any UnixClock
    let sleeper: any Sleeper
    let log: @Sendable (String) -> Void

    var runs: [String: SubmarineClientRun] = [:]
    /// Invoices (by payment hash) a `pay` is checking and recording now, with its swap id
    /// (`SubmarineInvoiceIndex`).
    var invoicesBeingRecorded: [[UInt8]: String] = [:]
    var links: [Pubky: ClientProviderLink] = [:]
    var watchID: UInt64?
    var watchTask: Task<Void, Never>?
    var newBlocks = NewBlockFilter()
    var nextObserver: UInt64 = 0

    public init(configuration: SubmarineClientConfiguration, seed: [UInt8], store: any SwapStore, wallet: Wallet,
                lightning: any LightningBackend, chain: any ChainBackend, feeEstimator: FeeEstimator,
                follower: ChainFollower, connector: @escaping ClientProviderConnector, clock: any UnixClock,
                sleeper: any Sleeper, log: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.configuration = configuration
        keyChain = try SwapKeyChain(seed: seed, network: configuration.network)
        self.store = store
        self.wallet = wallet
        self.lightning = lightning
        self.chain = chain
        self.feeEstimator = feeEstimator
        self.follower = follower
        self.connector = connector
        self.clock = clock
        self.sleeper = sleeper
        self.log = log
        (progress, progressSink) = AsyncStream.makeStream(of: SubmarineClientProgress.self,
                                                          bufferingPolicy: .bufferingNewest(4_096))
    }

    /// The state of a swap this engine runs now, or nil.
    public func state(of swapID: String) -> SubmarineClientState? { runs[swapID]?.state }

    /// The ids of the swaps running now.
    public var runningSwapIDs: [String] { Array(runs.keys) }

    /// Stops every swap's tasks and connections without touching their records (a restart
    /// resumes them). For shutdown, and for tests that simulate a crash.
    public func shutDown() async {
        for run in runs.values { stopTasks(of: run) }
        runs = [:]
        watchTask?.cancel()
        watchTask = nil
        if let watchID { await follower.unregister(watchID) }
        watchID = nil
        for link in links.values { await link.stop() }
        links = [:]
        progressSink.finish()
    }

    // MARK: running swaps

    func makeRun(id: String, index: UInt32, record: SubmarineClientRecord, refundKey: PrivateKey,
                 state: SubmarineClientState) -> SubmarineClientRun {
        let settings = SubmarineClientMachine.Settings(terms: record.terms,
                                                       finalityConfirmations: configuration.finalityConfirmations,
                                                       // Regtest tests only (SubmarineLockFault): a short lock.
                                                       testLockShortfallSat: configuration.lockFault?.shortfallSat ?? 0)
        let (stream, continuation) = AsyncStream.makeStream(of: SubmarineClientInput.self)
        let run = SubmarineClientRun(id: id, index: index, record: record, refundKey: refundKey,
                                     machine: SubmarineClientMachine(settings: settings, state: state), inputs: continuation)
        runs[id] = run
        run.loop = Task { [weak self] in
            for await input in stream {
                guard let self else { return }
                if await !self.process(id, input) { return }
            }
        }
        return run
    }

    /// Handles one input; false once the swap's loop should end.
    func process(_ id: String, _ input: SubmarineClientInput) async -> Bool {
        guard let run = runs[id] else { return false }
        let actions = run.machine.handle(input)
        for action in actions {
            guard runs[id] === run else { return false }
            do {
                try await perform(action, for: run)
            } catch {
                // A failed write: nothing after it may happen. The record on disk is the
                // last good state, and a restart resumes from it.
                log("submarine swap \(id): stopped, \(error)")
                report(id, SubmarineClientProgress.note, "stopped: \(error); it resumes when the node restarts")
                stopTasks(of: run)
                runs[id] = nil
                run.handledInputs += 1
                notify(run, finished: true)
                return false
            }
        }
        run.handledInputs += 1
        notify(run, finished: run.state.phase.isFinal)
        return !run.state.phase.isFinal
    }

    func feed(_ id: String, _ input: SubmarineClientInput) {
        guard let run = runs[id] else { return }
        run.fedInputs += 1
        run.inputs.yield(input)
    }

    /// Feeds `input` and returns once the machine has handled it (its record stored, its
    /// actions run), or the swap stopped: for an answer that depends on the outcome.
    func feedAndWait(_ input: SubmarineClientInput, to run: SubmarineClientRun) async {
        let updates = observe(run)
        feed(run.id, input)
        let mine = run.fedInputs
        for await _ in updates where run.handledInputs >= mine { return }
    }

    func stopTasks(of run: SubmarineClientRun) {
        run.invoiceWatch?.cancel()
        run.inputs.finish()
        run.loop?.cancel()
    }

    // MARK: observing

    /// The swap's state after each handled input, ending when the swap ends or stops.
    func observe(_ run: SubmarineClientRun) -> AsyncStream<SubmarineClientState> {
        let (stream, continuation) = AsyncStream.makeStream(of: SubmarineClientState.self)
        nextObserver += 1
        run.observers[nextObserver] = continuation
        continuation.yield(run.state)
        return stream
    }

    func notify(_ run: SubmarineClientRun, finished: Bool) {
        for observer in run.observers.values {
            observer.yield(run.state)
            if finished { observer.finish() }
        }
        if finished { run.observers = [:] }
    }

    func report(_ swapID: String?, _ stage: String, _ detail: String) {
        let event = SubmarineClientProgress(swapID: swapID, stage: stage, atUnix: clock.nowUnix, detail: detail)
        log(event.description)
        progressSink.yield(event)
    }

    func note(_ id: String, _ detail: String) { report(id, SubmarineClientProgress.note, detail) }

    // MARK: providers

    func link(for contact: Offers.Contact) -> ClientProviderLink {
        if let existing = links[contact.pubky], existing.contact == contact { return existing }
        let pubky = contact.pubky
        let link = ClientProviderLink(
            contact: contact, connector: connector, sleeper: sleeper,
            initialBackoffMilliseconds: configuration.reconnectInitialMilliseconds,
            maximumBackoffMilliseconds: configuration.reconnectMaximumMilliseconds,
            // The chain (the provider's claim) or the node's own settled invoice tells the
            // client the invoice is paid; the provider's one push offers a cooperative
            // refund, and its one request asks the client to co-sign its claim (issue 17).
            onPush: { [weak self] bytes in await self?.received(push: bytes, from: pubky) }, onReconnect: {},
            onRequest: { [weak self] bytes in
                await self?.answer(providerRequest: bytes, from: pubky)
                    ?? Reject(requestID: (try? MessageEnvelope.parse(bytes))?.requestID ?? "unknown", code: .internal,
                              reason: "this client is shutting down").encoded
            })
        links[contact.pubky] = link
        return link
    }

    func storeCall<T: Sendable>(_ body: () async throws(StoreError) -> T) async throws(ClientEngineError) -> T {
        do { return try await body() } catch { throw .store(error.description) }
    }
}
