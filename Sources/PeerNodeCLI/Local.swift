#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Bitcoin
import PeerNode
import Transport

/// The options every command shares.
struct Context {
    let datadir: String
    let json: Bool
    let socketOverride: String?

    init(_ arguments: Arguments) throws(UsageError) {
        if let datadir = arguments.options["datadir"] {
            guard !datadir.isEmpty else { throw UsageError("--datadir needs a directory") }
            self.datadir = datadir
        } else if let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty {
            datadir = NodeConfig.path(home, ".peernode")
        } else {
            throw UsageError("HOME is not set; give the data directory with --datadir")
        }
        json = arguments.flag("json")
        socketOverride = arguments.options["socket"]
    }

    /// The control socket: `--socket`, else the config file's `control_socket`, else
    /// `<datadir>/peernode.sock`. The file is read leniently here (only that one key):
    /// validating the whole config is the daemon's job, and a client command must still
    /// be able to say "not running" when the config has a problem the daemon reported.
    var socketPath: String {
        if let socketOverride { return socketOverride }
        let file = NodeConfig.path(datadir, NodeConfig.configFileName)
        if let text = Self.readSmallFile(file),
           let entries = try? ConfigFileParser.parse(text, fileName: NodeConfig.configFileName),
           let socket = entries.last(where: { $0.key == "control_socket" })?.value, !socket.isEmpty {
            return NodeConfig.path(datadir, socket)
        }
        return NodeConfig.path(datadir, NodeConfig.socketFileName)
    }

    /// False when nothing is at `datadir`: the commands say to run `peernode init` (exit 4)
    /// rather than that the daemon is not running.
    var datadirExists: Bool {
        var info = stat()
        return stat(datadir, &info) == 0
    }

    /// Also reads `recover --contract @file`.
    static func readSmallFile(_ path: String) -> String? {
        readSmallBytes(path).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// The first MiB of a file, as bytes (a recovery file is binary).
    static func readSmallBytes(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return bytes
    }
}

/// The commands that run in this process: `init`, `run`, `help`.
enum Local {
    static func initialize(_ arguments: Arguments) async -> Int32 {
        let context: Context
        let network: Network
        do {
            try CLICommand.noExtraPositionals(arguments, 0, command: "init")
            context = try Context(arguments)
            let name = arguments.options["network"] ?? "mainnet"
            guard let parsed = Network(rawValue: name) else {
                throw UsageError("--network must be mainnet, testnet, signet or regtest, got \"\(name)\"", command: "init")
            }
            network = parsed
        } catch let error as UsageError {
            return Main.usageFailure(error)
        } catch {
            return Main.usageFailure(UsageError("\(error)", command: "init"))
        }
        let pubky: PubkyInit?
        do throws(PubkyInitFailure) {
            pubky = try await PubkyInit.prepare(arguments)
        } catch {
            switch error {
            case .usage(let usage): return Main.usageFailure(usage)
            case .daemon(let failure): return Main.failure(code: failure.code, message: failure.description, exit: failure.exitCode)
            }
        }
        do {
            let made = try await DataDirectory.initialize(datadir: context.datadir, network: network)
            var published: [(relay: String, outcome: String)] = []
            if let pubky {
                published = try await pubky.certify(node: made.pubky, datadir: context.datadir)
                await pubky.close()
            }
            let identity = pubky?.identity.pubky ?? made.pubky
            if context.json {
                var fields: [String: JSONValue] = ["pubky": .string(identity.z32), "datadir": .string(made.datadir),
                                                   "network": .string(network.rawValue), "wrote_config": .bool(made.wroteConfig),
                                                   "node_pubky": .string(made.pubky.z32)]
                if pubky != nil {
                    fields["pkarr_published"] = .array(published.map { .object(["relay": .string($0.relay),
                                                                               "outcome": .string($0.outcome)]) })
                }
                Output.out(JSONValue.object(fields).canonicalString)
                return ExitCode.success
            }
            let config = NodeConfig.path(context.datadir, NodeConfig.configFileName)
            var lines: [(String, String)] = [
                ("created", "\(context.datadir) (\(network.rawValue)"
                    + (arguments.options["network"] == nil ? ", the default; --network testnet|signet|regtest for another)" : ")")),
                ("pubky", identity.z32),
            ]
            if pubky != nil {
                lines.append(("node key", "\(made.pubky.z32) (certified by the pubky in "
                              + "\(PubkyIdentityFile.path(datadir: context.datadir)); the recovery file was not kept)"))
                for entry in published { lines.append(("pkarr relay", "\(entry.relay): \(entry.outcome)")) }
            }
            lines += [
                ("seed", "\(NodeConfig.path(context.datadir, NodeConfig.seedFileName)) (mode 0600; back it up: it controls this node's funds)"),
                ("config", made.wroteConfig ? "\(config) (set the bitcoind_rpc_* and lnd_* keys)" : "\(config) (kept as it was)"),
                ("next", "peernode run --datadir \(context.datadir)"),
            ]
            Output.out(Render.fields(lines))
            return ExitCode.success
        } catch {
            await pubky?.close()
            return Main.failure(code: error.code, message: error.description, exit: error.exitCode)
        }
    }

