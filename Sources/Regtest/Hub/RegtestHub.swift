import Bitcoin
import Transport

/// The whole regtest hub as one running thing: the kernel-validated chain, the Lightning
/// simulator coupled to it, Bitcoin Core's JSON-RPC (with the `hub_*` control methods)
/// and an LND REST server per Lightning node, all on loopback. `peernode-regtest` runs
/// exactly this; tests start it in-process the same way.
///
///     let hub = try await RegtestHub.start(RegtestHub.Configuration(credentials: credentials), loop: loop)
///     print(hub.endpoints.compact)
///     await hub.stop()
public final class RegtestHub: Sendable {
    public struct Configuration: Sendable {
        /// libbitcoinkernel's path; nil: `$PEERNODE_KERNEL_LIB`.
        public var kernelPath: String?
        public var policy: MempoolPolicy
        public var rpcHost: String
        /// 0: any free port.
        public var rpcPort: Int
        public var credentials: HTTPBasicCredentials
        /// Seconds between automatic blocks; nil: none.
        public var autoMineSeconds: Int?
        /// Where the LND REST servers listen (each on a free port).
        public var lightningHost: String
        /// Nodes created at start, in order.
        public var lightningNodes: [NodeSpec]
        /// Where each Lightning node's `tls.cert` is written (`<dir>/<node>/tls.cert`), its
        /// REST server then speaking TLS as LND does; nil: plain HTTP (LND's `no-rest-tls`).
        public var lightningTLSDirectory: String?
        /// How often the hub expires Lightning invoices (time-based; tip changes are pushed by the chain).
        public var housekeepingMilliseconds: UInt64
        /// Core's delay before refusing a wrong RPC password.
        public var authFailureDelayMilliseconds: UInt64
        /// Unix seconds, shared by the chain (block and mempool times) and the Lightning
        /// network (invoice times and expiry).
        public var clock: @Sendable () -> Int64
        /// Simulated seconds per real second of the hub's `SimulatedClock` (1: `clock` itself).
        public var clockRate: Int
        /// Simulated seconds between the blocks the hub mines by itself; nil: none.
        public var blockIntervalSeconds: Int?
        /// False: the hub acts as a Core started without `-txindex` (`getindexinfo` is
        /// empty; confirmed transactions need their block hash), for `doctor`'s tests.
        public var txIndex: Bool = true
        /// pkarr relays to serve, each on its own free port of `rpcHost` (`PkarrRelay`).
        public var pkarrRelays: Int

        public init(kernelPath: String? = nil, policy: MempoolPolicy = MempoolPolicy(), rpcHost: String = "127.0.0.1",
                    rpcPort: Int = 0, credentials: HTTPBasicCredentials, autoMineSeconds: Int? = nil,
                    lightningHost: String = "127.0.0.1", lightningNodes: [NodeSpec] = [], lightningTLSDirectory: String? = nil,
                    housekeepingMilliseconds: UInt64 = 250, authFailureDelayMilliseconds: UInt64 = 250,
                    clock: (@Sendable () -> Int64)? = nil, clockRate: Int = 1, blockIntervalSeconds: Int? = nil,
                    pkarrRelays: Int = 0) {
            self.kernelPath = kernelPath
            self.policy = policy
            self.rpcHost = rpcHost
            self.rpcPort = rpcPort
            self.credentials = credentials
            self.autoMineSeconds = autoMineSeconds
            self.lightningHost = lightningHost
            self.lightningNodes = lightningNodes
            self.lightningTLSDirectory = lightningTLSDirectory
            self.housekeepingMilliseconds = housekeepingMilliseconds
            self.authFailureDelayMilliseconds = authFailureDelayMilliseconds
            // Nil: the wall clock.
            self.clock = clock ?? { Int64(HubClock.now()) }
            self.clockRate = clockRate
            self.blockIntervalSeconds = blockIntervalSeconds
            self.pkarrRelays = pkarrRelays
        }
    }

    /// A Lightning node to create at start.
    public struct NodeSpec: Sendable, Equatable {
        public var name: String
        public var balanceSat: Int64

        public init(name: String, balanceSat: Int64) {
            self.name = name
            self.balanceSat = balanceSat
        }
    }

    public let chain: RegtestChain
    public let hubChain: HubChain
    public let lightning: HubLightning
    public let rpc: BitcoinRPCService
    public let credentials: HTTPBasicCredentials
    public let simulatedClock: SimulatedClock
    /// The test pkarr relays, in index order (`hub_pkarr_relay`).
    public let pkarrRelays: [PkarrRelayService]

    /// How far block times may run ahead of the wall clock. Core's kernel refuses a header
    /// more than 2 hours past its own (wall) clock (`time-too-new`), and a clock at rate 600
    /// gets there in 12 real seconds: past this lead, block times stop following the
    /// simulated clock and advance by the median-time-past rule (each above the median of
    /// the 11 before it), so they still always increase.
    public static let maxBlockTimeLeadSeconds: Int64 = 3_600

    private init(chain: RegtestChain, hubChain: HubChain, lightning: HubLightning, rpc: BitcoinRPCService,
                 credentials: HTTPBasicCredentials, simulatedClock: SimulatedClock, pkarrRelays: [PkarrRelayService]) {
        self.simulatedClock = simulatedClock
        self.pkarrRelays = pkarrRelays
        self.chain = chain
        self.hubChain = hubChain
        self.lightning = lightning
        self.rpc = rpc
        self.credentials = credentials
    }

