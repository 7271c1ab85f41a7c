import Bitcoin
import HTLC
import Offers
import Transport

/// The provider engine as the daemon's peer server sees it: `answer(_:from:)`,
/// `receive(push:from:)` and `shutdown()` already have the protocol's shapes.
extension ProviderEngine: ProviderSwapService {}

/// The submarine engine as the daemon's peer server sees it (onchain_to_ln requests).
extension SubmarineProviderEngine: ProviderSwapService {}

/// Builds the daemon's swap engines (`NodeDaemon.Options.engines`): one chain follower
/// shared by both engines, the provider engine when `provider=1`, and the client engine
/// behind the control API's swap commands.
public enum NodeEngines {
    /// What the engines need beyond the daemon's config; defaults are DESIGN's, tests
    /// shorten the timers.
    public struct Settings: Sendable {
        /// Between chain polls. Core has no push channel over JSON-RPC; every engine
        /// decision about locks and claims waits on this, so it is short.
        public var followerPollMilliseconds: UInt64
        /// How long `pay` waits for the claim's first confirmation before saying the
        /// transfer is committed and settling (DESIGN 11: 30 s).
        public var confirmationWaitMilliseconds: UInt64
        /// How long after paying a swap with no broadcast claim is given up (DESIGN 6).
        public var giveUpSeconds: UInt64

        public init(followerPollMilliseconds: UInt64 = 2_000, confirmationWaitMilliseconds: UInt64 = 30_000,
                    giveUpSeconds: UInt64 = 600) {
            self.followerPollMilliseconds = max(50, followerPollMilliseconds)
            self.confirmationWaitMilliseconds = confirmationWaitMilliseconds
            self.giveUpSeconds = giveUpSeconds
        }
    }

    /// The factory. The daemon calls it after the wallet and the desk exist and before
    /// the peer listener serves, so:
    ///
    /// 1. the follower takes its first look at the chain (a failure is retried by its loop);
    /// 2. the provider engine starts: it re-publishes (or finds on chain) every recorded
    ///    but unpublished lock before any peer can ask for a new swap that would spend a coin;
    /// 3. the client engine resumes every unfinished client swap from its record.
    /// The shortest chain poll a fast test clock brings the follower to.
    static let fastestPollMilliseconds: UInt64 = 100

