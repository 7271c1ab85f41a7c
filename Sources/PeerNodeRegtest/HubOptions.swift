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

    static let usage = """
        usage: peernode-regtest [options]

        Runs the regtest hub: a chain validated by Bitcoin Core's kernel behind Bitcoin Core's
        JSON-RPC, on loopback. Prints its endpoints and credentials as one JSON line, then
        serves until SIGINT or SIGTERM.

        options:
          --rpcport <port>        JSON-RPC port (default: a free one)
          --rpcuser <user>        Basic auth user (default: peernode)
          --rpcpassword <pass>    Basic auth password (default: random)
          --automine <seconds>    mine a block every <seconds>
          --kernel <path>         libbitcoinkernel.so (default: $PEERNODE_KERNEL_LIB)
          --core-policy           Core v31's 0.1 sat/vB relay floor instead of 1 sat/vB
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
            case "--help", "-h": return nil
            default: throw UsageError(description: "unknown option \(flag)")
            }
        }
        guard !options.rpcUser.contains(":") else { throw UsageError(description: "--rpcuser may not contain ':'") }
        return options
    }

    var policy: MempoolPolicy { corePolicy ? .coreV31Defaults : MempoolPolicy() }
}
