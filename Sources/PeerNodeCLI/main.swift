#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import PeerNode
import Transport

/// `peernode <command> [options]`: `init` and `run` work on the data directory; every
/// other command sends one request to the running daemon's control socket and prints
/// the result (human-readable, or the raw JSON with --json).
enum Main {
    /// What the command line asks for.
    enum Start {
        /// Done without Swift's concurrency runtime: the exit code. Every command that only
        /// talks to the daemon ends here, so its process never starts the runtime's threads
        /// (docs/PERFORMANCE.md, "A command without tasks").
        case finished(Int32)
        /// A command that runs tasks (`init`, `run`, `doctor`, `help`).
        case tasks(@Sendable () async -> Int32)
    }

    static func start(_ words: [String]) -> Start {
        let arguments: Arguments
        do {
            arguments = try Arguments.parse(words)
        } catch {
            return .finished(usageFailure(error))
        }
        guard !arguments.positionals.isEmpty else {
            if arguments.flag("version") {
                Output.out(Invocation.json ? JSONValue.object(["version": .string(Version.current)]).canonicalString
                                           : "peernode \(Version.current)")
                return .finished(ExitCode.success)
            }
            if arguments.flag("help") {
                Output.out(Invocation.json ? JSONValue.object(["help": .string(Commands.overview)]).canonicalString : Commands.overview)
                return .finished(ExitCode.success)
            }
            return .finished(usageFailure(UsageError("no command given")))
        }
        guard let (command, used) = Commands.find(arguments.positionals) else {
            let word = arguments.positionals[0]
            if !Commands.group(word).isEmpty {
                if arguments.flag("help") {
                    Output.out(groupHelp(word))
                    return .finished(ExitCode.success)
                }
                let rest = arguments.positionals.dropFirst().first.map { typed in
                    let names = Commands.group(word).map { $0.words[1] }
                    let hint = KeySuggestion.closest(to: typed, among: names).map { "; did you mean `peernode \(word) \($0)`?" } ?? ""
                    return "unknown subcommand \"\(typed)\"" + hint
                } ?? "missing subcommand"
                return .finished(usageFailure(UsageError("\(word): \(rest)\n\n\(groupHelp(word))")))
            }
            let names = Commands.all.map(\.name) + ["help"]
            let hint = KeySuggestion.closest(to: word, among: names).map { "; did you mean `peernode \($0)`?" } ?? ""
            return .finished(usageFailure(UsageError("unknown command \"\(word)\"" + hint)))
        }
        if arguments.flag("help") {
            Output.out(Invocation.json ? JSONValue.object(["help": .string(command.help)]).canonicalString : command.help)
            return .finished(ExitCode.success)
        }
        var rest = arguments
        rest.positionals = Array(arguments.positionals.dropFirst(used))
        if let refused = CommandOptions.firstRefused(rest, command: command.name) {
            return .finished(usageFailure(UsageError("\(command.name) has no option \(refused)", command: command.name)))
        }
        switch command.action {
        case .local(let body):
            return .tasks { [rest] in await body(rest) }
        case .remote(let build, let render):
            return .finished(remote(command, rest, build: build, render: render))
        }
    }

