#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Bitcoin
import HTLC
import Lightning
import Offers
import Synchronization
import Transport

/// The peernode daemon as one service: `run()` starts everything, serves until SIGINT,
/// SIGTERM or `requestShutdown()`, then stops everything and returns.
///
/// Start-up, in order; the first failure stops it with a `DaemonError` that says what
/// and why, and undoes what already started:
///
/// 1. the config (file + command line) and the seed are read and checked: a bad setting
///    fails here, before any file, socket or connection is made;
/// 2. the data directory's lock (`DataDirectoryLock`: one daemon per directory), the event
///    loop, the signal watcher, and a check that no daemon already answers on the control
///    socket;
/// 3. the store; Bitcoin Core (network check); LND (network check);
/// 4. the wallet (first sync, then a sync loop), the provider desk when `provider=1`, the
///    router, the engines (the `SwapEngines` hook);
/// 5. the peer listener, then the control socket (mode 0600; a stale one is replaced).
///
/// Shutdown runs the same steps backwards: the control socket and the peer listener stop
/// accepting first (the socket file is removed), short running commands are answered and
/// attached ones (`pay` waiting on its swap) detached, peers are closed, the engines stop,
/// the store closes after every writer is gone, and the lock is released last. Every
/// store write is one committed transaction, so nothing is left half-written: a second
/// signal exits at once, and a watchdog exits 9 s after the first if a step hangs.
public final class NodeDaemon: Sendable {
    public struct Options: Sendable {
        public var datadir: String
        /// `--key=value` settings from the command line.
        public var overrides: [ConfigEntry]
        public var allowUnsafe: Bool
        /// Stop on SIGINT/SIGTERM (the `peernode run` process). Tests that run several
        /// daemons in one process stop them with `requestShutdown()` instead.
        public var watchSignals: Bool
        public var log: DaemonLog
        public var engines: SwapEngineFactory?
        /// Called once the daemon serves.
        public var onReady: (@Sendable (DaemonReady) -> Void)?

        public init(datadir: String, overrides: [ConfigEntry] = [], allowUnsafe: Bool = false, watchSignals: Bool = true,
                    log: DaemonLog = .silent, engines: SwapEngineFactory? = nil,
                    onReady: (@Sendable (DaemonReady) -> Void)? = nil) {
            self.datadir = datadir
            self.overrides = overrides
            self.allowUnsafe = allowUnsafe
            self.watchSignals = watchSignals
            self.log = log
            self.engines = engines
            self.onReady = onReady
        }
    }

    /// The KV key holding the wallet's birthday: the chain height at the first run, so
    /// later runs scan only blocks that can hold the wallet's coins.
    static let birthdayKey = "daemon.wallet_birthday_height"
    /// How long the background offer refresh waits between rounds (random in the range).
    static let offerRefreshMilliseconds: ClosedRange<UInt64> = 120_000...300_000

    /// A signalled daemon is gone within this many seconds: the watchdog exits the
    /// process if the orderly shutdown has not finished by then (a backend that does not
    /// answer must not keep the operator waiting; every state is already durable).
    static let shutdownSeconds: UInt64 = 9

    public let options: Options
    private let watchdog = Mutex<Task<Void, Never>?>(nil)
    private let stop: AsyncStream<Void>
    private let stopSink: AsyncStream<Void>.Continuation

