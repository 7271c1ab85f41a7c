#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Bitcoin
import Offers
import Transport

/// A test-only crash point for the real binary:
/// `PEERNODE_TEST_CRASH_AFTER=<role>:<event kind>` for a swap of the reverse direction
/// (`client:pay_started`, `provider:lock_broadcast`) or `<role>:onchain_to_ln:<event kind>`
/// for a submarine one (`client:onchain_to_ln:lock_intent`,
/// `provider:onchain_to_ln:payment_intent`) makes the daemon kill itself with SIGKILL right
/// after the store has made that event durable, exactly like a `kill -9` landing at that
/// instant. The testnet runner's `crash-*` and `crash-sub-*` scenarios use it to prove that a
/// restart from any persisted state loses nothing (issues 9 and 16).
///
/// Why a store wrapper: the engines write each state with `create`/`append` *before*
/// acting on it (the store's durability contract), so "just after the write returned" is
/// the worst moment to die — the intent is on disk, the act has not happened. A signal
/// sent from outside could never hit that window reliably.
///
/// Why the direction is part of the point: the two directions' machines share kind names
/// (`quoted`, `accepted`, `lock_confirmed`, `completed`...) under the same role, and one store
/// serves both engines. A point fires only on a swap of its role and direction (read from
/// the record), so `client:accepted` never fires in a submarine swap, and a kind the role
/// never writes in that direction (`client:lock_intent`, `client:onchain_to_ln:pay_started`)
/// is refused instead of silently never firing. Without a direction the point is the
/// reverse one's, as it was before submarine swaps existed.
///
/// Why only regtest: a node that kills itself on a real network would strand a user's
/// swap for nothing. On any other network the variable is refused with a log line and the
/// store is used as is. It is never read from the config file, only from the environment
/// of the process, so it cannot be left on by accident in a node's data directory.
public struct CrashPoint: Sendable, Hashable, CustomStringConvertible {
    public static let environmentKey = "PEERNODE_TEST_CRASH_AFTER"

    public let role: SwapRole
    /// The direction of the swaps it fires in.
    public let direction: SwapDirection
    /// An event kind that role writes in that direction (`ClientSwapPhase`,
    /// `ProviderSwapState.Kind`, `SubmarineClientPhase` or `SubmarineProviderState.Kind`
    /// raw value).
    public let kind: String

    public var description: String {
        direction == .lightningToOnchain ? "\(role.rawValue):\(kind)" : "\(role.rawValue):\(direction.rawValue):\(kind)"
    }

    /// What the environment asks for on a given network.
    public typealias Arming = TestHookArming<CrashPoint>

    /// Parses `<role>:<event kind>` (the reverse direction) or `<role>:<direction>:<event
    /// kind>`; the kind must be one the role really writes in that direction, so a typo or
    /// a kind of the other direction fails loudly instead of never firing.
    public static func parse(_ text: String) -> CrashPoint? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 || parts.count == 3, let role = SwapRole(rawValue: parts[0]) else { return nil }
        let direction: SwapDirection
        if parts.count == 3 {
            guard let named = SwapDirection(rawValue: parts[1]) else { return nil }
            direction = named
        } else {
            direction = .lightningToOnchain
        }
        let kind = parts[parts.count - 1]
        guard kinds(of: role, direction).contains(kind) else { return nil }
        return CrashPoint(role: role, direction: direction, kind: kind)
    }

    /// Every event kind `role`'s engine writes in `direction`.
    public static func kinds(of role: SwapRole, _ direction: SwapDirection) -> Set<String> {
        switch (role, direction) {
        case (.client, .lightningToOnchain): return Set(ClientSwapPhase.allCases.map(\.rawValue))
        case (.client, .onchainToLightning): return Set(SubmarineClientPhase.allCases.map(\.rawValue))
        case (.provider, .lightningToOnchain): return Set(ProviderSwapState.Kind.allCases.map(\.rawValue))
        case (.provider, .onchainToLightning): return Set(SubmarineProviderState.Kind.allCases.map(\.rawValue))
        }
    }

    /// Whether an event of `kind` just stored for `record` is this point.
    func matches(_ record: SwapRecord, kind: String) -> Bool {
        kind == self.kind && record.role == role && Self.direction(of: record) == direction
    }

    /// The direction a stored swap runs in: both submarine engines mark their records,
    /// the reverse ones (older than the mark) do not.
    static func direction(of record: SwapRecord) -> SwapDirection {
        record.contract["direction"]?.stringValue.flatMap(SwapDirection.init(rawValue:)) ?? .lightningToOnchain
    }

    /// The decision for `value` (the variable's value, nil when unset) on `network`.
    public static func arming(_ value: String?, network: Network) -> Arming {
        .decide(value, key: environmentKey, network: network, expected: "<client|provider>:<event kind> (ln_to_onchain) or "
                + "<client|provider>:onchain_to_ln:<event kind>, the kind one that role writes in that direction", parse: parse)
    }

    /// The store the engines get: `store` itself, or `store` behind a crash point when the
    /// process environment arms one on this network. Each decision is logged.
    static func store(wrapping store: any SwapStore, network: Network, log: DaemonLog) -> any SwapStore {
        let armed = Arming.fromEnvironment(environmentKey, arming: { arming($0, network: network) }, log: log,
                                           refused: { "crash point refused: \($0)" },
                                           armed: { "crash point armed: SIGKILL right after \($0) is stored (\(environmentKey); test use only)" })
        guard let point = armed else { return store }
        return CrashingSwapStore(base: store, point: point) {
            // The log line is written before the signal: SIGKILL cannot be caught.
            log("crash point \(point) reached: SIGKILL")
            kill(getpid(), SIGKILL)
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
        if point.matches(record, kind: kind) { crash() }
        return event
    }

    func create(_ record: SwapRecord, firstEvent kind: String, data: JSONValue, at: Int64,
                values: [String: [UInt8]]) async throws(StoreError) -> SwapEvent {
        let event = try await base.create(record, firstEvent: kind, data: data, at: at, values: values)
        if point.matches(record, kind: kind) { crash() }
        return event
    }

    func append(_ kind: String, data: JSONValue, isFinal: Bool, to swapID: String, at: Int64) async throws(StoreError) -> SwapEvent {
        let event = try await base.append(kind, data: data, isFinal: isFinal, to: swapID, at: at)
        // One store serves every engine of a node, so the role and the direction come from the swap's record.
        if kind == point.kind, let record = try? await base.swap(swapID), point.matches(record, kind: kind) { crash() }
        return event
    }

    /// The whole batch is durable first (one transaction), then the point fires if it names
    /// any event of it: the acts after the batch have not happened.
    func append(_ events: [NewSwapEvent], to swapID: String) async throws(StoreError) -> [SwapEvent] {
        let written = try await base.append(events, to: swapID)
        if events.contains(where: { $0.kind == point.kind }), let record = try? await base.swap(swapID),
           point.matches(record, kind: point.kind) {
            crash()
        }
        return written
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
