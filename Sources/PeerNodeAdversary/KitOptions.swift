import Bitcoin
import Transport

/// The kit's command line: whom to cheat, with what, and where its chain and Lightning
/// node are. Every endpoint is a flag of its own so the runner passes exactly what it
/// created (the hub's RPC port and credentials, the kit's Lightning node on the hub).
struct KitOptions {
    static let usage = """
        usage: peernode-adversary --attack <name> --provider <pubky> --provider-address <host:port>
                                  --bitcoind <host:port> --rpc-user <user> --rpc-password <password>
                                  [--lnd <host:port> --lnd-macaroon <file>]
                                  [--seed-file <file>] [--amount <sat>] [--network regtest]
                                  [--wait-seconds <s>]

        Plays a scripted hostile client against a provider daemon and prints one JSON line
        saying what happened. Attacks: \(Attack.names).

          --attack            the script to play
          --provider          the provider's pubky (z-base-32)
          --provider-address  where the provider's daemon listens
          --bitcoind          the chain's JSON-RPC (the regtest hub), with --rpc-user/--rpc-password
          --lnd               the REST endpoint of the kit's own Lightning node (every attack but
                              retired-p2wsh pays through it), with --lnd-macaroon (raw bytes)
          --seed-file         32 raw bytes (as `peernode init` writes); default: a fresh identity
          --amount            sat the destination should receive (default 25000)
          --wait-seconds      the longest wait for the provider or the chain (default 600)

        exit codes: 0 the attack ran as scripted (whatever the provider did), 1 it could not
        run (the message says why), 2 usage error
        """

    var attack: Attack
    var provider: Pubky
    var providerHost: String
    var providerPort: Int
    var bitcoindHost: String
    var bitcoindPort: Int
    var rpcUser: String
    var rpcPassword: String
    var lndHost: String?
    var lndPort: Int?
    var macaroonPath: String?
    var seedFile: String?
    var amountSat: Int64 = 25_000
    var network: Network = .regtest
    var waitSeconds: UInt64 = 600

    /// Parses `words`; a message naming the problem when they do not make a command line.
    static func parse(_ words: [String]) throws(KitError) -> KitOptions {
        var values: [String: String] = [:]
        var index = 0
        let known: Set<String> = ["--attack", "--provider", "--provider-address", "--bitcoind", "--rpc-user", "--rpc-password",
                                  "--lnd", "--lnd-macaroon", "--seed-file", "--amount", "--network", "--wait-seconds"]
        while index < words.count {
            let flag = words[index]
            guard known.contains(flag) else { throw KitError("unknown argument \(flag)") }
            guard index + 1 < words.count else { throw KitError("\(flag) needs a value") }
            guard values[flag] == nil else { throw KitError("\(flag) given twice") }
            values[flag] = words[index + 1]
            index += 2
        }
        func required(_ flag: String) throws(KitError) -> String {
            guard let value = values[flag] else { throw KitError("\(flag) is required") }
            return value
        }
        guard let attack = Attack(rawValue: try required("--attack")) else {
            throw KitError("--attack must be one of \(Attack.names)")
        }
        let provider: Pubky
        do { provider = try Pubky(parsing: try required("--provider")) } catch { throw KitError("--provider: \(error)") }
        let (providerHost, providerPort) = try hostPort(try required("--provider-address"), flag: "--provider-address")
        let (bitcoindHost, bitcoindPort) = try hostPort(try required("--bitcoind"), flag: "--bitcoind")
        var options = KitOptions(attack: attack, provider: provider, providerHost: providerHost, providerPort: providerPort,
                                 bitcoindHost: bitcoindHost, bitcoindPort: bitcoindPort,
                                 rpcUser: try required("--rpc-user"), rpcPassword: try required("--rpc-password"))
        if let lnd = values["--lnd"] {
            let (host, port) = try hostPort(lnd, flag: "--lnd")
            options.lndHost = host
            options.lndPort = port
            options.macaroonPath = try required("--lnd-macaroon")
        } else if attack.pays {
            // Every attack but the refused request pays the hold invoice first.
            throw KitError("--attack \(attack.rawValue) pays the provider's invoice: --lnd and --lnd-macaroon are required")
        }
        options.seedFile = values["--seed-file"]
        if let amount = values["--amount"] {
            guard let sat = Int64(amount), sat > 0 else { throw KitError("--amount must be a positive number of sat") }
            options.amountSat = sat
        }
        if let name = values["--network"] {
            guard let network = Network(rawValue: name) else { throw KitError("--network: unknown network \(name)") }
            options.network = network
        }
        if let wait = values["--wait-seconds"] {
            guard let seconds = UInt64(wait), seconds > 0 else { throw KitError("--wait-seconds must be a positive number") }
            options.waitSeconds = seconds
        }
        return options
    }

    /// `host:port`, the port after the last colon (a bracketed IPv6 literal keeps its own).
    static func hostPort(_ text: String, flag: String) throws(KitError) -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (1...65_535).contains(port) else {
            throw KitError("\(flag) must be host:port, got \(text)")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw KitError("\(flag) has no host: \(text)") }
        return (host, port)
    }
}