    public static func factory(settings: Settings = Settings(), log: DaemonLog = .silent) -> SwapEngineFactory {
        { services in
            let config = services.config
            // The poll stands for "soon after each block". Under the regtest test clock
            // (PEERNODE_TEST_CLOCK=hub) blocks come `rate` times sooner in real time, and a
            // 2 s poll would see them blocks late, so it shrinks with the clock, to no less
            // than a tenth of a second. On the wall clock it is the configured poll.
            let poll = min(settings.followerPollMilliseconds,
                           max(Self.fastestPollMilliseconds, services.clock.realMilliseconds(forSeconds: 2)))
            let follower = ChainFollower(backend: services.chain, sleeper: services.loop.sleeper,
                                         configuration: ChainFollower.Configuration(pollIntervalMilliseconds: poll))
            do {
                try await follower.poll()
            } catch {
                // Not fatal: the loop below retries, and the engines act on what it reports.
                log("chain follower: first poll failed: \(ErrorText.describe(error))")
            }
            let followerTask = Task { await follower.run() }
            // The secret bytes live only as long as the key chains being built from them.
            var seedBytes = services.seed.withUnsafeSecretBytes { Array($0) }
            defer { for index in seedBytes.indices { seedBytes[index] = 0 } }

            // The engines' store, behind a test crash point when PEERNODE_TEST_CRASH_AFTER
            // arms one on regtest (CrashPoint.swift); otherwise the store itself.
            let store = CrashPoint.store(wrapping: services.store, network: config.network, log: log)
            // Regtest tests only (PEERNODE_TEST_COOP, CoopFault.swift): every engine of the
            // node that co-signs refuses alike.
            let coopFault = CoopFault.fromEnvironment(network: config.network, log: log)
            var provider: ProviderEngine?
            var submarine: SubmarineProviderEngine?
            var commands: ClientCommands?
            do {
                if let desk = services.desk {
                    let dependencies = ProviderDependencies(
                        store: store, desk: desk, lightning: services.lightning, chain: services.chain,
                        feeEstimator: services.feeEstimator, wallet: services.wallet, follower: follower,
                        keyChain: try SwapKeyChain(seed: seedBytes, network: config.network), clock: services.clock)
                    let engine = ProviderEngine(dependencies: dependencies,
                                                configuration: ProviderConfiguration(
                                                    network: config.network,
                                                    // Regtest tests only (PEERNODE_TEST_LOCK, LockFault.swift).
                                                    lockFault: LockFault.fromEnvironment(network: config.network, log: log),
                                                    coopFault: coopFault),
                                                push: services.peerServer.providerPush,
                                                log: ProviderLog { log("provider: \($0)") },
                                                // Its clients with a live swap are kept from eviction.
                                                liveClients: services.protectedPeers.liveSwaps)
                    try await engine.start()
                    provider = engine
                    // The submarine engine shares the store, follower, wallet, keys and LND;
                    // it resumes its own unfinished swaps (the reverse engine skips them).
                    if let terms = desk.terms.submarine {
                        let submarineEngine = SubmarineProviderEngine(
                            dependencies: dependencies,
                            configuration: SubmarineProviderConfiguration(network: config.network,
                                                                          routingReserve: terms.routingReserve,
                                                                          coopFault: coopFault),
                            liquidity: services.submarineLiquidity,
                            // Its clients are reached over the connections they dialled (issue 17).
                            push: services.peerServer.providerPush, request: services.peerServer.providerRequest,
                            log: ProviderLog { log("provider (submarine): \($0)") })
                        try await submarineEngine.start()
                        submarine = submarineEngine
                    }
                }
                let configuration = ClientEngineConfiguration(
                    network: config.network, quotePolicy: QuotePolicy(maxFeePPM: config.maxFeePPM),
                    // On an Electrum server that is not the operator's, never (resolve refuses it too).
                    allowsZeroConf: config.zeroConf.enabled && config.chainBackendIsOwn, maxZeroConfSat: config.zeroConf.maxSat,
                    minimumConfirmations: config.clientMinConfirmations, giveUpSeconds: settings.giveUpSeconds,
                    confirmationWaitMilliseconds: settings.confirmationWaitMilliseconds,
                    completionConfirmations: config.clientFinalityConfirmations, cooperativeClaims: config.musig2)
                let client = try ClientEngine(configuration: configuration, seed: seedBytes, store: store,
                                              lightning: services.lightning, chain: services.chain,
                                              feeEstimator: services.feeEstimator, follower: follower,
                                              connector: services.dialer.clientConnector, clock: services.clock,
                                              sleeper: services.loop.sleeper, log: { log("client: \($0)") })
                // Submarine swaps (savings -> Lightning) share the store, the follower, the
                // wallet and the seed; their records are told apart by their direction.
                let submarineClient = try SubmarineClientEngine(
                    configuration: SubmarineClientConfiguration(
                        network: config.network, quotePolicy: QuotePolicy(maxFeePPM: config.maxFeePPM),
                        finalityConfirmations: config.clientFinalityConfirmations,
                        // Regtest tests only (PEERNODE_TEST_SUBMARINE_LOCK, SubmarineLockFault.swift).
                        lockFault: SubmarineLockFault.fromEnvironment(network: config.network, log: log),
                        cooperative: config.musig2, coopFault: coopFault),
                    seed: seedBytes, store: store, wallet: services.wallet, lightning: services.lightning,
                    chain: services.chain, feeEstimator: services.feeEstimator, follower: follower,
                    connector: services.dialer.clientConnector, clock: services.clock, sleeper: services.loop.sleeper,
                    log: { log("client: \($0)") })
                let built = ClientCommands(services: services, engine: client, submarine: submarineClient, provider: provider,
                                           follower: follower, followerTask: followerTask)
                commands = built
                let resumed = try await client.recover()
                if !resumed.isEmpty { log("client: resumed \(resumed.count) unfinished swap(s)") }
                let resumedSubmarine = try await submarineClient.recover()
                if !resumedSubmarine.isEmpty { log("client: resumed \(resumedSubmarine.count) unfinished submarine swap(s)") }
                return SwapEngines(provider: provider, client: built, submarineProvider: submarine)
            } catch {
                // Whatever started is stopped again: the daemon tears down only what the
                // factory returned.
                await submarine?.shutdown()
                await provider?.shutdown()
                if let commands {
                    await commands.shutdown()
                } else {
                    followerTask.cancel()
                    await follower.finish()
                }
                throw error
            }
        }
    }
}
