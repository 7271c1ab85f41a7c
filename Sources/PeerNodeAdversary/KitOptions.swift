import Bitcoin
import Transport

/// The kit's command line: whom to cheat, with what, and where its chain and Lightning
/// node are. Every endpoint is a flag of its own so the runner passes exactly what it
/// created (the hub's RPC port and credentials, the kit's Lightning node on the hub).
struct KitOptions {
    static let usage = """
        usage: peernode-adversary --attack <name> --provider <pubky> --provider-address <host:port>
                                  --bitcoind <host:port> --rpc-user <user> --rpc-password <password>
                                  [--lnd <host:port> --lnd-macaroon <file> [--lnd-tls-cert <file>]]
                                  [--seed-file <file>] [--amount <sat>] [--network regtest]
                                  [--wait-seconds <s>]
                                  [--sources <ip,...>] [--seconds <s>] [--connections <n>] [--identities <n>]
                                  [--count <n>] [--in-flight <n>] [--interval-ms <ms>]

        Plays a scripted hostile client against a provider daemon and prints one JSON line
        saying what happened. Attacks: \(Attack.names).

          --attack            the script to play
          --provider          the provider's pubky (z-base-32)
          --provider-address  where the provider's daemon listens
          --bitcoind          the chain's JSON-RPC (the regtest hub), with --rpc-user/--rpc-password
          --lnd               the REST endpoint of the kit's own Lightning node (every attack but
                              retired-p2wsh pays through it), with --lnd-macaroon (raw bytes)
                              and --lnd-tls-cert (its tls.cert; without it: plain HTTP)
          --seed-file         32 raw bytes (as `peernode init` writes); default: a fresh identity
          --amount            sat the destination should receive (default 25000)
          --wait-seconds      the longest wait for the provider or the chain (default 600)

        Floods (slot-churn, slot-holders, quote-flood, push-flood, address-flood,
        handshake-flood) and the honest probe run for --seconds (default 30) and need no
        Lightning node:
          --sources           loopback addresses the flood's sockets bind to, comma-separated
                              (default 127.1.0.1; Linux routes all of 127/8 to loopback);
                              the probe always dials from 127.0.0.1
          --connections       parallel connections or workers (default 300)
          --identities        pubkys the slot holders share (default: one per connection)
          --count             QuoteRequests a quote flood sends at most (default 10000)
          --in-flight         QuoteRequests waiting at once (default 32)
          --interval-ms       pause between two probes (default 200)

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
    /// LND's tls.cert, the only certificate trusted; nil: plain HTTP.
    var tlsCertificatePath: String?
    var seedFile: String?
    var amountSat: Int64 = 25_000
    var network: Network = .regtest
    var waitSeconds: UInt64 = 600
    var sources = ["127.1.0.1"]
    var seconds: UInt64 = 30
    var connections = 300
    var identities: Int?
    var count = 10_000
    var inFlight = 32
    var intervalMilliseconds = 200

    /// Parses `words`; a message naming the problem when they do not make a command line.
    static func parse(_ words: [String]) throws(KitError) -> KitOptions {
        var values: [String: String] = [:]
        var index = 0
        let known: Set<String> = ["--attack", "--provider", "--provider-address", "--bitcoind", "--rpc-user", "--rpc-password",
                                  "--lnd", "--lnd-macaroon", "--lnd-tls-cert", "--seed-file", "--amount", "--network", "--wait-seconds",
                                  "--sources", "--seconds", "--connections", "--identities", "--count", "--in-flight",
                                  "--interval-ms"]
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
            options.tlsCertificatePath = values["--lnd-tls-cert"]
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
        if let list = values["--sources"] {
            let sources = list.split(separator: ",").map(String.init)
            guard !sources.isEmpty, sources.allSatisfy({ SocketAddress(numericHost: $0, port: 0) != nil }) else {
                throw KitError("--sources must be numeric IP addresses, comma-separated, got \(list)")
            }
            options.sources = sources
        }
        func positive(_ flag: String) throws(KitError) -> Int? {
            guard let text = values[flag] else { return nil }
            guard let number = Int(text), number > 0 else { throw KitError("\(flag) must be a positive number") }
            return number
        }
        if let seconds = try positive("--seconds") { options.seconds = UInt64(seconds) }
        if let connections = try positive("--connections") { options.connections = connections }
        options.identities = try positive("--identities")
        if let count = try positive("--count") { options.count = count }
        if let inFlight = try positive("--in-flight") { options.inFlight = inFlight }
        if let interval = try positive("--interval-ms") { options.intervalMilliseconds = interval }
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
