#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Bitcoin
import Synchronization
import Transport

/// The hub's Lightning side: one simulated network whose nodes each have an LND REST
/// server on loopback, kept in step with the hub's chain. With a TLS directory each server
/// speaks TLS, as LND does by default, with a fresh certificate in `<dir>/<node>/tls.cert`.
///
/// The network hears of every tip change from the chain itself (`RegtestChain.onTipChange`),
/// on the thread that changed it, before that call returns: a caller that mined or
/// reorganised over RPC sees held HTLCs cancelled by the time its reply arrives, and
/// auto-mined blocks reach the network the same way. The housekeeping timer only expires
/// invoices, which depends on time, not on blocks.
public final class HubLightning: Sendable {
    public let network: LightningNetwork
    private let chain: RegtestChain
    private let loop: EventLoop
    private let host: String
    /// Where each node's `tls.cert` goes (a folder per node); nil: every server plain HTTP.
    private let tlsDirectory: String?
    /// REST servers by node name; nil once the hub is stopping, so a late `addNode`
    /// cannot leave a server running.
    private let servers = Mutex<[String: LNDRESTServer]?>([:])
    private let housekeeping = Mutex<Task<Void, Never>?>(nil)
    /// Where the nodes' macaroon files are (made at the first node), and each node's paths.
    private let macaroonFiles = Mutex<LNDMacaroonFiles?>(nil)
    private let macaroonPaths = Mutex<[String: [String: String]]>([:])

    /// - Parameters:
    ///   - host: where the LND REST servers listen (loopback).
    ///   - clock: the hub's clock in Unix seconds, shared with the chain.
    ///   - tlsDirectory: where each node's `tls.cert` is written; nil: plain HTTP for all.
    init(chain: RegtestChain, loop: EventLoop, host: String, tlsDirectory: String? = nil,
         clock: @escaping @Sendable () -> Int64) {
        self.chain = chain
        self.loop = loop
        self.host = host
        self.tlsDirectory = tlsDirectory
        let network = LightningNetwork(chainTip: { chain.height }, clock: { UInt64(max(0, clock())) })
        self.network = network
        chain.onTipChange { height, _ in network.blockConnected(height: height) }
    }

    // MARK: nodes

    /// Creates a node funded with `balanceSat` and starts its REST server on a free
    /// port with a fresh random macaroon, over TLS with a fresh certificate when the hub
    /// has a TLS directory, unless `plainHTTP` (LND's `no-rest-tls`, for a test of that path).
    public func addNode(name: String, balanceSat: Int64, plainHTTP: Bool = false) async throws -> LightningEndpoint {
        guard !name.isEmpty else { throw HubLightningError.invalidName }
        // The name is also a folder under the TLS directory.
        guard !name.contains("/"), name != ".", name != ".." else { throw HubLightningError.unsafeName(name) }
        let balanceMsat = try Self.msat(balanceSat)
        guard servers.withLock({ $0 != nil }) else { throw HubLightningError.stopped }
        var certificatePath: String?
        if let tlsDirectory, !plainHTTP {
            let folder = tlsDirectory + "/" + name
            guard mkdir(tlsDirectory, 0o755) == 0 || errno == EEXIST, mkdir(folder, 0o755) == 0 || errno == EEXIST else {
                throw HubLightningError.serverFailed(node: name, "cannot create \(folder): \(String(cString: strerror(errno)))")
            }
            certificatePath = folder + "/tls.cert"
        }
        // The network refuses a duplicate name, so of two racing calls only one goes on.
        try network.addNode(name: name, balanceMsat: balanceMsat)
        // The simulator cannot remove a node: if the server fails to start, the node
        // stays without an endpoint, and the error says so.
        let server: LNDRESTServer
        do {
            let chain = self.chain
            server = try await LNDRESTServer.start(network: network, node: name, host: host, port: 0, loop: loop,
                                                   bestBlock: { let best = chain.best; return (best.height, best.hash.hex) },
                                                   publish: LNDRESTHandler.publishing(to: chain), tlsCertificatePath: certificatePath)
        } catch {
            throw HubLightningError.serverFailed(node: name, "\(error)")
        }
        do {
            let files = try macaroonFiles.withLock { files throws(LNDMacaroonFilesError) -> LNDMacaroonFiles in
                if let files { return files }
                files = try LNDMacaroonFiles.create()
                return files!
            }
            let paths = try files.write(node: name, server.handler.macaroons)
            macaroonPaths.withLock { $0[name] = paths }
        } catch {
            await server.stop()
            throw HubLightningError.serverFailed(node: name, error.description)
        }
        let kept = servers.withLock { servers -> Bool in
            guard servers != nil else { return false }
            servers![name] = server
            return true
        }
        guard kept else {
            await server.stop()
            throw HubLightningError.stopped
        }
        return try endpoint(name)
    }

    /// A node with its REST endpoint and current balance.
    public func endpoint(_ name: String) throws -> LightningEndpoint {
        let info = try network.node(name)
        guard let server = servers.withLock({ $0?[name] }) else { throw HubLightningError.noServer(node: name) }
        return LightningEndpoint(info: info, url: server.url, host: server.host, port: server.port,
                                 macaroonHex: server.macaroonHex, macaroonPaths: macaroonPaths.withLock { $0[name] ?? [:] },
                                 tlsCertificatePath: server.tlsCertificatePath, tlsFingerprint: server.tlsFingerprint)
    }

    /// Every node that has a REST server, by name.
    public var endpoints: [LightningEndpoint] {
        network.nodes.compactMap { try? endpoint($0.name) }
    }

