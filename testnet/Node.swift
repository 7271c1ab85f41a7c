import Foundation

/// What a node should be: its Lightning balance on the hub and its provider settings.
struct NodeSpec {
    let name: String
    var lightningSat: Int64 = 0
    var provider = false
    var baseFeeSat: Int64 = 500
    var feePPM: Int64 = 2_000
    /// Extra `key=value` config lines.
    var extraConfig: [String] = []
    /// Added to the daemon's environment at every start (`PEERNODE_TEST_CLOCK=hub`).
    var environment: [String: String] = [:]
    /// Its LND REST on plain HTTP (`lnd_rest_tls=0`) instead of the hub's default TLS: for
    /// the benchmark's TLS-against-plain figures.
    var plainLND = false
    /// Whether it answers its contacts' invoice requests (`accept_lightning`). Off here
    /// unless asked (or implied by `accept_onchain=0`, a payee paid on Lightning only):
    /// most scenarios pay a contact on chain through a provider, and a contact that took
    /// Lightning would be paid directly from a Lightning balance instead.
    var acceptsLightning = false
    /// Keep the daemon's own per-host peer budgets (16 per IP) instead of the runner's 256:
    /// for the flood scenarios, whose attackers dial from other loopback addresses.
    var realPeerBudgets = false
    /// A Pubky recovery file (empty passphrase) whose identity becomes the node's pubky,
    /// certifying its node key (`init --pubky-recovery-file`, docs/PUBKY.md); published to
    /// the hub's relays.
    var pubkyRecoveryFile: String? = nil
}

/// One `peernode` node of the run: its data directory (seed, config, store, socket), its
/// Lightning node on the hub, and its daemon process while running.
final class Node {
    let spec: NodeSpec
    let datadir: String
    let pubky: String
    private(set) var process: Process?
    /// Where peers reach it (host:port as the daemon bound it), once it has run.
    private(set) var listen: String?

    var name: String { spec.name }
    var isRunning: Bool { process?.isRunning ?? false }

    private let net: Testnet

