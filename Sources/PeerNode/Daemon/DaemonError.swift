import Transport

/// Why the daemon (or `init`) stopped before serving, with what to do about it. Each case
/// maps to an exit code of the `peernode` command: 4 for configuration problems the user
/// fixes in the config file or the data directory, 1 for everything else.
public enum DaemonError: Error, Equatable, Sendable, CustomStringConvertible {
    case config(ConfigError)
    /// The data directory has no seed (or no config): `init` was not run.
    case notInitialized(datadir: String, missing: String)
    /// `init` would overwrite a seed.
    case seedExists(path: String)
    /// The seed file is unreadable, the wrong size, or readable by others.
    case badSeed(path: String, reason: String)
    /// A file or directory in the data directory could not be made or read.
    case file(String)
    /// Another daemon answers on the control socket.
    case alreadyRunning(socket: String)
    /// Another daemon holds the data directory's lock (`DataDirectoryLock`); its pid
    /// when the lock file names it.
    case locked(datadir: String, pid: Int32?)
    /// Something that is not a socket sits at the control socket's path.
    case socketPathTaken(path: String, reason: String)
    case bitcoind(url: String, reason: String)
    /// The Electrum server (`chain_backend=electrum`) cannot be used.
    case electrum(server: String, reason: String)
    case lnd(url: String, reason: String)
    case store(path: String, reason: String)
    /// The peer listener or the control socket could not be bound.
    case listen(address: String, reason: String)
    case wallet(String)
    /// A backend that answers but does not fit the config (another network, a macaroon
    /// file that cannot be read): the user fixes `key` in the config file.
    case misconfigured(key: String, reason: String, fix: String)
    /// `<datadir>/pubky_identity.pkarr` cannot be used (docs/PUBKY.md).
    case pubkyIdentity(String)
    /// The Pubky recovery file did not open (`init --pubky-recovery-file`).
    case recoveryFile(RecoveryFileError)
    /// The pkarr relays could not be used for what was asked (why).
    case pkarr(String)

    public var description: String {
        switch self {
        case .config(let error):
            return "configuration error: \(error)"
        case .notInitialized(let datadir, let missing):
            return "\(datadir) is not a peernode data directory (no \(missing)); create it with `peernode init --datadir \(datadir)`"
        case .seedExists(let path):
            return "a seed already exists at \(path); refusing to overwrite it (it controls this node's funds and identity)"
        case .badSeed(let path, let reason):
            return "the seed file \(path) cannot be used: \(reason)"
        case .file(let reason):
            return reason
        case .alreadyRunning(let socket):
            return "a peernode daemon is already running on \(socket); stop it first (or set control_socket to another path)"
        case .locked(let datadir, let pid):
            let holder = pid.map { "daemon (pid \($0))" } ?? "daemon"
            return "another peernode \(holder) is already running on the data directory \(datadir); "
                + "stop it first (`peernode stop --datadir \(datadir)`): two daemons on one directory would drive the same swaps"
        case .socketPathTaken(let path, let reason):
            return "cannot create the control socket at \(path): \(reason)"
        case .bitcoind(let url, let reason):
            return "cannot use Bitcoin Core at \(url): \(reason)"
        case .electrum(let server, let reason):
            return "cannot use the Electrum server \(server): \(reason)"
        case .lnd(let url, let reason):
            return "cannot use LND at \(url): \(reason)"
        case .store(let path, let reason):
            return "cannot open the store \(path): \(reason)"
        case .listen(let address, let reason):
            return "cannot listen on \(address): \(reason)"
        case .wallet(let reason):
            return "wallet error: \(reason)"
        case .misconfigured(let key, let reason, let fix):
            return "configuration error in \(key): \(reason); \(fix)"
        case .pubkyIdentity(let reason):
            return "the node's Pubky identity cannot be used: \(reason)"
        case .recoveryFile(let error):
            return error.description
        case .pkarr(let reason):
            return reason
        }
    }

    /// The stable code `--json` reports for this failure (docs/CLI.md).
    public var code: String {
        switch self {
        case .config, .misconfigured: return "config"
        case .notInitialized: return "not_initialized"
        case .seedExists: return "seed_exists"
        case .badSeed: return "bad_seed"
        case .locked, .alreadyRunning: return "already_running"
        case .file, .socketPathTaken, .listen: return "file"
        case .bitcoind: return "bitcoind"
        case .electrum: return "electrum"
        case .lnd: return "lnd"
        case .store: return "store"
        case .wallet: return "wallet"
        case .pubkyIdentity: return "pubky_identity"
        case .recoveryFile: return "recovery_file"
        case .pkarr: return "pkarr"
        }
    }

    /// The `peernode` exit code for this failure.
    public var exitCode: Int32 {
        switch self {
        case .config, .notInitialized, .seedExists, .badSeed, .misconfigured, .locked, .pubkyIdentity: return ExitCode.configError
        default: return ExitCode.failure
        }
    }
}

/// The exit codes of the `peernode` command, the same for every subcommand.
public enum ExitCode {
    public static let success: Int32 = 0
    /// The command ran and failed (the daemon refused it, a backend is down, ...).
    public static let failure: Int32 = 1
    /// The command line is wrong: unknown command or option, missing or malformed argument.
    public static let usage: Int32 = 2
    /// The daemon is not running (nothing answers on the control socket).
    public static let daemonUnreachable: Int32 = 3
    /// The configuration or the data directory is wrong (bad key or value, no seed).
    public static let configError: Int32 = 4
    /// An attached command (`pay`, `swap-out`, `swap watch`) let go of its swap, which goes
    /// on in the daemon (Ctrl-C of the command, or the daemon stopping): it printed the
    /// swap id and how to follow it.
    public static let detached: Int32 = 5
    /// `peernode run` stopped at once on a second SIGINT/SIGTERM (128 + SIGINT, as shells say).
    public static let interrupted: Int32 = 130
}