    public func setBalance(node name: String, balanceSat: Int64) throws -> LightningEndpoint {
        try network.setBalance(node: name, balanceMsat: Self.msat(balanceSat))
        return try endpoint(name)
    }

    public func setOnline(node name: String, _ online: Bool) throws -> LightningEndpoint {
        try network.setOnline(node: name, online)
        return try endpoint(name)
    }

    /// The fault controls of the node's LND REST server (`hub_ln_fault`).
    public func faults(node name: String) throws -> LNDFaults {
        _ = try network.node(name)
        guard let server = servers.withLock({ $0?[name] }) else { throw HubLightningError.noServer(node: name) }
        return server.handler.faults
    }

    /// The node's root key and macaroons, to bake one with other permissions in tests.
    public func macaroons(node name: String) throws -> LNDMacaroonAuthority {
        _ = try network.node(name)
        guard let server = servers.withLock({ $0?[name] }) else { throw HubLightningError.noServer(node: name) }
        return server.handler.macaroons
    }

    /// Satoshis to millisatoshis, refusing what no Bitcoin amount can be.
    static func msat(_ sat: Int64) throws(HubLightningError) -> UInt64 {
        guard sat >= 0, sat <= CoreAmount.maxMoney else { throw .invalidAmount(sat) }
        return UInt64(sat) * 1_000
    }

    // MARK: housekeeping

    /// Starts the timer that cancels expired invoices (tip changes come from the chain).
    func startHousekeeping(everyMilliseconds interval: UInt64) {
        let sleeper = loop.sleeper
        let network = network
        let task = Task {
            while !Task.isCancelled {
                do { try await sleeper.sleep(milliseconds: interval) } catch { return }
                network.expireInvoices()
            }
        }
        housekeeping.withLock { $0 = task }
    }

    /// Stops the timer and every REST server (their open streams end), and waits for them.
    func stop() async {
        let task = housekeeping.withLock { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
        let running = servers.withLock { servers -> [LNDRESTServer] in
            defer { servers = nil }
            return servers.map { Array($0.values) } ?? []
        }
        for server in running { await server.stop() }
        let names = macaroonPaths.withLock { Array($0.keys) }
        macaroonFiles.withLock { $0?.remove(nodes: names) }
    }
}

/// One node as the hub reports it: identity, REST endpoint and credentials, balance.
public struct LightningEndpoint: Sendable, Hashable {
    public var info: LightningNodeInfo
    public var url: String
    public var host: String
    public var port: Int
    /// The macaroon a client sends in `Grpc-Metadata-macaroon` (the node's admin.macaroon).
    public var macaroonHex: String
    /// The node's macaroon files by kind (`admin`, `invoice`, `readonly`), as LND writes them.
    public var macaroonPaths: [String: String] = [:]
    /// The server's `tls.cert`, the only certificate a client should trust; nil: plain HTTP.
    public var tlsCertificatePath: String?
    /// The certificate's SHA-256, as the client's refusal and `openssl x509 -fingerprint` print it.
    public var tlsFingerprint: String?

    public var name: String { info.name }

    public init(info: LightningNodeInfo, url: String, host: String, port: Int, macaroonHex: String,
                macaroonPaths: [String: String] = [:], tlsCertificatePath: String? = nil, tlsFingerprint: String? = nil) {
        self.info = info
        self.url = url
        self.host = host
        self.port = port
        self.macaroonHex = macaroonHex
        self.macaroonPaths = macaroonPaths
        self.tlsCertificatePath = tlsCertificatePath
        self.tlsFingerprint = tlsFingerprint
    }

    /// The entry printed at start-up and answered by the `hub_ln_*` methods. The
    /// macaroon is printed in full: it guards a regtest simulator on loopback, and
    /// whoever started the hub needs it to connect.
    public var json: OrderedJSON {
        .object([
            "name": .string(info.name),
            "alias": .string(info.alias),
            "identity_pubkey": .string(info.identityKey.compressed.hex),
            "rest_url": .string(url),
            "rest_host": .string(host),
            "rest_port": .int(port),
            "macaroon_hex": .string(macaroonHex),
            "macaroons": .object(macaroonPaths.keys.sorted().map { OrderedJSON.Member($0, .string(macaroonPaths[$0]!)) }),
            // Null for a plain-HTTP server (rest_url then starts with http://).
            "tls_cert_path": tlsCertificatePath.map { .string($0) } ?? .null,
            "tls_cert_sha256": tlsFingerprint.map { .string($0) } ?? .null,
            // LND reports channel balances in whole satoshis, rounding down.
            "balance_sat": .int(info.balanceMsat / 1_000),
            "balance_msat": .int(info.balanceMsat),
            "online": .bool(info.isOnline),
        ])
    }
}

public enum HubLightningError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidName
    case unsafeName(String)
    case invalidAmount(Int64)
    case noServer(node: String)
    case serverFailed(node: String, String)
    case stopped

    public var description: String {
        switch self {
        case .invalidName: return "a Lightning node needs a non-empty name"
        case .unsafeName(let name): return "a Lightning node's name is also a folder name: \"\(name)\" may not be . or .. or hold a /"
        case .invalidAmount(let sat): return "\(sat) sat is not an amount of bitcoin"
        case .noServer(let node): return "Lightning node \(node) has no REST server"
        case .serverFailed(let node, let reason):
            return "Lightning node \(node) was created but its REST server did not start: \(reason)"
        case .stopped: return "the hub is stopping"
        }
    }
}