    static func remote(_ command: CLICommand, _ arguments: Arguments,
                       build: (Arguments) throws -> ControlMessage.Request,
                       render: (JSONValue) -> String) -> Int32 {
        let context: Context
        let built: ControlMessage.Request
        do {
            context = try Context(arguments)
            built = try build(arguments)
        } catch let error as UsageError {
            return usageFailure(error)
        } catch {
            return usageFailure(UsageError("\(error)", command: command.name))
        }
        // As the event loop these commands once started did: a reader of stdout that goes
        // away (`| head`) makes a write fail with EPIPE instead of killing the command.
        signal(SIGPIPE, SIG_IGN)
        if context.socketOverride == nil, !context.datadirExists {
            return failure(code: "no_data_directory", message: "the data directory \(context.datadir) does not exist; create it with "
                           + "`peernode init --datadir \(context.datadir)`, then start the daemon with `peernode run`",
                           exit: ExitCode.configError)
        }
        var request = built
        if MoneyGate.commands.contains(request.command) {
            switch MoneyGate.check(request, name: command.name, arguments: arguments,
                                   client: BlockingControlClient(socketPath: context.socketPath)) {
            case .proceed(let confirmed):
                request = confirmed
            case .exit(let code):
                return code
            }
        }
        let json = context.json
        let swapID = SwapIDWitness()
        let shown = ProgressLinesShown()
        // Ctrl-C of an attached command lets go of the swap, which the daemon goes on with.
        let name = command.name
        let interrupt = ControlMessage.attachedCommands.contains(built.command) ? InterruptPipe.install() : nil
        let client = BlockingControlClient(socketPath: context.socketPath, interrupt: interrupt) {
            let follow = Self.follow(swapID.id, context: context)
            if json {
                Output.out(Self.errorJSON(code: "interrupted", message: "interrupted; " + follow,
                                          extra: swapID.id.map { ["swap_id": .string($0)] } ?? [:]))
            }
            Output.err("peernode \(name): interrupted; the command stopped, the daemon did not.\n\(follow)")
            exit(ExitCode.detached)
        }
        let outcome: Result<JSONValue, ControlError>
        do {
            outcome = try client.send(request) { progress in
                if swapID.see(progress), !json, let id = swapID.id {
                    // The id from the first line that has it, so the user can follow it anywhere.
                    Output.err("swap \(id) (follow it from anywhere: `peernode swap watch \(id)`)")
                }
                // Progress goes to stderr, so stdout holds only the result. A step the engine
                // reports twice (the claim's broadcast, then its acceptance) is shown once.
                if json {
                    Output.err(JSONNaming.normalized(progress).canonicalString)
                } else if shown.first(progress) {
                    Output.err(Render.progress(progress))
                }
            }
        } catch {
            if case .daemonNotRunning(let socket, let reason) = error {
                return failure(code: "daemon_not_running", message: "the daemon is not running: nothing answers on \(socket) (\(reason)).\n"
                               + "Start it with `peernode run --datadir \(context.datadir)`.", exit: ExitCode.daemonUnreachable)
            }
            return failure(code: "control", message: "\(error)", exit: ExitCode.failure)
        }
        switch outcome {
        case .success(let result):
            Output.out(json ? JSONNaming.normalized(result).canonicalString : render(result))
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
            // The daemon's message may name the command itself ("swap-out: ..."): said once.
            let message = error.message.hasPrefix(command.name + ": ") ? String(error.message.dropFirst(command.name.count + 2))
                                                                      : error.message
            Output.err("peernode \(command.name): \(message)")
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
        return "swap \(swapID) goes on in the daemon; follow it with `peernode swap watch \(swapID) --datadir \(context.datadir)` "
            + "(start the daemon again with `peernode run --datadir \(context.datadir)` if it stopped)"
    }

    static func usageFailure(_ error: UsageError) -> Int32 {
        // A message that carries its own help (a group's subcommands) or a suggestion needs no pointer to more.
        if error.message.contains("\n") || error.message.hasSuffix("?") {
            return failure(code: "usage", message: error.message, exit: ExitCode.usage)
        }
        let hint = error.command.isEmpty ? "`peernode --help` lists the commands" : "see `peernode \(error.command) --help`"
        return failure(code: "usage", message: "\(error.message); \(hint)", exit: ExitCode.usage)
    }

    /// A failure before or outside the daemon's answer: the message on stderr, and under
    /// `--json` the `{"error": {"code", "message"}}` object on stdout.
    static func failure(code: String, message: String, exit: Int32) -> Int32 {
        if Invocation.json { Output.out(errorJSON(code: code, message: message)) }
        Output.err("peernode: \(message)")
        return exit
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

switch Main.start(Array(CommandLine.arguments.dropFirst())) {
case .finished(let code):
    exit(code)
case .tasks(let body):
    // Top-level code that awaited would start the runtime for every command: its main
    // task runs on a pool thread. Only the commands that need tasks start them.
    Task.detached { exit(await body()) }
    dispatchMain()
}
