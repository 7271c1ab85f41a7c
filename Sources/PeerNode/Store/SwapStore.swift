import Transport

/// Durable swap state: one contract per swap, written once, plus an append-only event log.
/// The SQLite store is the production implementation. Engines depend on this protocol
/// only, so the swap logic stays apart from persistence (and from recovery, which reads
/// the same records).
///
/// Durability contract: when `create` or `append` returns, the write has reached stable
/// storage (SQLite WAL with a synchronous commit), so an act performed after it is always
/// preceded on disk by its intent, whatever crash follows.
///
/// It keeps small named values too (`KeyValueStore`): a provider swap's refund address is
/// recorded there before its first use, so every retry and bump pays the same address.
public protocol SwapStore: KeyValueStore {
    /// A fresh swap index for seed derivation; never handed out twice, even across restarts.
    func reserveSwapIndex() async throws(StoreError) -> UInt32
    /// Writes the contract and its first event in one transaction. A second swap with the
    /// same id is refused with `.duplicateSwap`.
    func create(_ record: SwapRecord, firstEvent kind: String, data: JSONValue, at: Int64) async throws(StoreError) -> SwapEvent
    /// `create`, with named values (`KeyValueStore`) written in the same transaction: a
    /// client swap's payment hash goes into its index with the record, so neither is on
    /// disk without the other.
    func create(_ record: SwapRecord, firstEvent kind: String, data: JSONValue, at: Int64,
                values: [String: [UInt8]]) async throws(StoreError) -> SwapEvent
    /// Appends an event; refused with `.swapFinished` after a final event and `.unknownSwap`
    /// for an id that does not exist.
    func append(_ kind: String, data: JSONValue, isFinal: Bool, to swapID: String, at: Int64) async throws(StoreError) -> SwapEvent
    /// Appends `events` in order in one transaction: when it returns every one of them is
    /// durable, and a crash before that leaves none. The same refusals as `append` (checked
    /// event by event: nothing may follow a final one, in the log or in the batch).
    func append(_ events: [NewSwapEvent], to swapID: String) async throws(StoreError) -> [SwapEvent]
    /// Appends a non-final event after a final one (audit H-1: `swap claim` on a swap that
    /// ended while its lock can still be claimed). The only way past a final event: the
    /// event's data records `reopened` (`reason`, and `after`: the final kind it follows).
    /// Refused with `.notReopenable` when the swap has not ended or `reason` is blank.
    func reopen(_ kind: String, data: JSONValue, reason: String, to swapID: String, at: Int64) async throws(StoreError) -> SwapEvent
    func swap(_ id: String) async throws(StoreError) -> SwapRecord?
    /// The whole log of a swap, oldest first.
    func events(of swapID: String) async throws(StoreError) -> [SwapEvent]
    func lastEvent(of swapID: String) async throws(StoreError) -> SwapEvent?
    /// Swaps whose last event is not final, oldest first: what a restart must resume.
    func unfinishedSwaps(role: SwapRole?) async throws(StoreError) -> [SwapRecord]
    /// Every swap, newest first, at most `limit`.
    func allSwaps(limit: Int) async throws(StoreError) -> [SwapRecord]
    /// The swaps with `peer` (its pubky, z-base-32), newest first, at most `limit`: what a
    /// contact's `SwapListRequest` is answered from.
    func swaps(withPeer peer: String, limit: Int) async throws(StoreError) -> [SwapRecord]
}

extension SwapStore {
    /// For stores without transactions of their own (the tests' in-memory ones): the
    /// values first, then the record, as two writes.
    public func create(_ record: SwapRecord, firstEvent kind: String, data: JSONValue, at: Int64,
                       values: [String: [UInt8]]) async throws(StoreError) -> SwapEvent {
        for (key, value) in values { try await setValue(value, forKey: key) }
        return try await create(record, firstEvent: kind, data: data, at: at)
    }

    /// For stores without transactions of their own (the tests' in-memory ones): the
    /// events one by one. A failure part-way leaves the first ones written, which is a
    /// state a crash between two single appends could leave too.
    public func append(_ events: [NewSwapEvent], to swapID: String) async throws(StoreError) -> [SwapEvent] {
        var written: [SwapEvent] = []
        for event in events {
            written.append(try await append(event.kind, data: event.data, isFinal: event.isFinal, to: swapID, at: event.at))
        }
        return written
    }

    /// For stores without an index of their own: every swap, filtered.
    public func swaps(withPeer peer: String, limit: Int) async throws(StoreError) -> [SwapRecord] {
        Array(try await allSwaps(limit: Int.max).filter { $0.peer == peer }.prefix(max(0, limit)))
    }
}

/// Why the store refused or failed.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    case duplicateSwap(String)
    case unknownSwap(String)
    case swapFinished(String)
    /// `reopen` refused: the swap has not ended, or no reason was given.
    case notReopenable(String, why: String)
    /// The database could not be opened, migrated, read or written (SQLite's message).
    case database(operation: String, message: String)
    /// A stored row does not decode (corruption, or a newer schema than this binary knows).
    case corrupt(String)

    public var description: String {
        switch self {
        case .duplicateSwap(let id): return "a swap with id \(id) already exists"
        case .unknownSwap(let id): return "no swap with id \(id)"
        case .swapFinished(let id): return "swap \(id) has already ended; nothing can follow its final event"
        case .notReopenable(let id, let why): return "swap \(id) cannot be reopened: \(why)"
        case .database(let operation, let message): return "database error during \(operation): \(message)"
        case .corrupt(let what): return "stored data cannot be read: \(what)"
        }
    }
}
