#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// One real ElectrumX 2.0 over the run's hub (`scripts/setup.sh --electrumx` installs it in
/// `.build/electrumx-venv`): loopback only, its own LevelDB directory in the run directory,
/// polling the hub every 100 ms, started and stopped by the supervisor like every process.
struct ElectrumX {
    let process: Process
    let port: Int
    let log: String

    /// `PEERNODE_ELECTRUMX`, or `.build/electrumx-venv/bin/electrumx_server` in a directory
    /// above the binaries (they live in `<repo>/.build/<triple>/debug`).
    static func locate(_ binaries: Binaries) throws(Failure) -> String {
        let missing = Failure("ElectrumX is not installed: run `scripts/setup.sh --electrumx` (or `make setup-electrumx`), "
            + "which installs the hash-pinned e-x 2.0.0 and plyvel into .build/electrumx-venv")
        if let path = ProcessInfo.processInfo.environment["PEERNODE_ELECTRUMX"] {
            guard FileManager.default.isExecutableFile(atPath: path) else { throw missing }
            return path
        }
        var directory = URL(fileURLWithPath: binaries.node).resolvingSymlinksInPath().deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("electrumx-venv/bin/electrumx_server").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw missing
    }

    /// Starts ElectrumX; `port` (a restart) reuses the earlier server's port, and the run's
    /// database directory is always the same, so a restarted server resumes its index.
    /// `daemonPort`: where it reaches the hub's Bitcoin Core RPC (a `CuttableLink`), if
    /// not directly.
    static func start(_ net: Testnet, port reused: Int? = nil, daemonPort: Int? = nil) throws(Failure) -> ElectrumX {
        let executable = try locate(net.binaries)
        let database = net.supervisor.runDirectory + "/electrumx-db"
        do {
            try FileManager.default.createDirectory(atPath: database, withIntermediateDirectories: true)
        } catch {
            throw Failure("cannot create \(database): \(error)")
        }
        let port: Int
        if let reused { port = reused } else { port = try LoopbackHTTP.unusedPort() }
        let rpc = net.hub.rpc
        // The venv's Python clears the signal mask this process's threads would pass on
        // (a blocked SIGTERM makes ElectrumX deaf to the supervisor), then becomes ElectrumX.
        let python = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("python").path
        let process = try net.supervisor.start(
            "electrumx", executable: python,
            arguments: ["-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); "
                + "os.execv(sys.argv[1], sys.argv[1:])", executable],
            logName: "electrumx.log",
            environment: [
                "COIN": "Bitcoin", "NET": "regtest", "DB_ENGINE": "leveldb", "DB_DIRECTORY": database,
                "DAEMON_URL": "http://\(rpc.user):\(rpc.password)@127.0.0.1:\(daemonPort ?? rpc.port)/",
                "SERVICES": "tcp://127.0.0.1:\(port)", "PEER_DISCOVERY": "off", "PEER_ANNOUNCE": "",
                "DAEMON_POLL_INTERVAL_BLOCKS": "100", "DAEMON_POLL_INTERVAL_MEMPOOL": "100", "CACHE_MB": "50",
                // A public server's throttling of busy sessions; the scenario polls.
                "COST_SOFT_LIMIT": "0", "COST_HARD_LIMIT": "0",
                // The supervisor may run as root (CI); ElectrumX refuses that unless told.
                "ALLOW_ROOT": "1",
            ])
        return ElectrumX(process: process, port: port, log: net.supervisor.runDirectory + "/electrumx.log")
    }

    /// Connects once ElectrumX has caught up with the hub and listens (it opens its port
    /// only then).
    func connect(timeout: TimeInterval = 90) throws(Failure) -> ElectrumLine {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let line = ElectrumLine(port: port) { return line }
            if !process.isRunning {
                throw Failure("ElectrumX exited (\(Supervisor.describe(process))); see \(log):\n\(logTail)")
            }
            guard Date() < deadline else { throw Failure("ElectrumX did not listen within \(Int(timeout)) s; see \(log)") }
            usleep(200_000)
        }
    }

    /// The config lines that put a node on this server (plain TCP on loopback).
    func nodeConfig(trusted: Bool) -> [String] {
        ["chain_backend=electrum", "electrum_server=127.0.0.1:\(port)", "electrum_tls=0", "electrum_trusted=\(trusted ? 1 : 0)"]
    }

    var logTail: String { String(((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").suffix(1_500)) }
}

/// The Electrum protocol as a wallet speaks it: newline-delimited JSON-RPC 2.0 over one TCP
/// connection, one call at a time, notifications set aside.
final class ElectrumLine {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var nextID = 0

    init?(port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        // A server that stops answering fails the call instead of hanging the run.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends one request and returns its `result`; an `error` reply is a failure.
    func call(_ method: String, _ params: [Any] = []) throws(Failure) -> Any {
        nextID += 1
        let request: [String: Any] = ["jsonrpc": "2.0", "id": nextID, "method": method, "params": params]
        guard let data = try? JSONSerialization.data(withJSONObject: request) else { throw Failure("\(method): cannot encode") }
        let bytes = Array(data) + [0x0A]
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw Failure("\(method): writing to ElectrumX: \(String(cString: strerror(errno)))") }
            offset += written
        }
        while true {
            let line = try readLine(method)
            guard let reply = JSON.parse(String(decoding: line, as: UTF8.self)) as? [String: Any] else { continue }
            guard let id = JSON.int(reply["id"]), id == nextID else { continue }
            if let error = reply["error"], !(error is NSNull) { throw Failure("\(method): ElectrumX error \(error)") }
            return reply["result"] ?? NSNull()
        }
    }

    private func readLine(_ method: String) throws(Failure) -> [UInt8] {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw Failure("\(method): ElectrumX " + (count == 0 ? "closed the connection" : "did not answer: \(String(cString: strerror(errno)))"))
            }
            buffer += chunk[..<count]
        }
    }
}
