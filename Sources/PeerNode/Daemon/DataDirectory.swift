#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Bitcoin
import Transport

/// The node's data directory: `seed` (32 bytes, 0600), `peernode.conf`, the SQLite store
/// `peernode.db`, the swap index mark `swap_index_mark` (`SwapIndexMark`: kept outside the
/// database so a lost or stale database never hands out a used swap index), and by
/// default the control socket. The directory itself is 0700.
///
/// `initialize` is `peernode init`; `loadConfig` and `loadSeed` are the daemon's first
/// steps, done before anything is created so a bad setup changes nothing.
public enum DataDirectory {
    /// What `init` made.
    public struct Initialized: Sendable, Equatable {
        public let pubky: Pubky
        public let datadir: String
        /// False when a config file was already there and was kept.
        public let wroteConfig: Bool
    }

    /// Creates the directory (0700), a fresh seed (0600) from libsodium's generator, a
    /// commented default config (kept if one exists) and the store. Refuses, before
    /// creating anything, when a seed exists: it holds the node's funds and identity.
    public static func initialize(datadir: String, network: Network) async throws(DaemonError) -> Initialized {
        let seedPath = NodeConfig.path(datadir, NodeConfig.seedFileName)
        if PosixFile.kind(of: seedPath) != nil { throw .seedExists(path: seedPath) }
        do {
            try PosixFile.makeDirectory(datadir, mode: 0o700)
        } catch {
            throw .file(error.description)
        }
        let seed = NodeSeed.generate()
        // The closure's rethrows is untyped, so the typed failure travels as a Result.
        let written = seed.withUnsafeSecretBytes { bytes in
            Result { () throws(PosixFile.Failure) in try PosixFile.create(seedPath, bytes: bytes, mode: 0o600) }
        }
        if case .failure(let error) = written {
            // EEXIST here means another `init` won the race; its seed stands.
            if error.code == EEXIST { throw .seedExists(path: seedPath) }
            throw .file(error.description)
        }
        let configPath = NodeConfig.path(datadir, NodeConfig.configFileName)
        var wroteConfig = false
        if PosixFile.kind(of: configPath) == nil {
            do {
                try PosixFile.create(configPath, text: ConfigTemplate.text(network: network), mode: 0o600)
                wroteConfig = true
            } catch {
                throw .file(error.description)
            }
        }
        let storePath = NodeConfig.path(datadir, NodeConfig.storeFileName)
        do {
            let store = try SQLiteSwapStore.open(path: storePath)
            // The swap index mark starts beside the seed: from now on a database that is new
            // or older than it is recognised at start-up (audit H-5).
            let mark = SwapIndexMark(path: NodeConfig.path(datadir, SwapIndexMark.fileName))
            _ = try await store.attachIndexMark(mark, databaseIsNew: false)
            await store.close()
        } catch {
            throw .store(path: storePath, reason: error.description)
        }
        return Initialized(pubky: NodeIdentity(seed: seed).pubky, datadir: datadir, wroteConfig: wroteConfig)
    }

    /// Reads `peernode.conf` and resolves it with the command line's overrides.
    public static func loadConfig(datadir: String, overrides: [ConfigEntry], allowUnsafe: Bool) throws(DaemonError) -> NodeConfig {
        let path = NodeConfig.path(datadir, NodeConfig.configFileName)
        guard PosixFile.kind(of: datadir) == .directory else {
            throw .notInitialized(datadir: datadir, missing: "directory")
        }
        let bytes: [UInt8]
        do {
            bytes = try PosixFile.read(path, limit: 1 << 20)
        } catch {
            if error.isMissing { throw .notInitialized(datadir: datadir, missing: NodeConfig.configFileName) }
            throw .config(ConfigError(key: nil, value: nil, origin: path, problem: .unreadable(error.description)))
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            // Name the first offending byte so the user finds it (an editor's other encoding,
            // a pasted non-breaking character).
            let valid = bytes.prefix { $0 < 0x80 }.count
            let line = bytes.prefix(valid).filter { $0 == UInt8(ascii: "\n") }.count + 1
            throw .config(ConfigError(key: nil, value: nil, origin: path, problem: .unreadable(
                "not UTF-8 text (first non-ASCII byte on line \(line)); save the file as UTF-8 (plain ASCII is enough: "
                + "every key and value peernode reads is ASCII)")))
        }
        do {
            let file = try ConfigFileParser.parse(text, fileName: NodeConfig.configFileName)
            return try NodeConfig.resolve(file: file, overrides: overrides, datadir: datadir, allowUnsafe: allowUnsafe)
        } catch {
            throw .config(error)
        }
    }

    /// The node seed, refused when it is not exactly 32 bytes or when group or others can
    /// read it (a seed anyone can read is a seed anyone can spend from).
    public static func loadSeed(datadir: String) throws(DaemonError) -> NodeSeed {
        let path = NodeConfig.path(datadir, NodeConfig.seedFileName)
        guard PosixFile.kind(of: path) != nil else { throw .notInitialized(datadir: datadir, missing: NodeConfig.seedFileName) }
        if let permissions = PosixFile.permissions(of: path), permissions & 0o077 != 0 {
            let octal = String(permissions, radix: 8)
            throw .badSeed(path: path, reason: "its mode is \(octal), so others can read it; run chmod 600 \(path)")
        }
        var bytes: [UInt8]
        do {
            bytes = try PosixFile.read(path, limit: 64)
        } catch {
            throw .badSeed(path: path, reason: error.reason)
        }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        do {
            return try NodeSeed(bytes: bytes)
        } catch {
            throw .badSeed(path: path, reason: "it holds \(bytes.count) bytes, not \(NodeSeed.length)")
        }
    }
}
