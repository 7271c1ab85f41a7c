#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Bitcoin
import Transport

/// A test-only crash point for the real binary: `PEERNODE_TEST_CRASH_AFTER=<role>:<event kind>`
/// (for example `client:pay_started` or `provider:lock_broadcast`) makes the daemon kill
/// itself with SIGKILL right after the store has made that event durable, exactly like a
/// `kill -9` landing at that instant. The testnet runner's `crash-*` scenarios use it to
/// prove that a restart from any persisted state loses nothing (issue 9).
///
/// Why a store wrapper: the engines write each state with `create`/`append` *before*
/// acting on it (the store's durability contract), so "just after the write returned" is
/// the worst moment to die — the intent is on disk, the act has not happened. A signal
/// sent from outside could never hit that window reliably.
///
/// Why only regtest: a node that kills itself on a real network would strand a user's
/// swap for nothing. On any other network the variable is refused with a log line and the
/// store is used as is. It is never read from the config file, only from the environment
/// of the process, so it cannot be left on by accident in a node's data directory.
public struct CrashPoint: Sendable, Hashable, CustomStringConvertible {
    public static let environmentKey = "PEERNODE_TEST_CRASH_AFTER"

    public let role: SwapRole
    /// An event kind of that role (`ClientSwapPhase`, `ProviderSwapState.Kind` or
    /// `SubmarineProviderState.Kind` raw value).
    public let kind: String

    public var description: String { "\(role.rawValue):\(kind)" }

    /// What the environment asks for on a given network.
    public typealias Arming = TestHookArming<CrashPoint>

    /// Parses `<role>:<event kind>`; the kind must be one the role really writes, so a
    /// typo fails loudly instead of never firing.
    public static func parse(_ text: String) -> CrashPoint? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let role = SwapRole(rawValue: String(parts[0])) else { return nil }
        let kind = String(parts[1])
        switch role {
        case .client: guard ClientSwapPhase(rawValue: kind) != nil else { return nil }
        case .provider:
            // Either provider engine's kinds (reverse or submarine: `provider:payment_intent`).
            guard ProviderSwapState.Kind(rawValue: kind) != nil || SubmarineProviderState.Kind(rawValue: kind) != nil else {
                return nil
            }
        }
        return CrashPoint(role: role, kind: kind)
    }

    /// The decision for `value` (the variable's value, nil when unset) on `network`.
    public static func arming(_ value: String?, network: Network) -> Arming {
        .decide(value, key: environmentKey, network: network, expected: "<client|provider>:<event kind of that role>", parse: parse)
    }

    /// The store the engines get: `store` itself, or `store` behind a crash point when the
    /// process environment arms one on this network. Each decision is logged.
    static func store(wrapping store: any SwapStore, network: Network, log: DaemonLog) -> any SwapStore {
        let value = getenv(environmentKey).map { String(cString: $0) }
        switch arming(value, network: network) {
        case .off:
            return store
        case .refused(let reason):
            log("crash point refused: \(reason)")
            return store
        case .armed(let point):
            log("crash point armed: SIGKILL right after \(point) is stored (\(environmentKey); test use only)")
            return CrashingSwapStore(base: store, point: point) {
                // The log line is written before the signal: SIGKILL cannot be caught.
                log("crash point \(point) reached: SIGKILL")
                kill(getpid(), SIGKILL)
            }
        }
    }
}

/// Forwards every call to `base`; after a `create` or `append` of the crash point's event
/// returned (the event is durable), calls `crash` instead of returning.
struct CrashingSwapStore: SwapStore, ForwardingKeyValueStore {
    let base: any SwapStore
    var keyValueBase: any KeyValueStore { base }
    let point: CrashPoint
    let crash: @Sendable () -> Void

    func reserveSwapIndex() async throws(StoreError) -> UInt32 { try await base.reserveSwapIndex() }

    func create(_ record: SwapRecord, firstEvent kind: String, data: JSONValue, at: Int64) async throws(StoreError) -> SwapEvent {
        let event = try await base.create(record, firstEvent: kind, data: data, at: at)
        if record.role == point.role && kind == point.kind { crash() }
        return event
    }

    func append(_ kind: String, data: JSONValue, isFinal: Bool, to swapID: String, at: Int64) async throws(StoreError) -> SwapEvent {
        let event = try await base.append(kind, data: data, isFinal: isFinal, to: swapID, at: at)
        // One store serves both engines of a node, so the role comes from the swap's record.
        if kind == point.kind, let record = try? await base.swap(swapID), record.role == point.role { crash() }
        return event
    }

    func reopen(_ kind: String, data: JSONValue, reason: String, to swapID: String, at: Int64) async throws(StoreError) -> SwapEvent {
        try await base.reopen(kind, data: data, reason: reason, to: swapID, at: at)
    }
    func swap(_ id: String) async throws(StoreError) -> SwapRecord? { try await base.swap(id) }
    func events(of swapID: String) async throws(StoreError) -> [SwapEvent] { try await base.events(of: swapID) }
    func lastEvent(of swapID: String) async throws(StoreError) -> SwapEvent? { try await base.lastEvent(of: swapID) }
    func unfinishedSwaps(role: SwapRole?) async throws(StoreError) -> [SwapRecord] { try await base.unfinishedSwaps(role: role) }
    func allSwaps(limit: Int) async throws(StoreError) -> [SwapRecord] { try await base.allSwaps(limit: limit) }
}
