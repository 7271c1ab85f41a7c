#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Offers
import Synchronization
import Transport

/// The daemon's clock under `PEERNODE_TEST_CLOCK=hub`: the regtest hub's simulated time.
/// It polls `hub_clock` in the background and interpolates between answers with the
/// hub's rate on the monotonic clock, so reading it never waits on the network and never
/// blocks the event loop. Readings never go backwards (a later sample a little behind the
/// interpolation holds the time until it catches up).
public final class HubFollowingClock: UnixClock {
    /// One answer of `hub_clock`, pinned to the monotonic instant it stands for.
    private struct Sample {
        var simulatedMilliseconds: Int64
        var monotonicNanoseconds: UInt64
        var rate: Int64
    }

    public enum StartError: Error, CustomStringConvertible {
        case unanswered(String)
        case malformed(String)

        public var description: String {
            switch self {
            case .unanswered(let reason): return "hub_clock did not answer (is bitcoind the regtest hub?): \(reason)"
            case .malformed(let answer): return "hub_clock answered something else than a clock: \(answer)"
            }
        }
    }

    /// Real milliseconds between polls: the rate is fixed for the hub's life, so the polls
    /// only correct drift between the two monotonic clocks and rounding.
    static let pollMilliseconds: UInt64 = 500

    private let rpc: BitcoinCoreRPC
    private let state: Mutex<(sample: Sample, lastRead: UInt64)>
    private let poller = Mutex<Task<Void, Never>?>(nil)

    private init(rpc: BitcoinCoreRPC, first: Sample) {
        self.rpc = rpc
        state = Mutex((first, 0))
    }

    /// Reads the hub's clock once (start-up fails when the hub does not serve one), then
    /// keeps polling every `pollMilliseconds` on `sleeper` until `stop()`.
    public static func start(rpc: BitcoinCoreRPC, sleeper: any Sleeper, log: DaemonLog) async throws(StartError) -> HubFollowingClock {
        let clock = HubFollowingClock(rpc: rpc, first: try await sample(rpc))
        let task = Task { [clock] in
            while !Task.isCancelled {
                do { try await sleeper.sleep(milliseconds: pollMilliseconds) } catch { return }
                do {
                    let next = try await sample(rpc)
                    clock.state.withLock { $0.sample = next }
                } catch {
                    // The interpolation goes on at the last known rate; the next poll retries.
                    log("test clock: \(ErrorText.describe(error))")
                }
            }
        }
        clock.poller.withLock { $0 = task }
        return clock
    }

    /// Stops polling.
    public func stop() async {
        let task = poller.withLock { current -> Task<Void, Never>? in
            defer { current = nil }
            return current
        }
        task?.cancel()
        await task?.value
    }

    public var nowUnix: UInt64 {
        let now = Self.monotonicNanoseconds()
        return state.withLock { state in
            let sample = state.sample
            let elapsed = Int64(now &- sample.monotonicNanoseconds) / 1_000_000
            let simulated = UInt64(max(0, (sample.simulatedMilliseconds + max(0, elapsed) * sample.rate) / 1_000))
            state.lastRead = max(state.lastRead, simulated)
            return state.lastRead
        }
    }

    public func realMilliseconds(forSeconds seconds: UInt64) -> UInt64 {
        let rate = UInt64(state.withLock { $0.sample.rate })
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000)
        return overflow ? .max : milliseconds / rate
    }

    /// One `hub_clock` answer, pinned to the midpoint of the call (halving the error the
    /// round trip adds: at rate 600 a 2 ms call is 1.2 simulated seconds).
    private static func sample(_ rpc: BitcoinCoreRPC) async throws(StartError) -> Sample {
        let before = monotonicNanoseconds()
        let answer: JSONValue
        do {
            answer = try await rpc.call("hub_clock")
        } catch {
            throw .unanswered(error.description)
        }
        let after = monotonicNanoseconds()
        guard case .number(let millisecondsText)? = answer["unix_time_ms"], let milliseconds = Int64(millisecondsText),
              case .number(let rateText)? = answer["rate"], let rate = Int64(rateText), rate >= 1 else {
            throw .malformed("\(answer)")
        }
        return Sample(simulatedMilliseconds: milliseconds, monotonicNanoseconds: before + (after &- before) / 2,
                      rate: rate)
    }

    private static func monotonicNanoseconds() -> UInt64 { MonotonicClock.nanoseconds() }
}
