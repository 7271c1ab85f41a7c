import Regtest

/// Command-line options of `peernode-regtest`.
struct HubOptions {
    var rpcHost = "127.0.0.1"
    /// 0: any free port.
    var rpcPort = 0
    var rpcUser = "peernode"
    /// Nil: a random one is generated and printed.
    var rpcPassword: String?
    /// Seconds between automatic blocks; nil: no auto-mining.
    var autoMineSeconds: Int?
    /// libbitcoinkernel's path; nil: `$PEERNODE_KERNEL_LIB`.
    var kernelPath: String?
    /// Core v31's relay policy (0.1 sat/vB) instead of the hub's default (1 sat/vB).
    var corePolicy = false
    /// Simulated seconds per real second of the hub's clock (1: real time).
    var clockRate = 1
    /// Simulated seconds between blocks the hub mines by itself; nil: none.
    var blockIntervalSeconds: Int?
    /// Lightning nodes created at start, each with its own LND REST server.
    var lightningNodes: [RegtestHub.NodeSpec] = []
    /// Where each Lightning node's tls.cert is written; nil: a new directory under /tmp.
    var datadir: String?
    /// Every LND REST server in plain HTTP (LND's no-rest-tls) instead of TLS.
    var lndPlainHTTP = false
    /// pkarr relays served, each on a free port (`hub_pkarr_relay`).
    var pkarrRelays = 0

    static let usage = """
        usage: peernode-regtest [options]

        Runs the regtest hub: a chain validated by Bitcoin Core's kernel behind Bitcoin Core's
        JSON-RPC, and a Lightning simulator behind LND's REST API (one port per node), on
        loopback. Prints its endpoints and credentials as one JSON line, then serves until
        SIGINT or SIGTERM.

        options:
          --rpcport <port>        JSON-RPC port (default: a free one)
          --rpcuser <user>        Basic auth user (default: peernode)
          --rpcpassword <pass>    Basic auth password (default: random)
          --automine <seconds>    mine a block every <seconds>
          --kernel <path>         libbitcoinkernel.so (default: $PEERNODE_KERNEL_LIB)
          --core-policy           Core v31's 0.1 sat/vB relay floor instead of 1 sat/vB
          --clock-rate <n>        the hub's clock runs <n> simulated seconds per real second
                                  (default 1: real time); served by hub_clock, followed by
                                  Lightning invoice expiry and by daemons started with
                                  PEERNODE_TEST_CLOCK=hub
          --block-interval-seconds <s>
                                  mine a block every <s> simulated seconds (600: mainnet
                                  pace); replaces --automine
          --ln-node <name[:sat]>  a Lightning node with its own LND REST server, funded with
                                  <sat> satoshis (default 0); repeat for more nodes
          --datadir <dir>         where each Lightning node's TLS certificate is written, as
                                  <dir>/<node>/tls.cert (default: a new directory under /tmp)
          --lnd-plain-http        serve LND REST in plain HTTP (LND's no-rest-tls) instead of
                                  TLS with a fresh self-signed certificate per node
          --pkarr-relays <n>      serve <n> pkarr relays (PUT and GET /<z32>, pkarr's
                                  design/relays.md), each on a free port (default 0)
          --help                  this text
        """

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// Parses the arguments; nil when `--help` was asked for.
    static func parse(_ arguments: [String]) throws -> HubOptions? {
        var options = HubOptions()
        var remaining = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let next = remaining.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
            return next
        }
        func number(_ flag: String, _ range: ClosedRange<Int>) throws -> Int {
            let text = try value(flag)
            guard let parsed = Int(text), range.contains(parsed) else {
                throw UsageError(description: "\(flag) takes a number in \(range.lowerBound)...\(range.upperBound), not \(text)")
            }
            return parsed
        }
        while let flag = remaining.popFirst() {
            switch flag {
            case "--rpcport": options.rpcPort = try number(flag, 0...65_535)
            case "--rpcuser": options.rpcUser = try value(flag)
            case "--rpcpassword": options.rpcPassword = try value(flag)
            case "--automine": options.autoMineSeconds = try number(flag, 1...86_400)
            case "--kernel": options.kernelPath = try value(flag)
            case "--core-policy": options.corePolicy = true
            case "--clock-rate": options.clockRate = try number(flag, 1...100_000)
            case "--block-interval-seconds": options.blockIntervalSeconds = try number(flag, 1...86_400)
            case "--ln-node": options.lightningNodes.append(try nodeSpec(value(flag)))
            case "--datadir": options.datadir = try value(flag)
            case "--lnd-plain-http": options.lndPlainHTTP = true
            case "--pkarr-relays": options.pkarrRelays = try number(flag, 0...16)
            case "--help", "-h": return nil
            default: throw UsageError(description: "unknown option \(flag)")
            }
        }
        if options.lndPlainHTTP && options.datadir != nil {
            throw UsageError(description: "--datadir holds the TLS certificates, which --lnd-plain-http turns off: give one of them")
        }
        guard !options.rpcUser.contains(":") else { throw UsageError(description: "--rpcuser may not contain ':'") }
        var names = Set<String>()
        for node in options.lightningNodes where !names.insert(node.name).inserted {
            throw UsageError(description: "--ln-node \(node.name) given twice")
        }
        return options
    }

    /// `NAME[:BALANCE_SAT]`: a name without ':' and a balance in whole satoshis.
    private static func nodeSpec(_ text: String) throws -> RegtestHub.NodeSpec {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0])
        guard !name.isEmpty else { throw UsageError(description: "--ln-node needs a name, not \(text)") }
        guard parts.count == 2 else { return RegtestHub.NodeSpec(name: name, balanceSat: 0) }
        // 21 million BTC: no node can hold more than the whole supply.
        guard let balance = Int64(parts[1]), (0...2_100_000_000_000_000).contains(balance) else {
            throw UsageError(description: "--ln-node \(name) takes a balance in satoshis, not \(parts[1])")
        }
        return RegtestHub.NodeSpec(name: name, balanceSat: balance)
    }

    var policy: MempoolPolicy { corePolicy ? .coreV31Defaults : MempoolPolicy() }
}
