#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import XCTest

/// A real ElectrumX 2.0 (PyPI `e-x`, installed by `scripts/setup.sh --electrumx` into
/// `.build/electrumx-venv`) over a Bitcoin Core RPC endpoint: loopback only, its own LevelDB
/// directory, polling the daemon every 100 ms so a test waits for indexing, not for a
/// 5-second timer. Stopped by its PID (SIGTERM, then SIGKILL), never by name.
final class ElectrumXServer {
    private(set) var process: Process
    let port: Int
    private let environment: [String: String]
    let directory: URL
    private let log: URL

    /// `.build/electrumx-venv/bin/electrumx_server` of this checkout, or `PEERNODE_ELECTRUMX`.
    static var executable: String {
        if let path = ProcessInfo.processInfo.environment["PEERNODE_ELECTRUMX"] { return path }
        // <repo>/Tests/RegtestTests/ElectrumX/ElectrumXServer.swift -> <repo>
        var repo = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { repo.deleteLastPathComponent() }
        return repo.appendingPathComponent(".build/electrumx-venv/bin/electrumx_server").path
    }

    /// Starts ElectrumX against `rpcPort` with `user`/`password`. A missing install fails
    /// the test with the command that installs it: this test never skips.
    init(rpcPort: Int, user: String, password: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let executable = Self.executable
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            XCTFail("ElectrumX is not installed at \(executable): run `scripts/setup.sh --electrumx` "
                + "(or `make setup-electrumx`), which installs the hash-pinned e-x 2.0.0 and plyvel", file: file, line: line)
            throw ElectrumXMissing()
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("electrumx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("db"), withIntermediateDirectories: true)
        log = directory.appendingPathComponent("electrumx.log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: log.path])
        }
        port = try Self.unusedPort()
        environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "COIN": "Bitcoin", "NET": "regtest", "DB_ENGINE": "leveldb",
            "DB_DIRECTORY": directory.appendingPathComponent("db").path,
            "DAEMON_URL": "http://\(user):\(password)@127.0.0.1:\(rpcPort)/",
            "SERVICES": "tcp://127.0.0.1:\(port)",
            "PEER_DISCOVERY": "off", "PEER_ANNOUNCE": "",
            "DAEMON_POLL_INTERVAL_BLOCKS": "100", "DAEMON_POLL_INTERVAL_MEMPOOL": "100",
            "CACHE_MB": "50", "LOG_LEVEL": "info",
            // ElectrumX throttles a session whose requests cost more than its soft limit
            // (2.5 s per request), a public server's defence; the test polls, so no limit.
            "COST_SOFT_LIMIT": "0", "COST_HARD_LIMIT": "0",
            // CI runs as root; ElectrumX refuses that unless told it is deliberate.
            "ALLOW_ROOT": "1",
        ]
        process = try Self.launch(executable: executable, environment: environment, log: log)
    }

    /// Stops ElectrumX (SIGTERM, as an operator's restart) and starts it again on the same
    /// port and database: clients see their connection close, then the server come back.
    func restart() throws {
        terminate()
        process = try Self.launch(executable: Self.executable, environment: environment, log: log)
    }

    private static func launch(executable: String, environment: [String: String], log: URL) throws -> Process {
        let process = Process()
        // The test process's threads block most signals and a spawned child inherits that
        // mask, so ElectrumX would never see SIGTERM (and be killed after the grace period,
        // unflushed). The venv's Python clears the mask, then becomes ElectrumX.
        process.executableURL = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("python")
        process.arguments = ["-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); "
            + "os.execv(sys.argv[1], sys.argv[1:])", executable]
        process.environment = environment
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? handle.close()
        return process
    }

    /// The end of ElectrumX's log, for failure messages.
    var logTail: String {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return String(text.suffix(2_000))
    }

    /// Retries `attempt` every 200 ms until it returns a value: ElectrumX opens its port
    /// only after its first sync. Fails the test with ElectrumX's log if it exits or has
    /// not opened its port within 90 s.
    func whenListening<T>(_ attempt: () async throws -> T?) async throws -> T {
        let deadline = Date().addingTimeInterval(90)
        while true {
            guard process.isRunning else {
                XCTFail("ElectrumX exited (status \(process.terminationStatus)); its log:\n\(logTail)")
                throw ElectrumTestClient.Closed()
            }
            if let value = try await attempt() { return value }
            guard Date() < deadline else {
                XCTFail("ElectrumX did not open its port within 90 s; its log:\n\(logTail)")
                throw ElectrumTestClient.Closed()
            }
            try await Task.sleep(nanoseconds: 200_000_000)
        }
    }

    /// SIGTERM (ElectrumX flushes and exits), SIGKILL after 10 s; then its directory goes.
    func stop() {
        terminate()
        try? FileManager.default.removeItem(at: directory)
    }

    private func terminate() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning, Date() < deadline { usleep(50_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    /// A loopback port nothing listens on now (bound to 0, read back, released).
    private static func unusedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Thrown after the test was failed for a missing ElectrumX install.
struct ElectrumXMissing: Error {}
