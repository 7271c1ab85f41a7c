#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Bitcoin

/// What a regtest-only test hook's environment variable asks for on a given network
/// (`CrashPoint`, `LockFault`, `SubmarineLockFault`, `CoopFault`, `TestClock`). All follow
/// one discipline: read only from the process environment (never the config file, so a
/// hook cannot be left on in a data directory), honoured only on regtest, and a value that
/// does not parse is refused loudly instead of silently never firing. Each reads its
/// variable through `fromEnvironment`, the one place that calls `getenv` and logs.
public enum TestHookArming<Hook: Sendable & Equatable>: Sendable, Equatable {
    /// The variable is not set (or empty): the node behaves normally.
    case off
    case armed(Hook)
    /// Set but not honoured; the reason is logged and the node behaves normally.
    case refused(String)

    /// The decision for `value` of the variable `key` (nil when unset) on `network`;
    /// `expected` names the accepted forms in the refusal.
    static func decide(_ value: String?, key: String, network: Network, expected: String,
                       parse: (String) -> Hook?) -> TestHookArming {
        guard let value, !value.isEmpty else { return .off }
        guard network == .regtest else {
            return .refused("\(key) is set but the network is \(network.rawValue); test hooks exist only on regtest")
        }
        guard let hook = parse(value) else { return .refused("\(key)=\(value) is not \(expected)") }
        return .armed(hook)
    }
}

extension TestHookArming {
    /// The hook the process environment's `key` arms, decided by `arming` and logged either
    /// way: `refused` and `armed` word the lines (a refusal never goes unsaid).
    static func fromEnvironment(_ key: String, arming: (String?) -> TestHookArming, log: DaemonLog,
                                refused: (String) -> String, armed: (Hook) -> String) -> Hook? {
        let value = getenv(key).map { String(cString: $0) }
        switch arming(value) {
        case .off:
            return nil
        case .refused(let reason):
            log(refused(reason))
            return nil
        case .armed(let hook):
            log(armed(hook))
            return hook
        }
    }
}