    public init(options: Options) {
        self.options = options
        (stop, stopSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks a running daemon to stop, as SIGTERM does; before `run()` it stops right
    /// after starting.
    public func requestShutdown() {
        stopSink.yield()
    }

    public func run() async throws(DaemonError) {
        let log = options.log
        let config = try DataDirectory.loadConfig(datadir: options.datadir, overrides: options.overrides,
                                                  allowUnsafe: options.allowUnsafe)
        let seed = try DataDirectory.loadSeed(datadir: options.datadir)
        // Before anything else is made: a second daemon on this directory stops here.
        let lock = try DataDirectoryLock.acquire(datadir: options.datadir)
        let loop: EventLoop
        do {
            loop = try EventLoop()
        } catch {
            lock.release()
            throw .file("cannot start the event loop: \(ErrorText.describe(error))")
        }
        var teardown = Teardown()
        teardown.add("data directory lock") { lock.release() }
        teardown.add("event loop") { await loop.shutdown() }
        do {
            try await start(config: config, seed: seed, loop: loop, teardown: &teardown)
        } catch {
            log("start-up failed: \(ErrorText.describe(error))")
            await teardown.run(log: log)
            watchdog.withLock { $0?.cancel() }
            throw error
        }
        for await _ in stop { break }
        log("shutting down")
        await teardown.run(log: log)
        watchdog.withLock { $0?.cancel() }
        log("stopped")
    }

    private func start(config: NodeConfig, seed: NodeSeed, loop: EventLoop, teardown: inout Teardown) async throws(DaemonError) {
        let log = options.log
        let identity = NodeIdentity(seed: seed)
        let identityPacket = try PubkyIdentityFile.load(datadir: config.datadir, node: identity.pubky)
        log("peernode \(identityPacket.map { "\($0.pubky.z32) (node key \(identity.pubky.z32))" } ?? identity.pubky.z32) "
            + "on \(config.network.rawValue), data in \(config.datadir)")

        if options.watchSignals {
            // Watched before anything listens, so a signal during start-up stops cleanly.
            let watcher: SignalWatcher
            do {
                watcher = try await SignalWatcher.start(watching: [SIGINT, SIGTERM], loop: loop)
            } catch {
                throw .file("cannot watch SIGINT/SIGTERM: \(ErrorText.describe(error))")
            }
            let sink = stopSink
            let forward = Task {
                var received = 0
                for await signal in watcher.signals {
                    received += 1
                    guard received == 1 else {
                        // The operator insists: every state is durable (each store write is one
                        // committed transaction), so leaving now loses nothing a restart needs.
                        log("received signal \(signal) again: exiting now")
                        _exit(ExitCode.interrupted)
                    }
                    log("received signal \(signal): stopping (attached commands are detached; a second signal exits at once)")
                    sink.yield()
                    self.exitIfStillStopping(afterSeconds: Self.shutdownSeconds, log: log)
                }
            }
            teardown.add("signal watcher") {
                await watcher.stop()
                await forward.value
            }
        }
        // Before the store is opened: a second daemon must not touch the first one's files.
        if await ControlSocket.isAnswering(path: config.controlSocket, loop: loop) {
            throw .alreadyRunning(socket: config.controlSocket)
        }

        try Self.apply(NodeDoctor.dataDirectory(config.datadir), log: log) { .file($0.sentence) }

        // `init` made the database beside the seed, so a missing one was lost (or moved
        // away): SQLite would silently make an empty one, which must not pass for a new node.
        let databaseIsNew = PosixFile.kind(of: config.storeFile) == nil
        let store: SQLiteSwapStore
        do {
            store = try SQLiteSwapStore.open(path: config.storeFile)
        } catch {
            throw .store(path: config.storeFile, reason: error.description)
        }
        teardown.add("store") { await store.close() }
        try await guardSwapIndexes(store, config: config, databaseIsNew: databaseIsNew)

        let latency = BackendLatency()
        let rpc = BitcoinCoreRPC(endpoint: config.bitcoind, credentials: config.bitcoindCredentials, loop: loop,
                                 timeoutMilliseconds: 30_000, latency: latency.bitcoind)
        teardown.add("Bitcoin Core client") { await rpc.shutDown() }
        let chain: any ChainBackend
        let tipHeight: Int
        if let server = config.electrum {
            let electrum = ElectrumBackend(server: server, network: config.network, loop: loop)
            teardown.add("Electrum client") { await electrum.shutDown() }
            tipHeight = try await Self.checkElectrum(electrum, config: config, log: log)
            chain = electrum
        } else {
            tipHeight = try await checkBitcoind(rpc: rpc, config: config)
            chain = BitcoinCoreBackend(rpc: rpc, network: config.network)
        }

        let lightning = try await connectLND(config, loop: loop, latency: latency.lnd)
        teardown.add("LND client") { await lightning.shutDown() }
        if let electrum = chain as? ElectrumBackend {
            // LND's best block tells a server that stopped following from one a block behind,
            // and anchors the headers of a server the operator does not run.
            await electrum.followReference {
                guard let status = try? await lightning.info() else { return nil }
                return (status.blockHeight, status.blockHash)
            }
            if config.broadcastsThroughLND {
                // A server not the operator's could swallow a claim: LND's wallet relays each too.
                await electrum.broadcastAlsoThrough(ElectrumSecondBroadcast.route(through: lightning, url: config.lnd.url))
                log("electrum: \(electrum.server.url) is not marked as yours (electrum_trusted=0): every tip and confirmation "
                    + "it gives counts only once its headers link to LND's best block, and every broadcast goes through "
                    + "LND's wallet too")
            }
        }
        // doctor's warnings about an LND that answers (not synced, no outbound liquidity).
        if let status = try? await lightning.info() {
            for check in await NodeDoctor.lndState(lightning, status: status) {
                try Self.apply(check, log: log) { .lnd(url: config.lnd.url, reason: $0.detail) }
            }
        }

        let wallet = try await startWallet(config: config, seed: seed, store: store, chain: chain, tipHeight: tipHeight,
                                           teardown: &teardown)
        let feeEstimator = FeeEstimator(backend: chain, policy: config.fees)
        let clock = try await startClock(config: config, rpc: rpc, loop: loop, teardown: &teardown)
        let submarineLiquidity = SubmarineLiquidity()
        let desk = config.provider.enabled
            ? try makeDesk(config: config, identity: identity, wallet: wallet, fees: feeEstimator, clock: clock,
                           lightning: lightning, submarineLiquidity: submarineLiquidity) : nil

        let engines = SwapEnginesBox()
        var servesPeer: NodePeerHandlers.ServesPeer?
        if config.provider.contactsOnly {
            servesPeer = { peer in
                // A peer is the key it proved: a contact's node key.
                let contact = try? await store.contact(nodeKey: peer)
                return contact != nil
            }
        }
        // Invoices for saved contacts (accept_lightning), made by this node's LND.
        let invoiceDesk = config.lightningReceive.enabled
            ? ContactInvoiceDesk(identity: identity, lightning: lightning, limits: ContactInvoiceDesk.limits(config.lightningReceive),
                                 expirySeconds: UInt64(config.lightningReceive.expirySeconds)) { peer in
                (try? await store.contact(nodeKey: peer)) != nil
            }
            : nil
        // Peer events at the operator's choice (log_peer_events): each is one line, and a
        // flood of refusals would drown the rest of the log.
        let peerLog = config.logPeerEvents ? PeerLog { log("peer: \($0)") } : .silent
        // Saved contacts are never evicted to make room for a newcomer. A store that cannot
        // list them now protects none until contacts are added; serving goes on either way.
        let protectedPeers = ProtectedPeers((try? await store.contacts().map(\.nodeKey)) ?? [])
        // peer_connections_per_host scales the per-host handshake budget (8 by default) and
        // the group's share with it; the defaults are PeerLimits'.
        let perHost = config.peerConnectionsPerHost
        let limits = PeerLimits(maxHandshakes: max(64, perHost / 2), maxHandshakesPerHost: max(8, perHost / 2),
                                maxConnectionsPerHost: perHost, maxConnectionsPerNetworkGroup: max(32, 2 * perHost))
        let peerServer = PeerServer(identity: identity, sleeper: loop.sleeper, limits: limits, log: peerLog,
                                    handlers: NodePeerHandlers.make(wallet: wallet, network: config.network, desk: desk,
                                                                    engines: engines, servesPeer: servesPeer,
                                                                    invoiceDesk: invoiceDesk,
                                                                    acceptsOnchain: config.acceptOnchain,
                                                                    swapList: SwapListDesk(store: store, identity: identity,
                                                                                           network: config.network)),
                                    isProtected: { protectedPeers.contains($0) })
        let pkarr = await startPkarr(config: config, identityPacket: identityPacket, store: store, clock: clock, loop: loop,
                                     teardown: &teardown)
        var dialer = PeerDialer(identity: identity, loop: loop)
        // A contact found through pkarr that moved is looked up again when its old address fails.
        let reResolve = pkarr?.reResolver(store: store)
        dialer.reResolve = reResolve
        let prober = PeerOfferProber(identity: identity, network: config.network, sleeper: loop.sleeper) { contact in
            do {
                return try await TCPConnection.connect(host: contact.host, port: Int(contact.port), loop: loop)
            } catch {
                guard let moved = await reResolve?(contact.pubky), moved.host != contact.host || moved.port != Int(contact.port)
                else { throw error }
                return try await TCPConnection.connect(host: moved.host, port: moved.port, loop: loop)
            }
        }
        let router = Router(settings: Router.Settings(network: config.network), prober: prober, sleeper: loop.sleeper,
                            clock: clock)
        let services = NodeServices(config: config, seed: seed, identity: identity, loop: loop, store: store, chain: chain,
                                    feeEstimator: feeEstimator, lightning: lightning, wallet: wallet, desk: desk,
                                    router: router, dialer: dialer, peerServer: peerServer,
                                    protectedPeers: protectedPeers, clock: clock, backendLatency: latency,
                                    submarineLiquidity: submarineLiquidity,
                                    pkarr: pkarr,
                                    pubkyIdentity: identityPacket?.pubky)
        if let factory = options.engines {
            do {
                let built = try await factory(services)
                engines.set(built)
                teardown.add("swap engines") {
                    await built.submarineProvider?.shutdown()
                    await built.provider?.shutdown()
                    await built.client?.shutdown()
                }
            } catch let error as DaemonError {
                throw error
            } catch {
                throw .file("the swap engines could not start: \(ErrorText.describe(error))")
            }
        }
        // Offers live 10 minutes; re-probing the contacts every few minutes in the background
        // keeps them cached, so a payment rarely needs a probe and does not show to the
        // contacts as a burst of them right before it.
        // Contacts that publish a descriptor are ranked from it and never re-probed; with
        // private_discovery=1 nobody is (docs/PUBKY.md, section 8).
        await router.startRefresh(contacts: {
            let all = (try? await services.routeCandidates()) ?? []
            guard services.pkarr != nil else { return all }
            let discovery = await services.discovery(for: all)
            guard discovery.probeUnpublished else { return [] }
            return all.filter { discovery.published[$0.pubky] == nil }
        }, intervalMilliseconds: Self.offerRefreshMilliseconds)
        teardown.add("router") { await router.stopRefresh() }

        let listener: PeerListener
        do {
            listener = try await PeerListener.start(server: peerServer, host: config.listen.host, port: config.listen.port,
                                                    loop: loop)
        } catch {
            throw .listen(address: config.listen.description, reason: "\(ErrorText.describe(error))")
        }
        teardown.add("peer listener and peers") { await listener.close() }
        let bound = NodeConfig.HostPort(host: config.listen.host, port: listener.port)
        log("listening for peers on \(bound)" + (config.provider.enabled ? " (provider on)" : ""))
        if let pkarr = services.pkarr {
            let publisher = PkarrPublisher(node: identity, addresses: pkarr.settings.addresses, port: UInt16(listener.port),
                                           ttlSeconds: pkarr.settings.ttlSeconds, relays: pkarr.relays,
                                           identityPacket: pkarr.identityPacket, clock: clock, log: log,
                                           descriptor: Self.descriptorSource(desk: desk, clock: clock, network: config.network,
                                                                             log: log))
            pkarr.setPublisher(publisher)
            await publisher.start(checkMilliseconds: Self.publishCheckMilliseconds, sleeper: loop.sleeper)
            await pkarr.sweep.start(intervalMilliseconds: UInt64(pkarr.settings.discoveryIntervalSeconds) * 1_000,
                                    sleeper: loop.sleeper)
        }

        let dispatcher = ControlDispatcher(services: services, engines: engines, listenAddress: bound.description,
                                           stop: { [stopSink] in stopSink.yield() })
        let control = try await ControlServer.start(path: config.controlSocket, handler: dispatcher, loop: loop)
        teardown.add("control socket") { await control.close() }
        log("control socket \(config.controlSocket)")
        let statusPort = try await startStatus(config: config, services: services, engines: engines, listen: bound.description,
                                               loop: loop, teardown: &teardown)
        options.onReady?(DaemonReady(pubky: services.publicPubky.z32, listenHost: bound.host, listenPort: bound.port,
                                     controlSocket: config.controlSocket, statusPort: statusPort))
    }

    /// The status API when `status_listen` is set (docs/STATUS.md): started last, so it
    /// stops first. Off loopback it serves whoever reaches the port and holds the token:
    /// allowed, since the operator wrote the address, but said at start as a warning.
    private func startStatus(config: NodeConfig, services: NodeServices, engines: SwapEnginesBox, listen: String,
                             loop: EventLoop, teardown: inout Teardown) async throws(DaemonError) -> Int? {
        guard let address = config.statusListen else { return nil }
        let reader = StatusReader(services: services, engines: engines, listenAddress: listen,
                                  startedAt: Int64(SystemClock().nowUnix))
        let sessions = StatusSessions { Int64(SystemClock().nowUnix) }
        let server = try await StatusServer.start(address: address, reader: reader, sessions: sessions, loop: loop)
        teardown.add("status API") { await server.close() }
        let bound = NodeConfig.HostPort(host: address.host, port: server.port)
        if !NodeConfig.isLoopback(address.host) {
            options.log("warning: the status API listens on \(bound), which is not a loopback address: anyone who can reach it "
                        + "and holds the token reads this node's swaps and balances; set status_listen=127.0.0.1:PORT to keep it on this machine")
        }
        options.log("status API on http://\(bound) (token in \(NodeConfig.path(config.datadir, StatusToken.fileName)))")
        return server.port
    }

    /// The watchdog of a signalled shutdown; cancelled when the shutdown finishes in time
    /// (a process that runs daemons and goes on, like a test, must not be ended later).
    private func exitIfStillStopping(afterSeconds seconds: UInt64, log: DaemonLog) {
        let task = Task.detached {
            do {
                try await Task.sleep(nanoseconds: seconds * 1_000_000_000)
            } catch {
                return
            }
            log("shutdown did not finish within \(seconds) s: exiting now (every state is durable; the next start resumes it)")
            _exit(ExitCode.failure)
        }
        watchdog.withLock { $0 = task }
    }

    /// The swap index high-water mark beside the seed (`SwapIndexMark`): the store's counter
    /// is raised to it, and a new or stale database flags a recovery scan as required before
    /// new client swaps (audit H-5).
    private func guardSwapIndexes(_ store: SQLiteSwapStore, config: NodeConfig,
                                  databaseIsNew: Bool) async throws(DaemonError) {
        let mark = SwapIndexMark(path: NodeConfig.path(config.datadir, SwapIndexMark.fileName))
        let check: SwapIndexMarkCheck
        do {
            check = try await store.attachIndexMark(mark, databaseIsNew: databaseIsNew)
        } catch {
            throw .store(path: config.storeFile, reason: error.description)
        }
        if check.counter != check.counterBefore {
            options.log("swap index raised from \(check.counterBefore) to \(check.counter) (the mark in \(mark.path))")
        }
        if let reason = check.recoveryReason {
            options.log("recovery required: \(reason); pay, swap-out and quote are refused until `peernode recover` has run")
        } else if let pending = try? await RecoveryFlag.reason(in: store) {
            options.log("recovery still required: \(pending); run `peernode recover`")
        }
    }

    /// Bitcoin Core on the node's network, with `-txindex` (doctor's checks); its height.
    private func checkBitcoind(rpc: BitcoinCoreRPC, config: NodeConfig) async throws(DaemonError) -> Int {
        let log = options.log
        let chain = BitcoinCoreBackend(rpc: rpc, network: config.network)
        let info: BlockchainInfo
        do {
            info = try await chain.checkNetwork()
        } catch .wrongNetwork(let expected, let actual) {
            throw .misconfigured(key: "network", reason: "Bitcoin Core at \(config.bitcoind.url) runs \(actual), this node expects \(expected)",
                                 fix: "set network to Core's, or bitcoind_rpc_host/bitcoind_rpc_port to a \(config.network.rawValue) node")
        } catch {
            throw .bitcoind(url: config.bitcoind.url, reason: error.description)
        }
        log("Bitcoin Core at \(config.bitcoind.url): \(info.chain), height \(info.tip.height)")
        // doctor's check, with its words: without -txindex a lock or claim confirmed while
        // the node was stopped cannot be fetched.
        let indexCheck = await NodeDoctor.txIndex(rpc: rpc)
        try Self.apply(indexCheck, log: log) {
            .bitcoind(url: config.bitcoind.url, reason: $0.sentence)
        }
        return info.tip.height
    }

    /// The Electrum server: protocol 1.4+, the node's network (genesis), a tip: doctor's
    /// check, with its words; its height. A server on another network stops the start.
    static func checkElectrum(_ electrum: ElectrumBackend, config: NodeConfig, log: DaemonLog) async throws(DaemonError) -> Int {
        let (check, tip) = await NodeDoctor.electrum(electrum, config: config)
        guard let tip else {
            if check.name == NodeDoctor.electrumNetworkCheck {
                throw .misconfigured(key: "electrum_server", reason: check.detail, fix: check.fix ?? "")
            }
            throw .electrum(server: electrum.server.url, reason: check.sentence)
        }
        log(check.detail)
        return tip.height
    }

    /// The wall clock, or on regtest under `PEERNODE_TEST_CLOCK=hub` the hub's simulated
    /// one (`TestClock`). Every time-based rule takes its time from what this returns.
    private func startClock(config: NodeConfig, rpc: BitcoinCoreRPC, loop: EventLoop,
                            teardown: inout Teardown) async throws(DaemonError) -> any UnixClock {
        guard TestClock.fromEnvironment(network: config.network, log: options.log) != nil else { return SystemClock() }
        let clock: HubFollowingClock
        do {
            clock = try await HubFollowingClock.start(rpc: rpc, sleeper: loop.sleeper, log: options.log)
        } catch {
            throw .bitcoind(url: config.bitcoind.url, reason: "\(TestClock.environmentKey): \(ErrorText.describe(error))")
        }
        teardown.add("test clock") { await clock.stop() }
        options.log("test clock: hub time \(clock.nowUnix), wall time \(SystemClock().nowUnix)")
        return clock
    }

    /// A `doctor` check at start: fatal stops the start with doctor's message and fix; a
    /// warning is logged.
    private static func apply(_ check: DoctorCheck, log: DaemonLog, _ error: (DoctorCheck) -> DaemonError) throws(DaemonError) {
        switch check.status {
        case .ok: return
        case .warning: log("warning (\(check.name)): \(check.sentence)")
        case .fatal: throw error(check)
        }
    }

    private func connectLND(_ config: NodeConfig, loop: EventLoop,
                            latency: LatencyHistogram) async throws(DaemonError) -> LNDRESTClient {
        // The macaroon's permissions read offline (no call needs `macaroon:read`): a missing
        // one stops the start naming the calls that need it, not a refusal mid-swap.
        try Self.apply(NodeDoctor.macaroon(config), log: options.log) {
            .misconfigured(key: "lnd_macaroon", reason: $0.detail, fix: $0.fix ?? "")
        }
        var macaroon: [UInt8]
        do {
            macaroon = try PosixFile.read(config.lnd.macaroonPath, limit: 64 * 1024)
        } catch {
            throw .misconfigured(key: "lnd_macaroon", reason: "cannot read the macaroon file \(config.lnd.macaroonPath): \(ErrorText.describe(error))",
                                 fix: "set lnd_macaroon to LND's admin.macaroon (or one with invoice and offchain permissions)")
        }
        defer { for index in macaroon.indices { macaroon[index] = 0 } }
        let configuration = LNDRESTClient.Configuration(host: config.lnd.host, port: config.lnd.port, macaroon: macaroon,
                                                        network: config.network, latency: latency)
        // TLS trusting only lnd_tls_cert, or plain HTTP (loopback only, checked by the config).
        let connector: HTTPClient.Connector
        if let certificatePath = config.lnd.tlsCertificatePath {
            connector = TLSHTTPConnector(loop: loop, certificatePath: certificatePath).connector
        } else {
            connector = { host, port in try await TCPConnection.connect(host: host, port: port, loop: loop) }
        }
        do {
            let client = try await LNDRESTClient.connect(configuration: configuration, sleeper: loop.sleeper, connector: connector)
            options.log("LND at \(config.lnd.url)")
            return client
        } catch .wrongNetwork(_, let expected, let actual) {
            throw .misconfigured(key: "network", reason: "LND at \(config.lnd.url) runs \(actual), this node is set up for \(expected)",
                                 fix: "set network to LND's, or lnd_rest_host/lnd_rest_port to an LND on \(config.network.rawValue)")
        } catch {
            throw .lnd(url: config.lnd.url, reason: error.description)
        }
    }

    /// The wallet from the seed, its birthday (the tip at the first run, kept in the
    /// store), a first sync, and a loop that syncs every `wallet_sync_seconds`.
    private func startWallet(config: NodeConfig, seed: NodeSeed, store: SQLiteSwapStore, chain: any ChainBackend,
                             tipHeight: Int, teardown: inout Teardown) async throws(DaemonError) -> Wallet {
        let birthday: Int
        do {
            if let stored = try await store.value(forKey: Self.birthdayKey),
               let height = Int(String(decoding: stored, as: UTF8.self)) {
                birthday = height
            } else {
                birthday = tipHeight
                try await store.setValue(Array(String(tipHeight).utf8), forKey: Self.birthdayKey)
            }
        } catch {
            throw .store(path: config.storeFile, reason: error.description)
        }
        let wallet: Wallet
        do {
            wallet = try seed.withUnsafeSecretBytes { bytes in
                // Own unconfirmed change is spendable (within a share of Core's cluster
                // limits), so one coin serves several locks a block (issue 14,
                // docs/ENGINES.md "Provider capacity"); others' unconfirmed coins never are.
                try Wallet(seed: Array(bytes), configuration: WalletConfiguration(network: config.network, birthdayHeight: birthday,
                                                                                  minimumConfirmations: 0),
                           backend: chain)
            }
        } catch {
            throw .wallet("\(ErrorText.describe(error))")
        }
        do {
            try await wallet.attachMarkStore(store)
        } catch {
            throw .store(path: config.storeFile, reason: error.description)
        }
        let log = options.log
        do {
            try await wallet.sync()
        } catch {
            // Not fatal: the loop retries, and commands report what the chain says.
            log("first wallet sync failed: \(ErrorText.describe(error))")
        }
        let interval = UInt64(config.walletSyncSeconds) * 1_000
        let syncLoop = Task {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(nanoseconds: interval * 1_000_000)
                } catch {
                    return
                }
                do {
                    try await wallet.sync()
                } catch {
                    log("wallet sync failed: \(ErrorText.describe(error))")
                }
            }
        }
        teardown.add("wallet sync") {
            syncLoop.cancel()
            await syncLoop.value
        }
        return wallet
    }

