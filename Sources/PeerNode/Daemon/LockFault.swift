import Bitcoin

/// A test-only misbehaving provider for the real binary: `PEERNODE_TEST_LOCK=short:<sat>`
/// makes the provider lock that many sat less than it agreed to, `PEERNODE_TEST_LOCK=never`
/// makes it take the client's payment (the hold invoice is accepted) and never lock,
/// `PEERNODE_TEST_LOCK=push-only` makes it sign the lock and push it to the client without
/// ever broadcasting it (audit H-3: the client must not claim from a lock its node does
/// not hold). The
/// testnet runner's adversary scenarios use it to prove that a cheating provider cannot
/// take a client's money: the client refuses the wrong lock (or finds none), never reveals
/// its preimage, and its Lightning payment comes back (issue 9).
///
/// Same discipline as `CrashPoint`: read only from the process environment, never from the
/// config file; honoured only on regtest (on any other network it is refused with a log
/// line and the provider behaves); a value that does not parse is refused loudly.
public enum LockFault: Sendable, Hashable, CustomStringConvertible {
    /// Lock the agreed amount minus this many sat (at least 1).
    case short(sat: Int64)
    /// Never lock: every attempt to fund the lock reports a failure that is retried later.
    case never
    /// Sign the agreed lock and push it to the client in the status update, but never
    /// broadcast it (nor rebroadcast it): the lock exists only in the client's hands.
    case pushOnly

    public static let environmentKey = "PEERNODE_TEST_LOCK"

    public var description: String {
        switch self {
        case .short(let sat): return "short:\(sat)"
        case .never: return "never"
        case .pushOnly: return "push-only"
        }
    }

    public typealias Arming = TestHookArming<LockFault>

    /// Parses `short:<sat>` (a positive whole number of sat), `never` or `push-only`.
    public static func parse(_ text: String) -> LockFault? {
        if text == "never" { return .never }
        if text == "push-only" { return .pushOnly }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "short", let sat = Int64(parts[1]), sat > 0 else { return nil }
        return .short(sat: sat)
    }

    /// The decision for `value` (the variable's value, nil when unset) on `network`.
    public static func arming(_ value: String?, network: Network) -> Arming {
        .decide(value, key: environmentKey, network: network, expected: "short:<sat>, never or push-only", parse: parse)
    }

    /// The amount to lock for a swap that agreed on `agreed` sat; nil: do not lock.
    public func lockAmount(agreed: Int64) -> Int64? {
        switch self {
        case .short(let sat): return agreed - sat
        case .never: return nil
        case .pushOnly: return agreed
        }
    }

    /// Whether the lock may be broadcast: false only for `push-only`.
    public var broadcastsLock: Bool { self != .pushOnly }

    /// The fault the process environment arms on `network`, if any. Each decision is logged.
    static func fromEnvironment(network: Network, log: DaemonLog) -> LockFault? {
        Arming.fromEnvironment(environmentKey, arming: { arming($0, network: network) }, log: log,
                               refused: { "lock fault refused: \($0)" },
                               armed: { "lock fault armed: the provider misbehaves with \(environmentKey)=\($0) (test use only)" })
    }
}
