import Bitcoin

/// A test-only clock for the real binary: `PEERNODE_TEST_CLOCK=hub` makes the daemon take
/// its unix time from the regtest hub's `hub_clock` (on the `bitcoind` endpoint it is
/// configured with) instead of the wall clock. With the hub's clock running fast
/// (`peernode-regtest --clock-rate 600 --block-interval-seconds 600`), a scenario runs at
/// mainnet pace, 10-minute blocks and every time-based rule of the daemon (quote and offer
/// lifetimes, invoice expiry, the client's give-up timer, hourly rate limits) in
/// simulated time, in a few real seconds (issue: "time is the chain's").
///
/// Same discipline as `CrashPoint` and `LockFault`: read only from the process
/// environment, never from the config file; honoured only on regtest (on any other
/// network it is refused with a log line and the wall clock is used); a value other than
/// `hub` is refused loudly.
public enum TestClock: Sendable, Hashable, CustomStringConvertible {
    /// Follow `hub_clock` of the configured `bitcoind` endpoint (the regtest hub).
    case hub

    public static let environmentKey = "PEERNODE_TEST_CLOCK"

    public var description: String { "hub" }

    public typealias Arming = TestHookArming<TestClock>

    public static func parse(_ text: String) -> TestClock? {
        text == "hub" ? .hub : nil
    }

    /// The decision for `value` (the variable's value, nil when unset) on `network`.
    public static func arming(_ value: String?, network: Network) -> Arming {
        .decide(value, key: environmentKey, network: network, expected: "hub", parse: parse)
    }

    /// The clock the process environment arms on `network`, if any. Each decision is logged.
    static func fromEnvironment(network: Network, log: DaemonLog) -> TestClock? {
        Arming.fromEnvironment(environmentKey, arming: { arming($0, network: network) }, log: log,
                               refused: { "test clock refused: \($0); the wall clock is used" },
                               armed: { "test clock armed: time is the regtest hub's hub_clock (\(environmentKey)=\($0), test use only)" })
    }
}
