import Bitcoin

/// A test-only misbehaving submarine client for the real binary:
/// `PEERNODE_TEST_SUBMARINE_LOCK=short:<sat>` makes the client of an `onchain_to_ln` swap
/// lock that many sat less than the `total_sat` it agreed to, in an otherwise well-formed
/// lock of the accepted contract. The testnet runner's `submarine-short-lock` scenario uses
/// it to prove that a provider never pays the invoice against a short lock, and that the
/// client gets its coins back by its refund after the timeout, losing only fees.
///
/// The mirror of the provider's `LockFault`, with the same discipline: read only from the
/// process environment, never from the config file; honoured only on regtest (on any other
/// network it is refused with a log line and the client locks exactly what it agreed); a
/// value that does not parse is refused loudly.
public enum SubmarineLockFault: Sendable, Hashable, CustomStringConvertible {
    /// Lock the agreed total minus this many sat (at least 1).
    case short(sat: Int64)

    public static let environmentKey = "PEERNODE_TEST_SUBMARINE_LOCK"

    public var description: String {
        switch self {
        case .short(let sat): return "short:\(sat)"
        }
    }

    public typealias Arming = TestHookArming<SubmarineLockFault>

    /// Parses `short:<sat>`, a positive whole number of sat.
    public static func parse(_ text: String) -> SubmarineLockFault? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "short", let sat = Int64(parts[1]), sat > 0 else { return nil }
        return .short(sat: sat)
    }

    /// The decision for `value` (the variable's value, nil when unset) on `network`.
    public static func arming(_ value: String?, network: Network) -> Arming {
        .decide(value, key: environmentKey, network: network, expected: "short:<sat>", parse: parse)
    }

    /// How many sat below the agreed total the lock pays.
    public var shortfallSat: Int64 {
        switch self {
        case .short(let sat): return sat
        }
    }

    /// The fault the process environment arms on `network`, if any. Each decision is logged.
    static func fromEnvironment(network: Network, log: DaemonLog) -> SubmarineLockFault? {
        Arming.fromEnvironment(environmentKey, arming: { arming($0, network: network) }, log: log,
                               refused: { "submarine lock fault refused: \($0)" },
                               armed: { "submarine lock fault armed: the client locks less than agreed with \(environmentKey)=\($0) (test use only)" })
    }
}
