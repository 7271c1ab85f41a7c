#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PeerNode
import Transport

/// `peernode <command> [options]`: `init` and `run` work on the data directory; every
/// other command sends one request to the running daemon's control socket and prints
/// the result (human-readable, or the raw JSON with --json).
enum Main {
    static func start(_ words: [String]) async -> Int32 {
        let arguments: Arguments
        do {
            arguments = try Arguments.parse(words)
        } catch {
            return usageFailure(error)
        }
        guard !arguments.positionals.isEmpty else {
            if arguments.flag("help") {
                Output.out(Commands.overview)
                return ExitCode.success
            }
            return usageFailure(UsageError("no command given"))
        }
        guard let (command, used) = Commands.find(arguments.positionals) else {
            let word = arguments.positionals[0]
            if !Commands.group(word).isEmpty {
                if arguments.flag("help") {
                    Output.out(groupHelp(word))
                    return ExitCode.success
                }
                let rest = arguments.positionals.dropFirst().first.map { "unknown subcommand \"\($0)\"" } ?? "missing subcommand"
                return usageFailure(UsageError("\(word): \(rest)\n\n\(groupHelp(word))"))
            }
            return usageFailure(UsageError("unknown command \"\(word)\""))
        }
        if arguments.flag("help") {
            Output.out(command.help)
            return ExitCode.success
        }
        var rest = arguments
        rest.positionals = Array(arguments.positionals.dropFirst(used))
        if command.words != ["run"], let unknown = rest.unknown.first {
            return usageFailure(UsageError("unknown option \(unknown)", command: command.name))
        }
        switch command.action {
        case .local(let body):
            return await body(rest)
        case .remote(let build, let render):
            return await remote(command, rest, build: build, render: render)
        }
    }

    static func remote(_ command: CLICommand, _ arguments: Arguments,
                       build: (Arguments) throws -> ControlMessage.Request,
                       render: (JSONValue) -> String) async -> Int32 {
        let context: Context
        let request: ControlMessage.Request
        do {
            context = try Context(arguments)
            request = try build(arguments)
        } catch let error as UsageError {
            return usageFailure(error)
        } catch {
            return usageFailure(UsageError("\(error)", command: command.name))
        }
        let loop: EventLoop
        do {
            loop = try EventLoop()
        } catch {
            Output.err("peernode: cannot start the event loop: \(error)")
            return ExitCode.failure
        }
        let client = ControlClient(socketPath: context.socketPath, loop: loop)
        let json = context.json
        let swapID = SwapIDWitness()
        let outcome: Result<JSONValue, ControlError>
        do {
            outcome = try await client.send(request) { progress in
                swapID.see(progress)
                // Progress goes to stderr, so stdout holds only the result.
                Output.err(json ? progress.canonicalString : Render.progress(progress))
            }
        } catch {
            await loop.shutdown()
            if case .daemonNotRunning(let socket, let reason) = error {
                Output.err("peernode: the daemon is not running: nothing answers on \(socket) (\(reason)).\n"
                    + "Start it with `peernode run --datadir \(context.datadir)`.")
                return ExitCode.daemonUnreachable
            }
            Output.err("peernode: \(error)")
            return ExitCode.failure
        }
        await loop.shutdown()
        switch outcome {
        case .success(let result):
            Output.out(json ? result.canonicalString : render(result))
            return ExitCode.success
        case .failure(let error) where error.code == ControlError.Code.detached:
            let follow = Self.follow(swapID.id, context: context)
            if json {
                Output.out(Self.errorJSON(code: error.code, message: error.message + "; " + follow,
                                          extra: swapID.id.map { ["swap_id": .string($0)] } ?? [:]))
            }
            Output.err("peernode \(command.name): \(error.message)\n\(follow)")
            return ExitCode.detached
        case .failure(let error):
            if json { Output.out(Self.errorJSON(code: error.code, message: error.message)) }
            Output.err("peernode \(command.name): \(error.message)")
            switch error.code {
            case ControlError.Code.invalidRequest, ControlError.Code.unknownCommand, ControlError.Code.contactConflict:
                return ExitCode.usage
            default: return ExitCode.failure
            }
        }
    }

    /// Every failure under `--json`: `{"error": {"code", "message"}}` on stdout (docs/CLI.md).
    static func errorJSON(code: String, message: String, extra: [String: JSONValue] = [:]) -> String {
        var error: [String: JSONValue] = ["code": .string(code), "message": .string(message)]
        error.merge(extra) { _, new in new }
        return JSONValue.object(["error": .object(error)]).canonicalString
    }

    /// How to follow a swap this command let go of.
    static func follow(_ swapID: String?, context: Context) -> String {
        guard let swapID else {
            return "no swap had started yet; `peernode swaps --datadir \(context.datadir)` lists what the daemon holds"
        }
        return "swap \(swapID) goes on in the daemon; follow it with `peernode swap show \(swapID) --datadir \(context.datadir)` "
            + "(start the daemon again with `peernode run --datadir \(context.datadir)` if it stopped)"
    }

    static func usageFailure(_ error: UsageError) -> Int32 {
        let hint = error.command.isEmpty ? "`peernode --help` lists the commands" : "see `peernode \(error.command) --help`"
        Output.err("peernode: \(error.message)\n\(hint)")
        return ExitCode.usage
    }

    static func groupHelp(_ word: String) -> String {
        var lines = ["usage: peernode \(word) <subcommand> [options]", "", "subcommands:"]
        let commands = Commands.group(word)
        let width = commands.map(\.words[1].count).max() ?? 0
        for command in commands {
            lines.append("  \(command.words[1])\(String(repeating: " ", count: width - command.words[1].count))  \(command.abstract)")
        }
        return lines.joined(separator: "\n")
    }
}

exit(await Main.start(Array(CommandLine.arguments.dropFirst())))
