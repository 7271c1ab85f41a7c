import PeerNode
import Transport

/// A node's store that dies with the node: once an event of kind `kind` is written, the
/// process is gone, so no later write reaches the disk. What is on disk is exactly what a
/// `kill -9` at that point leaves, and a restart opens the same file.
///
/// `Death.reportingTheWrite`: the event lands on disk but its writer sees a failure, so
/// the act the event announces never happens (killed between the intent and the act).
/// `Death.atTheNextWrite`: the event's write succeeds and the acts after it run; the node
/// dies at its next write (e.g. after `pay_started`, the payment leaves and then the node
/// is gone before it can record anything else).
actor DyingSwapStore: ForwardingSwapStore {
    enum Death: Sendable {
        case reportingTheWrite
        case atTheNextWrite
    }

    nonisolated let base: any SwapStore
    let kind: String
    let death: Death
    private(set) var isDead = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(_ base: any SwapStore, diesAfter kind: String, _ death: Death) {
        self.base = base
        self.kind = kind
        self.death = death
    }

    /// Returns once the node has died.
    func waitForDeath() async {
        if isDead { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func die() {
        isDead = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }

    private func dead(_ operation: String) -> StoreError {
        .database(operation: operation, message: "the node died after writing \(kind)")
    }

    func reserveSwapIndex() async throws(StoreError) -> UInt32 {
        if isDead { throw dead("reserve") }
        return try await base.reserveSwapIndex()
    }

    func create(_ record: SwapRecord, firstEvent kind: String, data: JSONValue, at: Int64) async throws(StoreError) -> SwapEvent {
        if isDead { throw dead("create") }
        let event = try await base.create(record, firstEvent: kind, data: data, at: at)
        if kind == self.kind {
            die()
            if death == .reportingTheWrite { throw dead("create") }
        }
        return event
    }

    func reopen(_ kind: String, data: JSONValue, reason: String, to swapID: String, at: Int64) async throws(StoreError) -> SwapEvent {
        try await base.reopen(kind, data: data, reason: reason, to: swapID, at: at)
    }

    func append(_ kind: String, data: JSONValue, isFinal: Bool, to swapID: String, at: Int64) async throws(StoreError) -> SwapEvent {
        if isDead { throw dead("append") }
        let event = try await base.append(kind, data: data, isFinal: isFinal, to: swapID, at: at)
        if kind == self.kind {
            die()
            if death == .reportingTheWrite { throw dead("append") }
        }
        return event
    }
}
