import Bitcoin

/// A test-only provider that will not cooperate, for the real binary:
/// `PEERNODE_TEST_COOP=refuse` makes it answer every `CoopClaimRequest` with a Reject while
/// its offers still list `musig2`, `PEERNODE_TEST_COOP=silent` makes it answer only after
/// `silenceSeconds` (past any client's wait). The testnet runner's `coop-refused` and
/// `coop-silent` scenarios use it to prove the fallback: the client claims through the
/// script path and the destination still gets exactly X (issue 17).
///
/// Same discipline as `CrashPoint` and `LockFault`: read only from the process
/// environment, honoured only on regtest, a value that does not parse refused loudly.
public enum CoopFault: String, Sendable, Hashable, CustomStringConvertible {
    case refuse
    case silent

    public static let environmentKey = "PEERNODE_TEST_COOP"
    /// Longer than the client's wait for an answer (`coopClaimTimeoutMilliseconds`, 5 s).
    static let silenceSeconds = 30

    public var description: String { rawValue }

    /// What the faulty node does before its refusal: a silent one outwaits the asker.
    func stall() async {
        if self == .silent { try? await Task.sleep(for: .seconds(Self.silenceSeconds)) }
    }

    public typealias Arming = TestHookArming<CoopFault>

    public static func arming(_ value: String?, network: Network) -> Arming {
        .decide(value, key: environmentKey, network: network, expected: "refuse or silent", parse: CoopFault.init(rawValue:))
    }

    /// The fault the process environment arms on `network`, if any. Each decision is logged.
    static func fromEnvironment(network: Network, log: DaemonLog) -> CoopFault? {
        Arming.fromEnvironment(environmentKey, arming: { arming($0, network: network) }, log: log,
                               refused: { "cooperation fault refused: \($0)" },
                               armed: { "cooperation fault armed: the provider does not co-sign (\(environmentKey)=\($0); test use only)" })
    }
}
