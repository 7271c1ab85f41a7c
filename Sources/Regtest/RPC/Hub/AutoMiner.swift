import Bitcoin
import Synchronization
import Transport

/// Mines one block every N seconds while it is on (hub control `hub_automine`), or every
/// N simulated seconds of the hub's `SimulatedClock` (`--block-interval-seconds`, a real
/// interval of N / rate), paying the coinbase to a given script. One background task at most; turning it on again
/// replaces the previous schedule.
public final class AutoMiner: Sendable {
    public struct Schedule: Sendable, Equatable {
        /// Real milliseconds between blocks.
        public let intervalMilliseconds: UInt64
        public let payout: Script

        /// Whole real seconds between blocks (what `hub_automine` was given).
        public var intervalSeconds: Int { Int(intervalMilliseconds / 1_000) }
    }

    private let chain: RegtestChain
    private let sleeper: any Sleeper
    private let state = Mutex<(schedule: Schedule?, task: Task<Void, Never>?)>((nil, nil))
    private let failure = Mutex<String?>(nil)

    init(chain: RegtestChain, sleeper: any Sleeper) {
        self.chain = chain
        self.sleeper = sleeper
    }

    public var schedule: Schedule? { state.withLock { $0.schedule } }

    /// The last mining failure (a hub bug: the kernel refused a block), if any; mining stops then.
    public var lastFailure: String? { failure.withLock { $0 } }

    /// Starts mining every `intervalSeconds` (at least 1), replacing any running schedule.
    public func start(everySeconds intervalSeconds: Int, to payout: Script) {
        start(everyMilliseconds: UInt64(max(1, intervalSeconds)) * 1_000, to: payout)
    }

    /// Starts mining every `intervalMilliseconds` (at least 1), replacing any running
    /// schedule. The simulated clock's block interval is rarely a whole number of real
    /// seconds (600 simulated seconds at rate 400 are 1.5 s).
    public func start(everyMilliseconds intervalMilliseconds: UInt64, to payout: Script) {
        let schedule = Schedule(intervalMilliseconds: max(1, intervalMilliseconds), payout: payout)
        let task = Task { [self] in
            while !Task.isCancelled {
                do {
                    try await self.sleeper.sleep(milliseconds: schedule.intervalMilliseconds)
                } catch {
                    return
                }
                if Task.isCancelled { return }
                do {
                    try self.chain.mine(1, to: schedule.payout)
                } catch {
                    self.failure.withLock { $0 = "\(error)" }
                    return
                }
            }
        }
        let previous = state.withLock { current -> Task<Void, Never>? in
            defer { current = (schedule, task) }
            return current.task
        }
        previous?.cancel()
    }

    /// Stops mining and waits for the background task to end.
    public func stop() async {
        let previous = state.withLock { current -> Task<Void, Never>? in
            defer { current = (nil, nil) }
            return current.task
        }
        previous?.cancel()
        await previous?.value
    }
}
