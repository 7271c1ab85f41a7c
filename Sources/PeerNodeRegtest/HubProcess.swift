#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Regtest
import Transport

/// The running hub: event loop, chain, RPC service, signal watcher.
struct HubProcess {
    let options: HubOptions

    func run() async throws {
        let loop = try EventLoop()
        // SIGINT/SIGTERM are watched before anything listens, so a signal that arrives
        // during start-up still stops the hub cleanly.
        let watcher = try await SignalWatcher.start(watching: [SIGINT, SIGTERM], loop: loop)
        let policy = options.policy
        let chain = try RegtestChain(libraryPath: options.kernelPath, policy: policy)
        let hub = HubChain(chain: chain, policy: policy, sleeper: loop.sleeper)
        let credentials = HTTPBasicCredentials(user: options.rpcUser, password: options.rpcPassword ?? Self.randomPassword())
        let server = BitcoinRPCServer(credentials: credentials, methods: BitcoinRPCMethods.all(hub), sleeper: loop.sleeper)
        let rpc = try await BitcoinRPCService.start(server, host: options.rpcHost, port: options.rpcPort, loop: loop)
        let lightning = startLightning()

        if let seconds = options.autoMineSeconds { hub.autoMiner.start(everySeconds: seconds, to: hub.wallet.script) }
        // Written unbuffered, in one piece: whoever started the hub reads this line to find it.
        Output.write(endpoints(rpc: rpc, credentials: credentials, lightning: lightning).compact + "\n", to: STDOUT_FILENO)

        for await _ in watcher.signals { break }

        await rpc.stop()
        await hub.shutDown()
        await watcher.stop()
        await loop.shutdown()
        chain.close()
    }

    /// Where the Lightning simulator's LND REST endpoints start (issue #5, REST part):
    /// it returns what the printed JSON lists under "lightning". Nothing runs yet.
    private func startLightning() -> OrderedJSON {
        .object([:])
    }

    private func endpoints(rpc: BitcoinRPCService, credentials: HTTPBasicCredentials, lightning: OrderedJSON) -> OrderedJSON {
        let host = rpc.host.contains(":") ? "[\(rpc.host)]" : rpc.host
        return .object([
            "bitcoind": .object([
                "rpc_url": .string("http://\(host):\(rpc.port)/"), "host": .string(rpc.host), "port": .int(rpc.port),
                "user": .string(credentials.user), "password": .string(credentials.password), "network": "regtest",
                "methods": .array(rpc.server.methodNames.map { .string($0) }),
            ]),
            "lightning": lightning,
            "pid": .int(getpid()),
        ])
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
