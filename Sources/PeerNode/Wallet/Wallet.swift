import Bitcoin
import HTLC

/// The node's on-chain wallet: BIP86 Taproot keys from the node seed, coins found by
/// following the chain from a birthday height through a `ChainBackend`, balances, and
/// transactions it selects, signs and broadcasts (payments, swap locks, fee bumps).
///
/// The actor serialises everything that reads or changes the coin set. Coin selection
/// and signing run without suspending, and the chosen coins are reserved before the
/// broadcast suspends, so concurrent `send`/`fund` calls never pick the same coin. A
/// failed broadcast releases its reservation; a broadcast one keeps it until its
/// transaction confirms or is replaced or dropped.
///
/// State lives in memory and is rebuilt by `sync()` from the birthday; the node keeps
/// the seed and the birthday, the chain keeps the rest.
public actor Wallet {
    public nonisolated let configuration: WalletConfiguration
    /// Where a sync from scratch starts: the configuration's birthday, or lower once
    /// recovery lowered it (`lowerBirthday`).
    public internal(set) var birthdayHeight: Int
    let backend: any ChainBackend
    var keys: WalletKeys
    var state: WalletState
    /// Mempool txids at the last sync, so a sync fetches only transactions it has not seen.
    var seenMempool: Set<TransactionID> = []
    /// The scripts the backend was told to watch (`ChainBackend.watch`): an Electrum
    /// backend's blocks hold only those scripts' transactions.
    var toldScripts: Set<Script> = []
    /// Whether the backend knows every watched script. Scripts are only ever added to both
    /// sets, and only watched ones are told, so equal counts mean equal sets: no set of
    /// every script is built to find that out (each sync did, and every poll syncs:
    /// docs/PERFORMANCE.md).
    var backendKnowsEveryScript: Bool { toldScripts.count == keys.watchedScriptCount }
    /// The sync running now; a second caller waits for it instead of interleaving blocks.
    var runningSync: Task<ChainTip?, any Error>?
    /// Counts syncs started, so an unanswered broadcast is judged only by a sync that
    /// began after it (`settleUnansweredBroadcasts`).
    var syncsStarted = 0
    /// Broadcasts whose answer never came (`broadcast`), with `syncsStarted` at the time:
    /// their coins stay reserved until a later sync finds them in the mempool or a block,
    /// or finds neither and gives the coins back.
    var unansweredBroadcasts: [TransactionID: Int] = [:]
    /// Where the handed-out high-water mark is kept (nil: memory only).
    var markStore: (any KeyValueStore)?
    var persistedReceiveMark = 0
    var labelled: [String: [WalletAddress]] = [:]
    var labelOrder: [String] = []
    /// Askers remembered; the oldest is forgotten beyond it.
    var labelledCapacity = Wallet.labelledCapacity
    /// Unpaid addresses of forgotten askers, handed to new askers before any fresh key is
    /// derived (issue 22: a flood of new identities would otherwise derive, and watch, a
    /// key per ask without end). They stay the wallet's, watched like any other.
    var recycled: [WalletAddress] = []

    static let issuedMarkKey = "wallet.receive_issued_high_water"
    /// How far ahead of the index handed out the mark is written: one write per this many
    /// addresses.
    static let issuedMarkStep = 20
    static let labelledCapacity = 4_096
    /// Unpaid addresses one asker may hold at once: enough for a payer's concurrent
    /// payments to get distinct addresses, few enough that no asker moves the window far.
    public static let unpaidPerLabel = 5

    public init(seed: [UInt8], configuration: WalletConfiguration, backend: any ChainBackend) throws(WalletError) {
        self.configuration = configuration
        birthdayHeight = configuration.birthdayHeight
        self.backend = backend
        keys = try WalletKeys(seed: seed, network: configuration.network, gapLimit: configuration.gapLimit)
        state = WalletState(birthdayHeight: configuration.birthdayHeight, undoDepth: configuration.undoDepth)
    }

    // MARK: addresses

    /// A fresh receive address (never handed out before by this wallet, never seen paid).
    /// With a mark store attached, the high-water mark of handed-out indexes is persisted
    /// ahead of the index handed out, in steps, so a restarted wallet watches past it.
    public func newAddress() async -> WalletAddress {
        let index = keys.issuedCount(.receive)
        if let markStore, index >= persistedReceiveMark {
            // Advanced before the write so a concurrent caller does not write again.
            persistedReceiveMark = index + Self.issuedMarkStep
            try? await markStore.setValue(Array(String(persistedReceiveMark).utf8), forKey: Self.issuedMarkKey)
        }
        return keys.nextAddress(.receive)
    }

    /// A receive address for one asker (`label`: a peer's pubky). Each asker holds at most
    /// `unpaidPerLabel` unpaid addresses: a fresh one while it holds fewer, then its oldest
    /// unpaid one again (audit M-6: a fresh address per request let any peer push the
    /// wallet's coins past its gap limit, and grow its memory). A paid address is never
    /// handed out again. At most `labelledCapacity` askers are kept; the oldest is
    /// forgotten first, and its unpaid addresses go to the next new askers, so the keys
    /// handed out this way stay within `labelledCapacity + 1` askers' worth.
    public func reusableAddress(for label: String) async -> WalletAddress {
        let unpaid = (labelled[label] ?? []).filter { !keys.isUsed($0.scriptPubKey) }
        if unpaid.count >= Self.unpaidPerLabel, let oldest = unpaid.first {
            labelled[label] = unpaid
            return oldest
        }
        let address: WalletAddress
        if let reused = takeRecycled(avoiding: unpaid) {
            address = reused
        } else {
            address = await newAddress()
        }
        if labelled.updateValue(unpaid + [address], forKey: label) == nil { labelOrder.append(label) }
        if labelOrder.count > labelledCapacity, let forgotten = labelled.removeValue(forKey: labelOrder.removeFirst()) {
            recycled += forgotten.filter { !keys.isUsed($0.scriptPubKey) }
        }
        return address
    }

    /// The oldest recycled address still unpaid and not among `held`; paid ones are dropped.
    private func takeRecycled(avoiding held: [WalletAddress]) -> WalletAddress? {
        while let index = recycled.firstIndex(where: { !held.contains($0) }) {
            let address = recycled.remove(at: index)
            if !keys.isUsed(address.scriptPubKey) { return address }
        }
        return nil
    }

    /// Remember at most `count` askers (tests use a handful).
    func limitRememberedAskers(to count: Int) { labelledCapacity = max(1, count) }

    /// Reads the persisted high-water mark of handed-out receive indexes from `store` and
    /// keeps it there from now on. Call before the first sync.
    public func attachMarkStore(_ store: any KeyValueStore) async throws(StoreError) {
        if let bytes = try await store.value(forKey: Self.issuedMarkKey),
           let mark = Int(String(decoding: bytes, as: UTF8.self)), mark >= 0 {
            keys.markIssued(.receive, below: mark)
            persistedReceiveMark = mark
        }
        markStore = store
    }

    /// Whether `script` pays one of the watched keys.
    public func owns(_ script: Script) -> Bool { keys.path(for: script) != nil }

    // MARK: what the wallet holds

    public func balance() -> WalletBalance { state.balance }

    /// The last block synced, nil before the first block at or after the birthday.
    public var syncedTip: ChainTip? { state.tip }

    /// Every unspent coin, confirmed or not, largest first.
    public func coins() -> [WalletCoin] {
        state.coins.values.filter { state.spenders[$0.outPoint] == nil }.sorted(by: WalletCoin.largestFirst)
    }

    /// Unconfirmed transactions touching the wallet.
    public func pendingTransactions() -> [WalletTransaction] { Array(state.pending.values) }

    /// A transaction touching the wallet, confirmed (with its height) or unconfirmed.
    public func transaction(_ txid: TransactionID) -> WalletTransaction? { state.pending[txid] ?? state.confirmed[txid] }

    /// The confirmed wallet transaction spending `outPoint`, if the wallet saw one: its
    /// txid and height.
    public func confirmedSpender(of outPoint: OutPoint) -> (txid: TransactionID, height: Int)? {
        for known in state.confirmed.values
        where known.transaction.inputs.contains(where: { $0.previousOutput == outPoint }) {
            if let height = known.height { return (known.txid, height) }
        }
        return nil
    }

    /// Outpoints reserved by transactions in flight or unconfirmed.
    public func reservedOutPoints() -> Set<OutPoint> { Set(state.reservations.keys) }

    // MARK: backend calls

    /// Runs a backend call, wrapping its failure.
    func call<T: Sendable>(_ body: () async throws(ChainBackendError) -> T) async throws(WalletError) -> T {
        do {
            return try await body()
        } catch {
            throw WalletError.backend(error)
        }
    }
}
