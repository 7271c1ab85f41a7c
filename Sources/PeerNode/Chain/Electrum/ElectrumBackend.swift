import Bitcoin
import Transport

/// `ChainBackend` over an Electrum server (protocol 1.4+), for nodes without a Bitcoin
/// Core of their own. What Electrum cannot answer as Core does, and what the node does
/// instead, is in docs/ELECTRUM.md; in short:
///
/// - **Blocks** hold only the watched scripts' transactions (the follower and the wallet
///   name their scripts with `watch`), placed in the block by a merkle proof checked
///   against the header the node fetched by height: a server cannot claim a confirmation
///   without a block that has it. Headers are real, so reorgs are found as with Core.
/// - **The mempool** is the watched scripts' unconfirmed transactions.
/// - **testmempoolaccept** does not exist: `testAccept` is refused.
///
/// The connection is one `ElectrumClient`, replaced when it drops: a closed socket, a
/// timeout, a garbage or oversized line. The next call dials again, re-subscribes the tip
/// and every watched script and treats every history as stale (a notification may have
/// been missed), so nothing is lost; a call in flight when the connection dropped is
/// tried once more on the new one. Failed dials back off (250 ms doubling to 30 s): calls
/// meanwhile fail at once as unreachable, and the callers' polls retry.
public actor ElectrumBackend: ChainBackend {
    public nonisolated let server: ElectrumServer
    public nonisolated let network: Network
    public nonisolated var servesWholeBlocks: Bool { false }
    private let loop: EventLoop
    private let timeoutMilliseconds: UInt64
    private let maxLineBytes: Int

    private var client: ElectrumClient?
    private var dialling: Task<Result<ElectrumClient, ElectrumError>, Never>?
    private var pump: Task<Void, Never>?
    private var failedDials = 0
    private var retryAfter: ContinuousClock.Instant?
    private var lastFailure: ElectrumError?

    /// The server's tip (from the headers subscription) and its header.
    private var serverTip: (height: Int, header: BlockHeader)?
    /// Headers fetched by height, by hash: `block` needs the height and merkle root.
    private var headers: [BlockHash: (height: Int, header: BlockHeader)] = [:]
    var book = ElectrumScriptBook()
    /// Outpoints whose funding transaction the server did not know yet.
    private var unresolvedOutpoints: Set<OutPoint> = []
    private var transactionCache: [TransactionID: Transaction] = [:]
    private static let cacheLimit = 20_000

    /// Another view of the chain (LND's best block: its height, and its hash when LND gave
    /// one), read at most every 2 s unless a check needs it newer: it tells a server that
    /// stopped following from one a block behind, and anchors the headers of a server the
    /// operator does not run (`ElectrumAnchoredChain`); nil: none given.
    public typealias ReferenceTip = (height: Int, hash: BlockHash?)
    private var referenceSource: (@Sendable () async -> ReferenceTip?)?
    private var reference: (tip: ReferenceTip?, readAt: UInt64)?
    /// The server's headers seen to link to LND's best block; used only when
    /// `checksHeadersAgainstReference`.
    var anchored = ElectrumAnchoredChain()
    /// A second way to the network for every broadcast (LND's wallet, `ElectrumSecondBroadcast`),
    /// answering nil when it published; nil: the server alone.
    private(set) var secondBroadcast: (@Sendable (Transaction) async -> ChainBackendError?)?
    private var lagGuard = ElectrumLagGuard()
    private let started = ContinuousClock.now
    /// Set while the server lags (what `status` and the health page say); nil otherwise.
    public private(set) var lagging: ElectrumError?

    /// How many connections were made (negotiated and subscribed), for tests and logs.
    public private(set) var connectionCount = 0
    /// The server software and protocol version of the current connection.
    public private(set) var serverDescription: String?

    public init(server: ElectrumServer, network: Network, loop: EventLoop, timeoutMilliseconds: UInt64 = 30_000,
                maxLineBytes: Int = ElectrumConnection.defaultMaxLineBytes) {
        self.server = server
        self.network = network
        self.loop = loop
        self.timeoutMilliseconds = timeoutMilliseconds
        self.maxLineBytes = maxLineBytes
    }

    /// Closes the connection (at shutdown); a later call dials again.
    public func shutDown() async {
        pump?.cancel()
        pump = nil
        if let client { await client.connection.close() }
        client = nil
    }

    // MARK: the connection

    /// The live connection, dialling one when there is none.
    func connection() async throws(ChainBackendError) -> ElectrumClient {
        if let client {
            if await client.connection.closedReason == nil { return client }
            drop(client)
        }
        if let dialling { return try mapResult(await dialling.value) }
        if let retryAfter, ContinuousClock.now < retryAfter {
            throw .unreachable(url: server.url, reason: "reconnecting after: \(lastFailure?.description ?? "a failure")")
        }
        let task = Task { await self.dial() }
        dialling = task
        let result = await task.value
        dialling = nil
        return try mapResult(result)
    }

    private func mapResult(_ result: Result<ElectrumClient, ElectrumError>) throws(ChainBackendError) -> ElectrumClient {
        switch result {
        case .success(let client): return client
        case .failure(let error): throw map(error)
        }
    }

    private func dial() async -> Result<ElectrumClient, ElectrumError> {
        var connected: ElectrumClient?
        do throws(ElectrumError) {
            var anchors: TLSCertificates?
            if let path = server.tlsCertificatePath {
                do {
                    anchors = try TLSCertificates.read(path: path)
                } catch {
                    throw ElectrumError.unreachable(server: "\(server.host):\(server.port)",
                                                    reason: "electrum_tls_cert: \(ErrorText.describe(error))")
                }
            }
            let client = try await ElectrumClient.connect(host: server.host, port: server.port, tlsAnchors: anchors,
                                                          network: network, loop: loop, maxLineBytes: maxLineBytes,
                                                          timeoutMilliseconds: timeoutMilliseconds)
            connected = client
            // The stream first: a notification sent right after a subscription is not lost.
            let notifications = await client.connection.notifications()
            let tip = try await client.subscribeHeaders()
            let header = try Self.header(tip.header)
            let hashes = book.allHashes
            for chunk in Self.chunks(hashes) {
                for result in try await client.connection.batch(chunk.map { (ElectrumMethod.scriptHashSubscribe, [.string($0.hex)]) }) {
                    _ = try result.get()
                }
            }
            book.markAllStale()
            serverTip = (tip.height, header)
            remember(header, height: tip.height)
            self.client = client
            serverDescription = "\(client.serverSoftware), protocol \(client.protocolVersion)"
            pump?.cancel()
            pump = Task { [weak self] in
                for await notification in notifications { await self?.handle(notification, on: client.connection) }
                await self?.lost(client.connection)
            }
            failedDials = 0
            retryAfter = nil
            connectionCount += 1
            return .success(client)
        } catch {
            if let connected { await connected.connection.close() }
            failedDials += 1
            let delay = min(250 << min(failedDials - 1, 7), 30_000)
            retryAfter = ContinuousClock.now + .milliseconds(delay)
            lastFailure = error
            return .failure(error)
        }
    }

    /// Forgets a connection that failed; the next call dials a new one.
    private func drop(_ dropped: ElectrumClient) {
        guard let client, client.connection === dropped.connection else { return }
        self.client = nil
        pump?.cancel()
        pump = nil
        Task { await dropped.connection.close() }
    }

    private func lost(_ connection: ElectrumConnection) {
        if let client, client.connection === connection { drop(client) }
    }

    private func handle(_ notification: ElectrumNotification, on connection: ElectrumConnection) {
        guard let client, client.connection === connection else { return }
        if let tip = notification.headerTip, let header = try? Self.header(tip.header) {
            serverTip = (tip.height, header)
            remember(header, height: tip.height)
        } else if let status = notification.scriptHashStatus {
            book.markStale(status.scriptHash)
        }
    }

    /// Runs `body` on the connection; when the connection drops under it, once more on a
    /// new one (the call was lost with the old connection, not refused).
    func withClient<T: Sendable>(_ body: (ElectrumClient) async throws(ElectrumError) -> T) async throws(ChainBackendError) -> T {
        var attempt = 0
        while true {
            attempt += 1
            let client = try await connection()
            do {
                return try await body(client)
            } catch where error.dropsConnection {
                drop(client)
                if attempt >= 2 { throw map(error) }
            } catch {
                throw map(error)
            }
        }
    }

    func map(_ error: ElectrumError) -> ChainBackendError {
        switch error {
        case .wrongNetwork(let expected, let serverGenesis):
            return .wrongNetwork(expected: "\(network.rawValue) (genesis \(expected))", actual: "a chain with genesis \(serverGenesis)")
        case .server(ElectrumMethod.broadcast, let code, let message):
            return .rejected(code: code, reason: message)
        case .server(_, let code, let message):
            return .rpc(code: code, message: message)
        case .unexpectedResult, .invalidRequest:
            return .malformedResponse(error.description)
        case .unreachable, .closed, .lineTooLong, .malformed, .timedOut, .unsupportedProtocolVersion, .lagging, .notInLNDsChain:
            return .unreachable(url: server.url, reason: error.description)
        }
    }

    // MARK: state

    /// The server's tip, dialling first when needed; refused while the server lags the
    /// reference (so no deadline is counted from a height the chain has left); for a
    /// server the operator does not run, a tip linked to LND's best block (`anchoredTip`).
    func currentTip() async throws(ChainBackendError) -> (height: Int, header: BlockHeader) {
        _ = try await connection()
        guard serverTip != nil else { throw .unreachable(url: server.url, reason: "no tip from the server yet") }
        try await checkLag()
        guard let serverTip else { throw .unreachable(url: server.url, reason: "no tip from the server yet") }
        return checksHeadersAgainstReference ? try await anchoredTip(serverTip) : serverTip
    }

    /// Whether the server's headers must link to LND's best block before the node counts
    /// from them: a server the operator does not run, once a reference is given (the
    /// daemon always gives LND's).
    var checksHeadersAgainstReference: Bool { !server.trusted && referenceSource != nil }

    /// Compares the server's tip with `source`'s best block (LND's) from now on, and, for a
    /// server that is not `trusted`, links every header the node counts from to it;
    /// `maxLagBlocks` and `graceMilliseconds` set what counts as lagging (tests shorten the grace).
    public func followReference(_ source: @escaping @Sendable () async -> ReferenceTip?,
                                maxLagBlocks: Int = ElectrumLagGuard.defaultMaxBlocks,
                                graceMilliseconds: UInt64 = ElectrumLagGuard.defaultGraceMilliseconds) {
        referenceSource = source
        lagGuard = ElectrumLagGuard(maxBlocks: maxLagBlocks, graceMilliseconds: graceMilliseconds)
        reference = nil
        anchored = ElectrumAnchoredChain()
    }

    /// Sends every broadcast through `route` too from now on (the daemon gives LND's wallet
    /// for a server that is not `trusted`); `route` answers nil when it published.
    public func broadcastAlsoThrough(_ route: @escaping @Sendable (Transaction) async -> ChainBackendError?) {
        secondBroadcast = route
    }

    /// LND's best block as last read, read again when older than 2 s. `fresh` reads it now
    /// and answers only what this read gave (nil when LND did not answer): a check that
    /// found the server ahead must not count from a height LND named before it went quiet,
    /// or the node's tip would stop while the chain goes on.
    func referenceTip(fresh: Bool = false) async -> ReferenceTip? {
        guard let referenceSource else { return nil }
        let now = millisecondsSinceStart
        if fresh || reference.map({ now - $0.readAt >= 2_000 }) ?? true {
            // The last reading stands while a new one is read: a concurrent call neither
            // reads again nor sees the gap vanish.
            reference = (reference?.tip, now)
            let read = await referenceSource()
            reference = (read ?? reference?.tip, now)
            if fresh { return read }
        }
        return reference?.tip
    }

    private func checkLag() async throws(ChainBackendError) {
        guard referenceSource != nil else { return }
        let referenceHeight = await referenceTip()?.height
        // The tip may have moved while the reference was read.
        guard let height = serverTip?.height else { return }
        switch lagGuard.observe(serverHeight: height, referenceHeight: referenceHeight, now: millisecondsSinceStart) {
        case .following, .catchingUp:
            lagging = nil
        case .lagging(let blocks, let milliseconds):
            let error = ElectrumError.lagging(serverHeight: height, referenceHeight: height + blocks, seconds: Int(milliseconds / 1_000))
            lagging = error
            throw map(error)
        }
    }

    var millisecondsSinceStart: UInt64 {
        let elapsed = ContinuousClock.now - started
        return UInt64(max(0, elapsed.components.seconds)) * 1_000 + UInt64(max(0, elapsed.components.attoseconds)) / 1_000_000_000_000_000
    }

    func remember(_ header: BlockHeader, height: Int) {
        if headers.count > 4_096 { headers.removeAll(keepingCapacity: true) }
        headers[header.hash] = (height, header)
    }

    func knownHeader(_ hash: BlockHash) -> (height: Int, header: BlockHeader)? { headers[hash] }

    func cache(_ transaction: Transaction) {
        if transactionCache.count > Self.cacheLimit { transactionCache.removeAll(keepingCapacity: true) }
        transactionCache[transaction.txid] = transaction
    }

    func cachedTransaction(_ txid: TransactionID) -> Transaction? { transactionCache[txid] }

    func addUnresolved(_ outpoints: Set<OutPoint>) { unresolvedOutpoints.formUnion(outpoints) }

    func takeUnresolved() -> Set<OutPoint> {
        defer { unresolvedOutpoints = [] }
        return unresolvedOutpoints
    }

    static func header(_ bytes: [UInt8]) throws(ElectrumError) -> BlockHeader {
        do {
            return try BlockHeader(bytes: bytes)
        } catch {
            throw .unexpectedResult(method: ElectrumMethod.blockHeader, reason: "not a block header")
        }
    }

    /// Batches of at most 100 calls: one line each, well under any server's limits.
    static func chunks<T>(_ items: [T]) -> [ArraySlice<T>] {
        stride(from: 0, to: items.count, by: 100).map { items[$0..<min($0 + 100, items.count)] }
    }
}