    /// Creates the node's Lightning node on the hub, runs `peernode init`, and writes
    /// its macaroon file and a config pointing at the hub.
    init(_ spec: NodeSpec, in net: Testnet) throws(Failure) {
        self.spec = spec
        self.net = net
        datadir = net.supervisor.runDirectory + "/" + spec.name
        let lightning = try net.hub.rpc.call("hub_ln_addnode", [spec.name, spec.lightningSat, spec.plainLND || net.plainLND])
        guard let ln = JSON.object(lightning), let lnPort = JSON.int(ln["rest_port"]),
              let macaroon = JSON.string(ln["macaroon_hex"]), let macaroonBytes = Self.bytes(hex: macaroon) else {
            throw Failure("hub_ln_addnode \(spec.name): no rest_port or macaroon_hex in \(JSON.line(lightning).prefix(300))")
        }
        // The balance the hub opened the node's channels with: money that is no swap's.
        if spec.lightningSat != 0 { net.ledger.deposit(spec.name, msat: spec.lightningSat * 1_000, "hub_ln_addnode") }
        var initArguments = ["init", "--datadir", datadir, "--network", "regtest", "--json"]
        var initEnvironment: [String: String] = [:]
        if let file = spec.pubkyRecoveryFile {
            // The passphrase from a file, never argv: the sample's is empty.
            let passphrase = net.supervisor.runDirectory + "/\(spec.name).passphrase"
            guard FileManager.default.createFile(atPath: passphrase, contents: Data(), attributes: [.posixPermissions: 0o600]) else {
                throw Failure("cannot write \(passphrase)")
            }
            initEnvironment["PEERNODE_PUBKY_PASSPHRASE_FILE"] = passphrase
            initArguments += ["--pubky-recovery-file", file, "--pkarr-relay", net.hub.pkarrRelays.joined(separator: ",")]
        }
        let made = try net.tools.run(net.binaries.node, initArguments, timeout: 30, environment: initEnvironment)
        guard made.ok, let pubky = JSON.string(made.json?["pubky"]) else {
            throw Failure("peernode init \(spec.name) failed (exit \(made.status)): \(made.failureText)")
        }
        self.pubky = pubky
        // The macaroon is a file of raw bytes, as LND writes admin.macaroon.
        guard FileManager.default.createFile(atPath: datadir + "/lnd.macaroon", contents: Data(macaroonBytes),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw Failure("cannot write \(datadir)/lnd.macaroon")
        }
        let rpc = net.hub.rpc
        var lines = [
            "# Written by peernode-testnet: this node runs against the regtest hub on loopback.",
            "network=regtest",
            "listen=127.0.0.1:0",
            "bitcoind_rpc_host=127.0.0.1",
            "bitcoind_rpc_port=\(rpc.port)",
            "bitcoind_rpc_user=\(rpc.user)",
            "bitcoind_rpc_password=\(rpc.password)",
            "lnd_rest_host=127.0.0.1",
            "lnd_rest_port=\(lnPort)",
            "lnd_macaroon=lnd.macaroon",
            // The hub's fresh self-signed tls.cert for this node, as a user points at LND's.
            JSON.string(ln["tls_cert_path"]).map { "lnd_tls_cert=\($0)" } ?? "lnd_rest_tls=0",
            "wallet_sync_seconds=1",
        ]
        if !spec.realPeerBudgets {
            // Every daemon here dials from 127.0.0.1: to the per-host budget they are one
            // host. Real nodes each have their own address and keep the default 16.
            lines.append("peer_connections_per_host=256")
        }
        if spec.provider {
            lines += ["provider=1", "base_fee_sat=\(spec.baseFeeSat)", "fee_ppm=\(spec.feePPM)"]
        }
        let decidesLightning = spec.extraConfig.contains { $0.hasPrefix("accept_lightning=") || $0 == "accept_onchain=0" }
        if !spec.acceptsLightning && !decidesLightning { lines.append("accept_lightning=0") }
        lines += spec.extraConfig
        guard FileManager.default.createFile(atPath: datadir + "/peernode.conf", contents: Data((lines.joined(separator: "\n") + "\n").utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw Failure("cannot write \(datadir)/peernode.conf")
        }
    }

    /// Starts `peernode run` (output to `<name>.log`), without waiting; `environment` is
    /// added to the daemon's (a crash point, for the crash scenarios).
    func launch(environment: [String: String] = [:]) throws(Failure) {
        guard !isRunning else { return }
        // A daemon that died by itself (a crash point) is forgotten before its successor starts.
        if let dead = process { net.supervisor.release(dead) }
        process = try net.supervisor.start(name, executable: net.binaries.node, arguments: ["run", "--datadir", datadir],
                                           logName: "\(name).log",
                                           environment: spec.environment.merging(environment) { $1 })
    }

    /// Pins the peer port to the one the daemon bound, so a restarted daemon is found at
    /// the address its contacts saved (the config says port 0 only for the first start).
    func pinListenAddress() throws(Failure) {
        guard let listen else { throw Failure("\(name) has no bound address yet (never ran)") }
        let path = datadir + "/peernode.conf"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw Failure("cannot read \(path)") }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("listen=") ? "listen=\(listen)" : String($0) }
        guard FileManager.default.createFile(atPath: path, contents: Data(lines.joined(separator: "\n").utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw Failure("cannot write \(path)")
        }
    }

    /// Rewrites the config file line by line (before the first start).
    func rewriteConfig(_ transform: (String) -> String) throws(Failure) {
        let path = datadir + "/peernode.conf"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw Failure("cannot read \(path)") }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { transform(String($0)) }
        guard FileManager.default.createFile(atPath: path, contents: Data(lines.joined(separator: "\n").utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw Failure("cannot write \(path)")
        }
    }