    private func makeDesk(config: NodeConfig, identity: NodeIdentity, wallet: Wallet, fees: FeeEstimator,
                          clock: any UnixClock, lightning: LNDRESTClient,
                          submarineLiquidity: SubmarineLiquidity) throws(DaemonError) -> ProviderDesk {
        let submarine: SubmarineTerms?
        do {
            submarine = try config.submarine.terms()
        } catch {
            throw .config(ConfigError(key: "submarine_timeout_blocks", value: "\(config.submarine.timeoutBlocks)", origin: nil,
                                      problem: .invalidValue(problem: error.description, allowed: "see `peernode help config`")))
        }
        let terms = ProviderTerms(network: config.network,
                                  feeModel: FeeModel(baseFeeSat: config.provider.baseFeeSat, feePPM: config.provider.feePPM),
                                  minAmountSat: config.provider.minAmountSat, maxAmountSat: config.provider.maxAmountSat,
                                  requiredConfirmations: config.confirmations, htlcTimeoutBlocks: config.htlcTimeoutBlocks,
                                  quoteLifetimeSeconds: config.provider.quoteLifetimeSeconds,
                                  // musig2: the offers say it and the engine co-signs (`ProviderEngine.cooperates`).
                                  extraFeatures: [OfferFeature.preimagePush] + (config.musig2 ? [OfferFeature.musig2] : []),
                                  refundFeeCap: config.fees.cap, submarine: submarine)
        let fallback = config.fees.fallback
        return ProviderDesk(identity: identity, terms: terms, clock: clock) {
            // Offers are priced from what a lock may spend now (confirmed coins and the
            // wallet's own unconfirmed change within its cluster share: issue 14) and the
            // lock's fee estimate; without an estimate the configured fallback prices it
            // (the offer says which rate it used, so the client sees it).
            let capacity = await wallet.capacity()
            let rate = (try? await fees.feeRate(targetBlocks: 2)) ?? fallback
            // onchain_to_ln: what LND can send in one payment now, less what accepted
            // submarine swaps are promised; unread (LND unreachable), the direction is not
            // listed rather than listed with a guess.
            var outbound: Int64?
            if submarine != nil, let spendable = try? await lightning.spendableBalance() {
                outbound = max(0, Int64(clamping: spendable / 1_000) - submarineLiquidity.promisedSat)
            }
            return ProviderState(liquiditySat: capacity.lockableSat, feeRate: rate, waitingSat: capacity.waitingSat,
                                 lightningOutboundSat: outbound)
        }
    }
}
