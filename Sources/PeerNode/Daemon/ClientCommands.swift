import Bitcoin
import HTLC
import Offers
import Synchronization
import Transport

/// The control API's swap commands (`pay`, `swap-out`, `quote`, `max`, `swap claim`,
/// `swap refund`) on top of the client engine, the router and the wallet; the provider
/// engine for manual refunds. Owns the chain follower the engines share, and stops it
/// after the client engine at shutdown (the daemon stops the provider engine first).
final class ClientCommands: SwapCommandService {
    let services: NodeServices
    let engine: ClientEngine
    /// Submarine swaps (savings -> Lightning): `swap-in`, and `pay` to a contact that takes
    /// only Lightning. Nil: those answer `not_available`.
    let submarine: SubmarineClientEngine?
    let provider: ProviderEngine?
    let follower: ChainFollower
    /// Quotes `quote` fetched, for `pay --quote`.
    let heldQuotes = HeldQuotes()
    /// Providers that failed a quote lately, tried last (`RouteRetry`, `QuoteFailures`).
    let quoteFailures = QuoteFailures()
    private let followerTask: Task<Void, Never>
    private let listeners = ProgressListeners<ClientProgress>()
    private let submarineListeners = ProgressListeners<SubmarineClientProgress>()
    private let progressTask: Task<Void, Never>
    private let submarineProgressTask: Task<Void, Never>?

    /// Confirmation target of a direct on-chain payment (about an hour, as `wallet send`).
    static let directSendTarget = 6

    init(services: NodeServices, engine: ClientEngine, submarine: SubmarineClientEngine? = nil, provider: ProviderEngine?,
         follower: ChainFollower, followerTask: Task<Void, Never>) {
        self.services = services
        self.engine = engine
        self.submarine = submarine
        self.provider = provider
        self.follower = follower
        self.followerTask = followerTask
        // The engine has one progress stream; each running command listens to it here.
        let listeners = self.listeners
        progressTask = Task {
            for await event in engine.progress { listeners.send(event) }
        }
        let submarineListeners = self.submarineListeners
        submarineProgressTask = submarine.map { submarine in
            Task {
                for await event in submarine.progress { submarineListeners.send(event) }
            }
        }
    }

    func run(_ command: SwapCommand, progress: @escaping ControlProgress) async throws(ControlError) -> JSONValue {
        let lines = CommandProgress(sink: progress, clock: services.clock)
        let token = listeners.add { lines.engine($0) }
        let submarineToken = submarineListeners.add { lines.submarine($0) }
        defer {
            listeners.remove(token)
            submarineListeners.remove(submarineToken)
        }
        let result: Result<JSONValue, ControlError>
        do {
            try await refuseUntilRecovered(command)
            switch command {
            case .pay(let contact, let amountSat, let options):
                result = .success(try await pay(contact: contact, amountSat: amountSat, options: options, progress: lines))
            case .swapOut(let amountSat, let address, let options):
                result = .success(try await swapOut(amountSat: amountSat, address: address, options: options, progress: lines))
            case .swapIn(let amountSat, let options):
                result = .success(try await swapIn(amountSat: amountSat, options: options, progress: lines))
            case .quote(let amountSat, let contact, let options):
                result = .success(try await quote(amountSat: amountSat, contact: contact, options: options, progress: lines))
            case .max(let contact, let options):
                result = .success(try await max(contact: contact, options: options, progress: lines))
            case .claim(let swapID):
                result = .success(try await claim(swapID: swapID, progress: lines))
            case .refund(let swapID):
                result = .success(try await refund(swapID: swapID, progress: lines))
            }
        } catch {
            result = .failure(error)
        }
        // Every progress line goes out before the result does.
        await lines.finish()
        return try result.get()
    }

