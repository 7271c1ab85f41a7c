#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// One run's network: the hub and the nodes, all under one run directory, all ended by
/// the supervisor. Scenarios build on it.
final class Testnet {
    let supervisor: Supervisor
    let binaries: Binaries
    let hub: Hub
    let tools: ToolRunner
    private(set) var nodes: [Node] = []
    /// Money moved to or from the nodes other than by their own swaps (the accounting check's terms).
    let ledger = BalanceLedger()
    /// Every node's LND REST in plain HTTP (`lnd_rest_tls=0`) rather than the hub's TLS:
    /// `bench --plain-lnd`, the benchmark's comparison run.
    var plainLND = false
    /// Config lines every node created from now on gets (`chain_backend=electrum` and the
    /// server): how a Core scenario's body runs unchanged with its nodes on ElectrumX.
    var chainConfig: [String] = []
    /// Other config lines every node created from now on gets (`bench --coop`: `musig2=0`).
    var nodeConfig: [String] = []
    /// The nodes read the chain from an Electrum server, whose view differs from Core's
    /// where a scenario must say so (a reorg is seen once the new chain is longer).
    var onElectrum: Bool { chainConfig.contains("chain_backend=electrum") }

    /// `hubArguments`: extra `peernode-regtest` options (a simulated clock).
    init(supervisor: Supervisor, binaries: Binaries, hubArguments: [String] = []) throws(Failure) {
        self.supervisor = supervisor
        self.binaries = binaries
        tools = ToolRunner(supervisor: supervisor, scratch: supervisor.runDirectory)
        // Each Lightning node's tls.cert goes under the run directory, kept with the logs.
        hub = try Hub.start(binaries, supervisor: supervisor, arguments: ["--datadir", supervisor.runDirectory + "/hub"] + hubArguments)
        // Without fee data the nodes fall back to 10 sat/vB, which prices a 20,000 sat
        // swap above the client's 5 % fee limit. A quiet chain's 1 sat/vB, served through
        // estimatesmartfee as Core would, is what a regtest user sees.
        _ = try hub.rpc.call("hub_setfeeestimate", [Self.feeRateSatPerKvB])
    }

    static let feeRateSatPerKvB = 1_000

    /// Creates the nodes (Lightning node on the hub, data directory, config).
    func add(_ specs: [NodeSpec]) throws(Failure) -> [Node] {
        var made: [Node] = []
        for var spec in specs {
            spec.extraConfig += chainConfig + nodeConfig
            let node = try Node(spec, in: self)
            nodes.append(node)
            made.append(node)
        }
        return made
    }

    /// Starts the daemons together, then waits for each to answer.
    func start(_ list: [Node]) throws(Failure) {
        for node in list { try node.launch() }
        for node in list { try node.waitReady() }
    }

    func node(_ name: String) -> Node? { nodes.first { $0.name == name } }

    /// Pays `sats` from the hub to a fresh address of each node's wallet, `coins` times
    /// (one coin per concurrent lock a provider must fund), mined into a block (one block
    /// for all of them when there are several), then waits for the wallets to count them
    /// as confirmed.
    func fund(_ list: [Node], sats: Int64, coins: Int = 1, timeout: TimeInterval = 60) throws(Failure) {
        var expected: [(Node, Int64)] = []
        for node in list {
            let before = try node.walletBalance().confirmed
            for _ in 0..<coins {
                guard let address = JSON.string(try node.must(["wallet", "address"])["address"]) else {
                    throw Failure("\(node.name): `wallet address` returned no address")
                }
                // hub_fund takes BTC as Core does; the amount is exact in 8 decimals.
                let btc = NSDecimalNumber(mantissa: UInt64(sats), exponent: -8, isNegative: false)
                _ = try hub.rpc.call("hub_fund", [address, btc, coins == 1])
                ledger.deposit(node.name, msat: sats * 1_000, "hub_fund")
            }
            expected.append((node, before + sats * Int64(coins)))
        }
        if coins > 1 { try hub.mine(1) }
        let deadline = Date().addingTimeInterval(timeout)
        for (node, want) in expected {
            while true {
                let have = try node.walletBalance().confirmed
                if have >= want { break }
                if Date() > deadline {
                    throw Failure("\(node.name)'s wallet shows \(formatSats(have)) confirmed, not \(formatSats(want)), after \(Int(timeout)) s")
                }
                usleep(200_000)
            }
        }
    }

    /// Mines one block at a time until `done` holds, at most `blocks` blocks.
    func mine(until description: String, blocks: Int, _ done: () throws(Failure) -> Bool) throws(Failure) -> Int {
        for mined in 0...blocks {
            if try done() { return mined }
            if mined == blocks { break }
            try hub.mine(1)
            // The wallets follow the chain every second.
            usleep(300_000)
        }
        throw Failure("\(description) did not happen within \(blocks) blocks")
    }
}
