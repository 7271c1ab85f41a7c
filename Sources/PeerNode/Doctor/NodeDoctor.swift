#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Lightning
import Transport

/// `peernode doctor`: every backend and resource the node needs, checked from the config
/// alone (no daemon needed), each failure with what to do. `run` makes the same checks
/// that can stop it (`dataDirectory`, `txIndex`, the macaroon's permissions, the
/// backends' networks) with the same messages.
public enum NodeDoctor {
    public static func examine(config: NodeConfig, loop: EventLoop) async -> DoctorReport {
        var checks = [dataDirectory(config.datadir)]

        if let server = config.electrum {
            let electrum = ElectrumBackend(server: server, network: config.network, loop: loop, timeoutMilliseconds: 10_000)
            checks.append(await self.electrum(electrum, config: config).check)
            await electrum.shutDown()
        } else {
            checks += await bitcoind(config, loop: loop)
        }

        let macaroonCheck = macaroon(config)
        checks.append(macaroonCheck)
        if macaroonCheck.status != .fatal {
            checks += await lnd(config, loop: loop)
        }
        checks.append(await peerPort(config, loop: loop))
        return DoctorReport(checks: checks)
    }

    private static func bitcoind(_ config: NodeConfig, loop: EventLoop) async -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        let rpc = BitcoinCoreRPC(endpoint: config.bitcoind, credentials: config.bitcoindCredentials, loop: loop,
                                 timeoutMilliseconds: 10_000)
        let chain = BitcoinCoreBackend(rpc: rpc, network: config.network)
        do {
            let info = try await chain.checkNetwork()
            checks.append(DoctorCheck("bitcoind", .ok, "Bitcoin Core at \(config.bitcoind.url): \(info.chain), height \(info.tip.height)"))
            checks.append(await txIndex(rpc: rpc))
        } catch .wrongNetwork(let expected, let actual) {
            checks.append(DoctorCheck("bitcoind", .fatal, "Bitcoin Core at \(config.bitcoind.url) runs \(actual), this node expects \(expected)",
                                      fix: "set network to Core's, or bitcoind_rpc_host/bitcoind_rpc_port to a \(config.network.rawValue) node"))
        } catch {
            checks.append(DoctorCheck("bitcoind", .fatal, error.description,
                                      fix: "start bitcoind, or set bitcoind_rpc_host/bitcoind_rpc_port and its credentials in peernode.conf"))
        }
        await rpc.shutDown()
        return checks
    }

    // MARK: Electrum

    /// The check's name when the server follows another network (`run` then names the key).
    public static let electrumNetworkCheck = "electrum_network"
    /// The check's name when the server's tip stays behind LND's (ElectrumLagGuard).
    public static let electrumLagCheck = "electrum_lag"

    /// The Electrum server (`chain_backend=electrum`): it speaks protocol 1.4 or newer, its
    /// genesis block is the node's network's, and it has a tip. Returns the tip when all hold.
    public static func electrum(_ electrum: ElectrumBackend, config: NodeConfig) async -> (check: DoctorCheck, tip: ChainTip?) {
        let url = electrum.server.url
        do {
            let tip = try await electrum.tip()
            let software = await electrum.serverDescription ?? "an Electrum server"
            let trust = electrum.server.trusted
                ? "trusted (zero-conf claims allowed)" : "not the operator's own (claims wait for confirmations)"
            return (DoctorCheck("electrum", .ok, "Electrum server at \(url): \(software), \(config.network.rawValue), "
                                    + "height \(tip.height), \(trust)"), tip)
        } catch .wrongNetwork(let expected, let actual) {
            return (DoctorCheck(electrumNetworkCheck, .fatal, "the Electrum server at \(url) follows \(actual), this node expects \(expected)",
                                fix: "point electrum_server at a \(config.network.rawValue) server, or set network to the server's"), nil)
        } catch {
            if let lag = await electrum.lagging {
                return (DoctorCheck(electrumLagCheck, .fatal, lag.description,
                                    fix: "check the Electrum server's logs and its link to its Bitcoin node, or set electrum_server to one that follows the chain"),
                        nil)
            }
            return (DoctorCheck("electrum", .fatal, error.description,
                                fix: "start the Electrum server, or set electrum_server (and electrum_tls, electrum_tls_cert) in peernode.conf"), nil)
        }
    }

    // MARK: data directory

    /// The data directory holds the seed: it must be this user's, and closed to others.
    public static func dataDirectory(_ path: String) -> DoctorCheck {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return DoctorCheck("datadir", .fatal, "cannot read \(path): \(String(cString: strerror(errno)))",
                               fix: "create it with `peernode init --datadir \(path)`")
        }
        let mode = UInt32(info.st_mode) & 0o777
        let octal = String(mode, radix: 8)
        guard info.st_uid == geteuid() else {
            return DoctorCheck("datadir", .fatal, "\(path) belongs to uid \(info.st_uid), not to this user (uid \(geteuid()))",
                               fix: "run peernode as the directory's owner, or `chown -R` it to this user")
        }
        guard mode & 0o077 == 0 else {
            return DoctorCheck("datadir", .warning, "\(path) has mode \(octal): other users can list it (the seed file itself is 0600)",
                               fix: "chmod 700 \(path)")
        }
        return DoctorCheck("datadir", .ok, "\(path): mode \(octal), owned by this user")
    }

    // MARK: Bitcoin Core

    /// Core's transaction index: without it a transaction the node did not see in a block
    /// (a lock or claim confirmed while it was stopped) cannot be fetched by txid.
    public static func txIndex(rpc: BitcoinCoreRPC) async -> DoctorCheck {
        let fix = "add txindex=1 to bitcoin.conf and restart bitcoind (it builds the index in the background; "
            + "`peernode doctor` says when it has caught up)"
        let answer: JSONValue
        do {
            answer = try await rpc.call("getindexinfo", [.string("txindex")])
        } catch .rpc(let code, _) where code == -32601 {
            return DoctorCheck("txindex", .warning, "Bitcoin Core has no getindexinfo (older than v0.21): cannot tell whether -txindex is on",
                               fix: "upgrade Bitcoin Core, and run it with txindex=1")
        } catch {
            return DoctorCheck("txindex", .fatal, "cannot ask Bitcoin Core about its indexes: \(error.description)", fix: fix)
        }
        guard let index = answer["txindex"] else {
            return DoctorCheck("txindex", .fatal,
                               "Bitcoin Core runs without -txindex: the node could not find a lock or claim that confirmed while it was stopped",
                               fix: fix)
        }
        let height = index["best_block_height"]?.int64Value ?? 0
        guard index["synced"]?.boolValue == true else {
            return DoctorCheck("txindex", .warning, "Bitcoin Core's transaction index is still being built (at height \(height))",
                               fix: "wait until it has caught up with the chain; the node runs meanwhile")
        }
        return DoctorCheck("txindex", .ok, "transaction index synced (height \(height))")
    }

    // MARK: LND

    /// The macaroon file read offline: LND's format, and the permissions of the calls the
    /// node makes in its role.
    public static func macaroon(_ config: NodeConfig) -> DoctorCheck {
        let provider = config.provider.enabled
        let payee = config.lightningReceive.enabled
        let broadcasts = config.broadcastsThroughLND
        let role = (provider ? "provider" : "client") + (payee ? " taking Lightning payments (accept_lightning)" : "")
            + (broadcasts ? " on an Electrum server it does not run (electrum_trusted=0)" : "")
        let path = config.lnd.macaroonPath
        var bytes: [UInt8]
        do {
            bytes = try PosixFile.read(path, limit: 64 * 1024)
        } catch {
            return DoctorCheck("lnd_macaroon", .fatal, "cannot read the macaroon file \(path): \(ErrorText.describe(error))",
                               fix: "set lnd_macaroon to LND's admin.macaroon")
        }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        let check: MacaroonPermissionCheck
        do {
            check = try MacaroonPermissionCheck(bytes: bytes, provider: provider, payee: payee, broadcasts: broadcasts)
        } catch {
            return DoctorCheck("lnd_macaroon", .fatal, "\(path) is \(error)", fix: "set lnd_macaroon to LND's admin.macaroon")
        }
        guard check.isSufficient else {
            return DoctorCheck("lnd_macaroon", .fatal, "\(path): \(check.problem(role: role))",
                               fix: "use LND's admin.macaroon, or bake one: "
                                   + MacaroonPermissionCheck.bakeCommand(provider: provider, payee: payee, broadcasts: broadcasts)
                                   + (payee && check.missing.contains { $0.calls == [LNDCall.addInvoice.name] }
                                      ? "; or set accept_lightning=0 to take no Lightning payments from contacts" : "")
                                   + (broadcasts && check.missing.contains { $0.calls == [LNDCall.publishTransaction.name] }
                                      ? "; or set electrum_trusted=1 if the Electrum server is your own" : ""))
        }
        if !check.caveats.isEmpty {
            return DoctorCheck("lnd_macaroon", .warning,
                               "\(path) has every permission a \(role) needs, and caveats LND enforces: \(check.caveats.joined(separator: "; "))",
                               fix: "make sure they hold where and while the node runs (an ipaddr caveat must name this host's address; a time-before caveat ends its use)")
        }
        return DoctorCheck("lnd_macaroon", .ok, "\(path) has every permission a \(role) needs")
    }

    /// LND reached as `run` reaches it (TLS trusting only lnd_tls_cert), its network, whether
    /// it is synced, and its outbound liquidity.
    static func lnd(_ config: NodeConfig, loop: EventLoop) async -> [DoctorCheck] {
        var macaroon: [UInt8]
        do {
            macaroon = try PosixFile.read(config.lnd.macaroonPath, limit: 64 * 1024)
        } catch {
            return []
        }
        defer { for index in macaroon.indices { macaroon[index] = 0 } }
        let configuration = LNDRESTClient.Configuration(host: config.lnd.host, port: config.lnd.port, macaroon: macaroon,
                                                        network: config.network, requestTimeoutMilliseconds: 10_000)
        let connector: HTTPClient.Connector
        if let certificatePath = config.lnd.tlsCertificatePath {
            connector = TLSHTTPConnector(loop: loop, certificatePath: certificatePath).connector
        } else {
            connector = { host, port in try await TCPConnection.connect(host: host, port: port, loop: loop) }
        }
        let client: LNDRESTClient
        do {
            client = try await LNDRESTClient.connect(configuration: configuration, sleeper: loop.sleeper, connector: connector)
        } catch .wrongNetwork(_, let expected, let actual) {
            return [DoctorCheck("lnd", .fatal, "LND at \(config.lnd.url) runs \(actual), this node is set up for \(expected)",
                                fix: "set network to LND's, or lnd_rest_host/lnd_rest_port to an LND on \(config.network.rawValue)")]
        } catch {
            let fix = config.lnd.tlsCertificatePath.map {
                "start LND, check lnd_rest_host/lnd_rest_port, and that \($0) is the tls.cert of that LND (restlisten, tlsextraip/tlsextradomain)"
            } ?? "start LND and check lnd_rest_host/lnd_rest_port"
            return [DoctorCheck("lnd", .fatal, error.description, fix: fix)]
        }
        var checks: [DoctorCheck] = []
        let transport = config.lnd.tlsCertificatePath.map { "TLS, certificate \($0)" } ?? "plain HTTP on loopback"
        do {
            let status = try await client.info()
            checks.append(DoctorCheck("lnd", .ok, "LND at \(config.lnd.url) (\(transport)): \(status.alias), \(status.network), height \(status.blockHeight)"))
            checks += await lndState(client, status: status)
        } catch {
            checks.append(DoctorCheck("lnd", .fatal, error.description, fix: "check LND's logs"))
        }
        await client.shutDown()
        return checks
    }

    /// What an LND that answers may still lack: being synced, outbound liquidity. Warnings
    /// only (`run` logs them at start).
    public static func lndState(_ client: LNDRESTClient, status: LightningNodeStatus) async -> [DoctorCheck] {
        var checks = [status.syncedToChain
            ? DoctorCheck("lnd_synced", .ok, "LND is synced to the chain")
            : DoctorCheck("lnd_synced", .warning, "LND is not synced to the chain yet: payments and invoices may fail until it is",
                          fix: "wait for LND to catch up with its chain backend (`lncli getinfo`: synced_to_chain)")]
        do {
            // What LND lets it send, not the balance: a channel's reserve cannot go out.
            let balance = try await client.channelBalance() / 1_000
            let outbound = try await client.spendableBalance() / 1_000
            checks.append(outbound == 0
                ? DoctorCheck("lnd_balance", .warning,
                              "no outbound Lightning liquidity (0 sat sendable, \(balance) sat in channels counting their reserves): "
                                  + "this node cannot pay through a provider",
                              fix: "open a channel from this LND (`lncli openchannel`)")
                : DoctorCheck("lnd_balance", .ok, "\(outbound) sat sendable in one payment (\(balance) sat in channels counting their reserves)"))
        } catch {
            checks.append(DoctorCheck("lnd_balance", .warning, "cannot read the channel balance: \(error.description)",
                                      fix: "check LND's logs"))
        }
        return checks
    }

    // MARK: peer port

    /// The listen address can be bound (unless a daemon already holds it). Whether it is
    /// reachable from outside depends on routers and firewalls this host cannot see.
    static func peerPort(_ config: NodeConfig, loop: EventLoop) async -> DoctorCheck {
        if await ControlSocket.isAnswering(path: config.controlSocket, loop: loop) {
            return DoctorCheck("peer_port", .ok, "a daemon is running on this data directory and holds \(config.listen)")
        }
        do {
            let listener = try await TCPListener.bind(host: config.listen.host, port: config.listen.port, loop: loop)
            await listener.close()
            return DoctorCheck("peer_port", .ok, "\(config.listen) can be bound (reachability from outside is not tested: "
                               + "forward the port to this host for contacts elsewhere)")
        } catch {
            return DoctorCheck("peer_port", .fatal, "cannot listen on \(config.listen): \(ErrorText.describe(error))",
                               fix: "stop what holds the port, or set listen to a free host:port")
        }
    }
}