    /// Waits until the control socket answers `status`; learns the listening address.
    func waitReady(timeout: TimeInterval = 60) throws(Failure) {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            guard let process, process.isRunning else {
                let log = (try? String(contentsOfFile: net.supervisor.runDirectory + "/\(name).log", encoding: .utf8)) ?? ""
                throw Failure("\(name)'s daemon exited before it was ready (\(self.process.map(Supervisor.describe) ?? "not started")):\n"
                    + String(log.suffix(1_000)))
            }
            let status = try cli(["status"], timeout: 10)
            if status.ok, let info = status.json, let listen = JSON.string(info["listen"]) {
                self.listen = listen
                return
            }
            last = status.failureText
            usleep(100_000)
        }
        throw Failure("\(name)'s daemon did not answer `peernode status` within \(Int(timeout)) s (last: \(last)); "
            + "see \(net.supervisor.runDirectory)/\(name).log")
    }

    func start() throws(Failure) {
        try launch()
        try waitReady()
    }

    /// Stops the daemon (SIGTERM, then SIGKILL after the grace period).
    @discardableResult
    func stop() -> String {
        guard let process else { return "\(name): not running" }
        self.process = nil
        return net.supervisor.stop(process)
    }

    /// `peernode <arguments> --datadir <dir> --json`.
    func cli(_ arguments: [String], timeout: TimeInterval = 30, line: ((String) -> Void)? = nil) throws(Failure) -> ToolResult {
        try net.tools.run(net.binaries.node, Self.confirmed(arguments) + ["--datadir", datadir, "--json"], timeout: timeout, line: line)
    }

    /// `peernode <arguments>` as a person sees it (no --json).
    func cliText(_ arguments: [String], timeout: TimeInterval = 30) throws(Failure) -> ToolResult {
        try net.tools.run(net.binaries.node, Self.confirmed(arguments) + ["--datadir", datadir], timeout: timeout)
    }

    /// The runner answers for the user: `pay`, `swap-out` and `wallet send` ask before money
    /// moves and refuse without a terminal, so the runner passes `--yes`.
    static func confirmed(_ arguments: [String]) -> [String] {
        let moves = ["pay", "swap-out", "swap-in"].contains(arguments.first ?? "") || arguments.prefix(2) == ["wallet", "send"]
        return moves && !arguments.contains("--yes") ? arguments + ["--yes"] : arguments
    }

    /// A command that must succeed; its JSON result.
    func must(_ arguments: [String], timeout: TimeInterval = 30) throws(Failure) -> [String: Any] {
        let result = try cli(arguments, timeout: timeout)
        guard result.ok, let json = result.json else {
            throw Failure("`peernode \(arguments.joined(separator: " "))` on \(name) failed (exit \(result.status)): \(result.failureText)")
        }
        return json
    }

    /// The on-chain wallet, synced with the chain first by the daemon.
    func walletBalance() throws(Failure) -> (confirmed: Int64, total: Int64) {
        let json = try must(["wallet", "balance"])
        return (JSON.int(json["confirmed_sat"]) ?? 0, JSON.int(json["total_sat"]) ?? 0)
    }

    func saveContact(_ other: Node, address: String? = nil) throws(Failure) {
        guard let target = address ?? other.listen else { throw Failure("\(other.name) has no address yet (never ran)") }
        _ = try must(["contacts", "add", other.name, other.pubky, target])
    }

    /// `contacts add <name> <pubky>`: no address, resolved through the pkarr relays.
    @discardableResult
    func saveContactByPubky(_ other: Node) throws(Failure) -> [String: Any] {
        try must(["contacts", "add", other.name, other.pubky])
    }

    /// The timestamp (µs) of the pkarr packet it last published, nil before the first.
    func publishedPacketTimestamp() throws(Failure) -> Int64? {
        JSON.int(JSON.object(JSON.object(try must(["status"])["pkarr"])?["published"])?["timestamp_us"])
    }

    /// Waits until it has published a packet newer than `than` (a republish after its
    /// offer, and so its capability descriptor, changed).
    func waitForRepublish(than previous: Int64?, timeout: TimeInterval = 20) throws(Failure) {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let now = try publishedPacketTimestamp(), now > previous ?? 0 { return }
            usleep(100_000)
        }
        throw Failure("\(name) published no new pkarr packet within \(Int(timeout)) s")
    }

    /// Inbound connections its peer server accepted since the start (`status`).
    func peerConnectionsAccepted() throws(Failure) -> Int64 {
        let status = try must(["status"])
        guard let accepted = JSON.int(JSON.object(status["peer_counters"])?["accepted"]) else {
            throw Failure("\(name): `status` has no peer_counters.accepted")
        }
        return accepted
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
            index += 2
        }
        return out
    }
}