    /// Commands that start client swaps wait for a recovery scan after the database was
    /// found new or stale at start-up (`RecoveryFlag`, audit H-5).
    private func refuseUntilRecovered(_ command: SwapCommand) async throws(ControlError) {
        let name: String
        switch command {
        case .pay: name = "pay"
        case .swapOut: name = "swap-out"
        case .swapIn: name = "swap-in"
        case .quote: name = "quote"
        case .max, .claim, .refund: return
        }
        let reason: String?
        do { reason = try await RecoveryFlag.reason(in: services.store) } catch { throw .failed("the store failed: \(error)") }
        if let reason {
            throw RecoveryRequiredError.scanRequired(reason: reason, command: name, network: services.config.network).controlError
        }
    }

    func shutdown() async {
        await engine.shutDown()
        await submarine?.shutDown()
        progressTask.cancel()
        submarineProgressTask?.cancel()
        followerTask.cancel()
        await follower.finish()
    }
}

/// The commands listening to an engine's progress, each with its own filter.
final class ProgressListeners<Event: Sendable>: Sendable {
    private let state = Mutex<(next: UInt64, listeners: [UInt64: @Sendable (Event) -> Void])>((1, [:]))

    func add(_ listener: @escaping @Sendable (Event) -> Void) -> UInt64 {
        state.withLock { state in
            let token = state.next
            state.next += 1
            state.listeners[token] = listener
            return token
        }
    }

    func remove(_ token: UInt64) {
        _ = state.withLock { $0.listeners.removeValue(forKey: token) }
    }

    func send(_ event: Event) {
        for listener in state.withLock({ Array($0.listeners.values) }) { listener(event) }
    }
}

/// One command's progress lines: `{"stage", "detail", "swap_id"?, "elapsed_ms"}` in the
/// order they happen, forwarded to the control client by one task so they never race.
final class CommandProgress: Sendable {
    private let started = ContinuousClock.now
    private let clock: any UnixClock
    private let lines: AsyncStream<JSONValue>.Continuation
    private let forwarder: Task<Void, Never>
    /// The swap this command runs, once the engine names it (`bind`, before the swap's
    /// first event): events of other swaps are not this command's. Events without an id
    /// (quoting) pass until then; two `pay` commands quoting at the same instant may each
    /// see the other's quoting line.
    private let swapID = Mutex<String?>(nil)

    init(sink: @escaping ControlProgress, clock: any UnixClock) {
        self.clock = clock
        let (stream, continuation) = AsyncStream.makeStream(of: JSONValue.self)
        lines = continuation
        forwarder = Task {
            for await line in stream { await sink(line) }
        }
    }

    var elapsedMilliseconds: Int64 {
        let elapsed = started.duration(to: .now).components
        return elapsed.seconds * 1_000 + elapsed.attoseconds / 1_000_000_000_000_000
    }

    /// A stage of the command itself (routing, asking for the address, ...).
    func stage(_ stage: String, _ detail: String, swapID: String? = nil) {
        var line: [String: JSONValue] = ["stage": .string(stage), "detail": .string(detail),
                                         "elapsed_ms": .integer(elapsedMilliseconds), "at_unix": .integer(clock.nowUnix)]
        if let swapID { line["swap_id"] = .string(swapID) }
        lines.yield(.object(line))
    }

    /// Binds the command to its swap (the engine's id for it).
    func bind(_ id: String) {
        swapID.withLock { $0 = $0 ?? id }
    }

    /// An engine event, if it belongs to this command's swap.
    func engine(_ event: ClientProgress) {
        let mine: Bool = swapID.withLock { bound in
            switch (bound, event.swapID) {
            case (nil, nil): return true
            // Not bound yet: a swap of a command running beside this one (pays at once).
            case (nil, _?): return false
            case (_?, nil): return false
            case (let bound?, let id?): return bound == id
            }
        }
        if mine { stage(event.stage.description, event.detail, swapID: event.swapID) }
    }

    /// A submarine engine event, if it belongs to this command's swap (the same filter).
    func submarine(_ event: SubmarineClientProgress) {
        let mine: Bool = swapID.withLock { bound in
            switch (bound, event.swapID) {
            case (nil, nil): return true
            case (let bound?, let id?): return bound == id
            default: return false
            }
        }
        if mine { stage(event.stage, event.detail, swapID: event.swapID) }
    }

    func finish() async {
        lines.finish()
        await forwarder.value
    }
}