    /// Starts everything on `loop` (which the caller owns and shuts down after `stop()`).
    /// When a step fails, what already started is stopped again before the error is thrown.
    public static func start(_ configuration: Configuration, loop: EventLoop) async throws -> RegtestHub {
        let wall = configuration.clock
        let simulated = SimulatedClock(rate: configuration.clockRate, wall: wall)
        let lead = maxBlockTimeLeadSeconds
        // At rate 1 this is `wall` exactly: simulated() == wall() and the cap never binds.
        let blockClock: @Sendable () -> Int64 = { min(simulated.now(), wall() + lead) }
        let chain = try RegtestChain(libraryPath: configuration.kernelPath, policy: configuration.policy,
                                     clock: blockClock)
        let hubChain = HubChain(chain: chain, policy: configuration.policy, sleeper: loop.sleeper, txIndex: configuration.txIndex)
        // Invoice times and expiry follow the simulated clock: an invoice's 10 minutes are
        // a block's worth of simulated time, as on mainnet. (HTLC expiry is in blocks.)
        let lightning = HubLightning(chain: chain, loop: loop, host: configuration.lightningHost,
                                     tlsDirectory: configuration.lightningTLSDirectory, clock: { simulated.now() })
        lightning.startHousekeeping(everyMilliseconds: housekeepingMilliseconds(configured: configuration.housekeepingMilliseconds,
                                                                                rate: simulated.rate))
        let rpc: BitcoinRPCService
        var relays: [PkarrRelayService] = []
        do {
            for _ in 0..<configuration.pkarrRelays {
                relays.append(try await PkarrRelayService.start(host: configuration.rpcHost, loop: loop))
            }
            for node in configuration.lightningNodes {
                _ = try await lightning.addNode(name: node.name, balanceSat: node.balanceSat)
            }
            let clock = configuration.clock
            let server = BitcoinRPCServer(credentials: configuration.credentials,
                                          methods: BitcoinRPCMethods.all(hubChain, lightning: lightning)
                                              + [BitcoinRPCMethods.hubClock(simulated, blockIntervalSeconds:
                                                                                configuration.blockIntervalSeconds)]
                                              + BitcoinRPCMethods.hubPkarr(relays),
                                          sleeper: loop.sleeper,
                                          authFailureDelayMilliseconds: configuration.authFailureDelayMilliseconds,
                                          clock: clock)
            rpc = try await BitcoinRPCService.start(server, host: configuration.rpcHost, port: configuration.rpcPort,
                                                    loop: loop)
        } catch {
            // Starting the RPC service is the last step that can fail, so nothing of it runs.
            for relay in relays { await relay.stop() }
            await lightning.stop()
            chain.close()
            throw error
        }
        if let seconds = configuration.blockIntervalSeconds {
            hubChain.autoMiner.start(everyMilliseconds: simulated.realMilliseconds(forSimulatedSeconds: seconds),
                                     to: hubChain.wallet.script)
        } else if let seconds = configuration.autoMineSeconds {
            hubChain.autoMiner.start(everySeconds: seconds, to: hubChain.wallet.script)
        }
        return RegtestHub(chain: chain, hubChain: hubChain, lightning: lightning, rpc: rpc,
                          credentials: configuration.credentials, simulatedClock: simulated, pkarrRelays: relays)
    }

    /// How often the invoice timer runs: as configured on the wall clock; on a faster
    /// simulated clock no more than one simulated second apart, down to 10 ms real. LND's
    /// expiry watcher cancels an invoice when its expiry passes; at 600x a 250 ms tick
    /// would tell subscribers up to 150 simulated seconds late, at 10 ms it is 6. (Calls
    /// are exact whatever the tick: each expires invoices before it answers.)
    public static func housekeepingMilliseconds(configured: UInt64, rate: Int) -> UInt64 {
        guard rate > 1 else { return max(1, configured) }
        return max(1, min(configured, max(10, UInt64(1_000 / rate))))
    }

    /// Stops serving (RPC first, so no call arrives mid-way), the auto-miner, the
    /// Lightning timer and every LND REST server, then releases the kernel.
    public func stop() async {
        await rpc.stop()
        for relay in pkarrRelays { await relay.stop() }
        await hubChain.shutDown()
        await lightning.stop()
        chain.close()
    }

    /// Where everything listens and how to log in: the object `peernode-regtest` prints.
    public var endpoints: OrderedJSON {
        let host = rpc.host.contains(":") ? "[\(rpc.host)]" : rpc.host
        return .object([
            "bitcoind": .object([
                "rpc_url": .string("http://\(host):\(rpc.port)/"), "host": .string(rpc.host), "port": .int(rpc.port),
                "user": .string(credentials.user), "password": .string(credentials.password), "network": "regtest",
                "methods": .array(rpc.server.methodNames.map { .string($0) }),
            ]),
            "lightning": BitcoinRPCMethods.lightningNodesJSON(lightning),
            "pkarr_relays": .array(pkarrRelays.map { .string($0.url) }),
        ])
    }
}
