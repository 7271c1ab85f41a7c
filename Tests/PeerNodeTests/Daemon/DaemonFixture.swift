import Foundation
import Lightning
import PeerNode
import Regtest
import TestSupport
import Transport
import XCTest

/// A `RegtestHub` on loopback (Bitcoin Core's RPC and one LND node "alice"), and fresh
/// data directories whose config points at it: what the daemon tests start nodes on. The
/// hub serves LND REST over TLS as LND does (each node's tls.cert under `<root>/lnd-tls`);
/// `plainLightning` keeps it on plain HTTP (`lnd_rest_tls=0`), the path one test covers.
final class DaemonFixture {
    static let credentials = HTTPBasicCredentials(user: "hub", password: "daemon-test")

    let loop: EventLoop
    let hub: RegtestHub
    let lightning: LightningEndpoint
    let rpc: BitcoinCoreRPC
    let root: String

    /// - Parameters:
    ///   - txIndex: false: the hub acts as a Core run without `-txindex`.
    ///   - plainLightning: the hub's LND REST in plain HTTP (the one loopback path kept covered).
    ///   - pkarrRelays: how many test pkarr relays the hub serves (`hub.pkarrRelays`).
    init(txIndex: Bool = true, plainLightning: Bool = false, pkarrRelays: Int = 0) async throws {
        _ = try makeKernelVerifier()
        // Short: a unix socket path must fit in 107 bytes.
        root = try Self.temporaryDirectory()
        loop = try EventLoop()
        var configuration = RegtestHub.Configuration(credentials: Self.credentials,
                                                     lightningTLSDirectory: plainLightning ? nil : root + "/lnd-tls",
                                                     authFailureDelayMilliseconds: 1)
        configuration.txIndex = txIndex
        configuration.pkarrRelays = pkarrRelays
        hub = try await RegtestHub.start(configuration, loop: loop)
        lightning = try await hub.lightning.addNode(name: "alice", balanceSat: 500_000)
        rpc = BitcoinCoreRPC(endpoint: BitcoinCoreEndpoint(host: "127.0.0.1", port: hub.rpc.port),
                             credentials: .userPassword(Self.credentials), loop: loop)
    }

    static func temporaryDirectory() throws -> String {
        var template = Array("/tmp/pnd-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        return String(cString: try XCTUnwrap(made))
    }

    /// The config lines that point a node at the hub.
    var hubConfig: [String] {
        [
            "network=regtest",
            "listen=127.0.0.1:0",
            "bitcoind_rpc_host=127.0.0.1",
            "bitcoind_rpc_port=\(hub.rpc.port)",
            "bitcoind_rpc_user=\(Self.credentials.user)",
            "bitcoind_rpc_password=\(Self.credentials.password)",
            "wallet_sync_seconds=1",
        ] + Self.lightningConfig(lightning, macaroonFile: "alice.macaroon")
    }

    /// The `lnd_*` lines for one of the hub's Lightning nodes: its port, the macaroon file,
    /// and its tls.cert (or `lnd_rest_tls=0` when it serves plain HTTP).
    static func lightningConfig(_ endpoint: LightningEndpoint, macaroonFile: String) -> [String] {
        ["lnd_rest_host=127.0.0.1", "lnd_rest_port=\(endpoint.port)", "lnd_macaroon=\(macaroonFile)",
         endpoint.tlsCertificatePath.map { "lnd_tls_cert=\($0)" } ?? "lnd_rest_tls=0"]
    }

    /// `peernode init` in `<root>/<name>`, then the config replaced by `lines`.
    func dataDirectory(_ name: String, config lines: [String]? = nil) async throws -> (datadir: String, pubky: Pubky) {
        let datadir = root + "/" + name
        let made = try await DataDirectory.initialize(datadir: datadir, network: .regtest)
        try Data((lines ?? hubConfig).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: datadir + "/peernode.conf"))
        try Data(try XCTUnwrap([UInt8](hex: lightning.macaroonHex))).write(to: URL(fileURLWithPath: datadir + "/alice.macaroon"))
        return (datadir, made.pubky)
    }

    /// A daemon started in a task; returns once it serves (or throws its start-up error).
    func start(_ datadir: String, overrides: [ConfigEntry] = [], watchSignals: Bool = false,
               engines: SwapEngineFactory? = nil, log: DaemonLog = .silent) async throws -> RunningDaemon {
        let ready = ReadySignal()
        let daemon = NodeDaemon(options: NodeDaemon.Options(datadir: datadir, overrides: overrides, watchSignals: watchSignals,
                                                             log: log, engines: engines, onReady: { ready.fire($0) }))
        let task = Task<Void, any Error> {
            do {
                try await daemon.run()
                ready.end(nil)
            } catch {
                ready.end(error)
                throw error
            }
        }
        for _ in 0..<1_500 {
            if let info = ready.value { return RunningDaemon(daemon: daemon, task: task, ready: info, loop: loop) }
            if let ended = ready.ended {
                if let ended { throw ended }
                XCTFail("the daemon stopped before it was ready")
                throw CancellationError()
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        daemon.requestShutdown()
        XCTFail("the daemon was not ready within 30 s")
        throw CancellationError()
    }

    func shutDown() async {
        await rpc.shutDown()
        await hub.stop()
        await loop.shutdown()
        try? FileManager.default.removeItem(atPath: root)
    }
}

/// A daemon running in this process.
struct RunningDaemon {
    let daemon: NodeDaemon
    let task: Task<Void, any Error>
    let ready: DaemonReady
    let loop: EventLoop

    var client: ControlClient { ControlClient(socketPath: ready.controlSocket, loop: loop) }

    /// Sends a command; fails the test if the daemon cannot be reached.
    func call(_ command: String, _ args: [String: JSONValue] = [:], file: StaticString = #filePath,
              line: UInt = #line) async throws -> Result<JSONValue, ControlError> {
        try await client.send(ControlMessage.Request(command: command, args: .object(args)))
    }

    func result(_ command: String, _ args: [String: JSONValue] = [:], file: StaticString = #filePath,
                line: UInt = #line) async throws -> JSONValue {
        switch try await call(command, args) {
        case .success(let value): return value
        case .failure(let error):
            XCTFail("\(command) failed: \(error)", file: file, line: line)
            throw error
        }
    }

    func stop() async throws {
        daemon.requestShutdown()
        try await task.value
    }
}

/// Set from the daemon's `onReady` and when its `run()` returns; polled by the test.
final class ReadySignal: @unchecked Sendable {
    private let lock = NSLock()
    private var info: DaemonReady?
    private var end: (any Error)??

    func fire(_ value: DaemonReady) { lock.withLock { info = value } }
    func end(_ error: (any Error)?) { lock.withLock { end = .some(error) } }
    var value: DaemonReady? { lock.withLock { info } }
    /// nil while running; `.some(nil)` after a clean stop; `.some(error)` after a failure.
    var ended: (any Error)?? { lock.withLock { end } }
}
