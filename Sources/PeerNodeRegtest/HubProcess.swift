#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Regtest
import Transport

/// The running process: event loop, signal watcher, and the hub (`RegtestHub`: chain,
/// Lightning simulator, JSON-RPC and LND REST servers).
struct HubProcess {
    let options: HubOptions

    func run() async throws {
        let loop = try EventLoop()
        // SIGINT/SIGTERM are watched before anything listens, so a signal that arrives
        // during start-up still stops the hub cleanly.
        let watcher = try await SignalWatcher.start(watching: [SIGINT, SIGTERM], loop: loop)
        let credentials = HTTPBasicCredentials(user: options.rpcUser, password: options.rpcPassword ?? Self.randomPassword())
        let hub: RegtestHub
        // A directory the hub made for itself (no --datadir) is removed when it stops: its
        // certificates are worth nothing once their servers are gone.
        var ownDirectory: String?
        do {
            let directory = try tlsDirectory()
            if options.datadir == nil { ownDirectory = directory }
            let configuration = RegtestHub.Configuration(
                kernelPath: options.kernelPath, policy: options.policy, rpcHost: options.rpcHost, rpcPort: options.rpcPort,
                credentials: credentials, autoMineSeconds: options.autoMineSeconds, lightningNodes: options.lightningNodes,
                lightningTLSDirectory: directory, clockRate: options.clockRate,
                blockIntervalSeconds: options.blockIntervalSeconds, pkarrRelays: options.pkarrRelays)
            hub = try await RegtestHub.start(configuration, loop: loop)
        } catch {
            if let ownDirectory { Self.removeCertificates(in: ownDirectory, nodes: options.lightningNodes.map(\.name)) }
            await watcher.stop()
            await loop.shutdown()
            throw error
        }

        // Written unbuffered, in one piece: whoever started the hub reads this line to find
        // it. It holds the RPC password and each LND macaroon: fine for a regtest hub on
        // loopback, and the only way its user learns them.
        var printed = OrderedJSONObject()
        printed.add(contentsOf: hub.endpoints)
        printed.add("pid", .int(getpid()))
        Output.write(printed.json.compact + "\n", to: STDOUT_FILENO)

        for await _ in watcher.signals { break }

        let names = hub.lightning.network.nodes.map(\.name)
        await hub.stop()
        if let ownDirectory { Self.removeCertificates(in: ownDirectory, nodes: names) }
        await watcher.stop()
        await loop.shutdown()
    }

    /// Where the nodes' tls.cert files go: `--datadir` (created if missing), a new
    /// directory under /tmp without it, nil with `--lnd-plain-http`.
    private func tlsDirectory() throws -> String? {
        guard !options.lndPlainHTTP else { return nil }
        if let datadir = options.datadir {
            guard mkdir(datadir, 0o755) == 0 || errno == EEXIST else {
                throw HubOptions.UsageError(description: "cannot create --datadir \(datadir): \(String(cString: strerror(errno)))")
            }
            return datadir
        }
        var template = Array("/tmp/peernode-regtest-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw HubOptions.UsageError(description: "cannot create a directory under /tmp for the TLS certificates: "
                + "\(String(cString: strerror(errno))); give --datadir or --lnd-plain-http")
        }
        return String(cString: made)
    }

    /// Removes `<directory>/<node>/tls.cert` for each node, their folders and the directory
    /// (only what the hub wrote: a folder holding anything else stays).
    private static func removeCertificates(in directory: String, nodes: [String]) {
        for name in nodes {
            unlink(directory + "/" + name + "/tls.cert")
            rmdir(directory + "/" + name)
        }
        rmdir(directory)
    }

    /// 32 random bytes as hex, from the system's secure generator.
    private static func randomPassword() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }.hex
    }
}

extension Array where Element == UInt8 {
    fileprivate var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] }, as: UTF8.self)
    }
}

/// Unbuffered writes to the standard streams (the C `stdout`/`stderr` globals are shared
/// mutable state Swift 6 does not let concurrent code touch).
enum Output {
    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