    /// The data directory and `--key=value` overrides of a command that reads the config
    /// as the daemon does (`run`, `doctor`), or the exit code after printing why not.
    private enum DaemonContext {
        case ready(Context, [ConfigEntry])
        case refused(Int32)

        init(_ arguments: Arguments, command: String) {
            do {
                try CLICommand.noExtraPositionals(arguments, 0, command: command)
                let context = try Context(arguments)
                var words = arguments.unknown
                if let network = arguments.options["network"] { words.append("--network=\(network)") }
                if let socket = arguments.options["socket"] { words.append("--control_socket=\(socket)") }
                self = .ready(context, try ConfigFileParser.parseOverrides(words))
            } catch let error as UsageError {
                self = .refused(Main.usageFailure(error))
            } catch {
                self = .refused(Main.failure(code: "config", message: "configuration error: \(error)", exit: ExitCode.configError))
            }
        }
    }

    static func run(_ arguments: Arguments) async -> Int32 {
        let context: Context
        let overrides: [ConfigEntry]
        switch DaemonContext(arguments, command: "run") {
        case .ready(let read, let entries): (context, overrides) = (read, entries)
        case .refused(let code): return code
        }
        // peernode.log in the data directory (time, level, rotated by size: docs/LOGS.md),
        // and the same lines on stderr for the terminal or supervisor running it. Without
        // a data directory there is no file; the daemon then stops with its own error.
        let echo: @Sendable (String) -> Void = { Output.write($0, to: STDERR_FILENO) }
        let logFile = try? LogFile(directory: context.datadir)
        let log = logFile.map { DaemonLog.file($0, echo: echo) }
            ?? DaemonLog { echo(LogLine.format($0, unixMillis: LogFile.wallClockMillis())) }
        defer { logFile?.close() }
        let daemon = NodeDaemon(options: NodeDaemon.Options(
            datadir: context.datadir, overrides: overrides, allowUnsafe: arguments.flag("allow-unsafe"),
            watchSignals: true, log: log, engines: NodeEngines.factory(log: log)))
        do {
            try await daemon.run()
            return ExitCode.success
        } catch {
            return Main.failure(code: error.code, message: error.description, exit: error.exitCode)
        }
    }

    /// `peernode doctor`: the config as `run` reads it, then every check (`NodeDoctor`).
    static func doctor(_ arguments: Arguments) async -> Int32 {
        let context: Context
        let overrides: [ConfigEntry]
        switch DaemonContext(arguments, command: "doctor") {
        case .ready(let read, let entries): (context, overrides) = (read, entries)
        case .refused(let code): return code
        }
        let config: NodeConfig
        let loop: EventLoop
        do {
            config = try DataDirectory.loadConfig(datadir: context.datadir, overrides: overrides,
                                                  allowUnsafe: arguments.flag("allow-unsafe"))
            loop = try EventLoop()
        } catch let error as DaemonError {
            return Main.failure(code: error.code, message: error.description, exit: error.exitCode)
        } catch {
            return Main.failure(code: "file", message: "cannot start the event loop: \(error)", exit: ExitCode.failure)
        }
        let report = await NodeDoctor.examine(config: config, loop: loop)
        await loop.shutdown()
        Output.out(context.json ? report.json.canonicalString : report.text)
        return report.exitCode
    }

    static func help(_ arguments: Arguments) async -> Int32 {
        let topic = Array(arguments.positionals)
        let text: String
        if topic.isEmpty {
            text = Commands.overview
        } else if topic == ["config"] {
            text = ConfigKey.table
        } else if let (command, used) = Commands.find(topic), used == topic.count {
            text = command.help
        } else if !Commands.group(topic[0]).isEmpty && topic.count == 1 {
            text = Main.groupHelp(topic[0])
        } else {
            return Main.usageFailure(UsageError("no help for \"\(topic.joined(separator: " "))\"; `peernode help` lists the commands"))
        }
        Output.out(Invocation.json ? JSONValue.object(["help": .string(text)]).canonicalString : text)
        return ExitCode.success
    }
}
