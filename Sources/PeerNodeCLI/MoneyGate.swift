#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PeerNode
import Transport

/// Ask before money moves (issue 14): `pay`, `swap-out` and `wallet send` show what they
/// will do and what it costs, and go on only when the user says yes on a terminal; `--yes`
/// says it up front (scripts). With no terminal and no `--yes` they refuse (exit 2), so a
/// script that forgot the flag pays nothing. `pay --max-fee <sats>` quotes first and
/// commits exactly the quote it checked, so the fee that was checked is the fee paid.
enum MoneyGate {
    enum Outcome {
        case proceed(ControlMessage.Request)
        case exit(Int32)
    }

    static let commands: Set<String> = ["pay", "swap-out", "swap-in", "wallet.send"]

    static func check(_ given: ControlMessage.Request, name: String, arguments: Arguments,
                      client: BlockingControlClient) -> Outcome {
        var request = given
        let yes = arguments.flag("yes")
        let interactive = isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1
        var maxFee: Int64?
        if let text = arguments.options["max-fee"] {
            guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                  let value = Int64(text), value <= 2_100_000_000_000_000 else {
                return .exit(Main.usageFailure(UsageError("--max-fee must be a whole number of satoshis, got \"\(text)\"",
                                                          command: name)))
            }
            if request.args["quote_id"] != nil {
                return .exit(Main.usageFailure(UsageError("--max-fee checks a fresh quote; it cannot check --quote's, "
                                                          + "whose fees `peernode quote` showed", command: name)))
            }
            maxFee = value
            // The daemon holds the route to it too (a swap-out routes afresh after the check).
            if case .object(var args) = request.args {
                args["max_fee_sat"] = .integer(value)
                request = ControlMessage.Request(command: request.command, args: .object(args))
            }
        }
        if !yes && !interactive {
            return .exit(Main.usageFailure(UsageError("\(name) moves money: run it on a terminal to confirm, or pass --yes; "
                                                      + "nothing was paid", command: name)))
        }
        if request.command == "swap-in" {
            // The fees are the chosen provider's: the route line says them before the lock.
            if yes { return .proceed(request) }
            return ask("swap in \(Render.sats(request.args["amount_sat"])) from on-chain savings to the Lightning balance "
                       + "through the cheapest provider (the lock holds the amount plus its fees)?") ? .proceed(request) : .exit(cancelled())
        }
        guard request.command == "pay" || request.command == "swap-out" else {
            if yes { return .proceed(request) }
            return confirmSend(request, client: client)
        }
        if yes && maxFee == nil { return .proceed(request) }
        // pay with --quote committed a quote the user already saw.
        if request.args["quote_id"] != nil { return ask("commit quote \(Render.text(request.args["quote_id"]))?") ? .proceed(request) : .exit(cancelled()) }

        var quoteArgs: [String: JSONValue] = ["amount_sat": request.args["amount_sat"] ?? .null]
        if let contact = request.args["contact"] { quoteArgs["contact"] = contact }
        if let type = request.args["contract_type"] { quoteArgs["contract_type"] = type }
        if let from = request.args["from"] { quoteArgs["from"] = from }
        let quote: JSONValue
        do {
            switch try client.send(ControlMessage.Request(command: "quote", args: .object(quoteArgs)), progress: { _ in }) {
            case .success(let value): quote = value
            case .failure(let error):
                return .exit(Main.failure(code: error.code, message: "\(name): \(error.message)", exit: ExitCode.failure))
            }
        } catch {
            if case .daemonNotRunning = error {
                return .exit(Main.failure(code: "daemon_not_running", message: "the daemon is not running: \(error)",
                                          exit: ExitCode.daemonUnreachable))
            }
            return .exit(Main.failure(code: "control", message: "\(error)", exit: ExitCode.failure))
        }
        let fees = quote["fees"]?["fees_total_sat"]?.int64Value ?? 0
        if let maxFee, fees > maxFee {
            return .exit(Main.failure(code: "fee_limit", message: "\(name): the fees come to at most \(Render.sats(.integer(fees))), "
                                      + "above --max-fee \(Render.sats(.integer(maxFee))); nothing was paid", exit: ExitCode.failure))
        }
        var committed = request
        if request.command == "pay", let id = quote["quote_id"] {
            // Commit exactly the quote whose fees were shown and checked. A direct route has
            // no quote: `pay` takes it again (the chooser decides alike a moment later).
            if case .object(var args) = request.args {
                args["quote_id"] = id
                committed = ControlMessage.Request(command: "pay", args: .object(args))
            }
        }
        if yes { return .proceed(committed) }
        let shown = Render.quote(quote).split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("quote only:") }.joined(separator: "\n")
        Output.err(shown)
        let spend = quote["fees"]?["spend_max_sat"].map { Render.sats($0) } ?? "-"
        let what = request.command == "pay" ? "pay \(Render.text(request.args["contact"]))" : "swap out"
        let balance = quote["rail"]?["source"]?.stringValue ?? "spending"
        return ask("\(what) \(Render.sats(request.args["amount_sat"])), \(spend) at most from the \(balance) balance?")
            ? .proceed(committed) : .exit(cancelled())
    }

    /// wallet send: the daemon builds the transaction without sending it and the prompt
    /// shows its exact fee; the confirmed send carries that fee, and the daemon refuses
    /// (nothing sent) if the transaction it builds then pays another.
    private static func confirmSend(_ request: ControlMessage.Request, client: BlockingControlClient) -> Outcome {
        guard case .object(var args) = request.args else { return .proceed(request) }
        var previewArgs = args
        previewArgs["preview"] = .bool(true)
        let plan: JSONValue
        switch beforehand(client, ControlMessage.Request(command: request.command, args: .object(previewArgs)),
                          name: "wallet send") {
        case .success(let value): plan = value
        case .failure(let status): return .exit(status.code)
        }
        let question = "send \(Render.sats(request.args["amount_sat"])) to \(Render.text(request.args["address"])) "
            + "with a fee of \(Render.sats(plan["fee_sat"])) (\(Render.text(plan["fee_rate_sat_vb"])) sat/vB, "
            + "\(Render.text(plan["vsize"])) vB), \(Render.sats(plan["total_sat"])) from the wallet in all?"
        guard ask(question) else { return .exit(cancelled()) }
        args["expected_fee_sat"] = plan["fee_sat"] ?? .null
        return .proceed(ControlMessage.Request(command: request.command, args: .object(args)))
    }

    /// One request to the daemon before the real one; a failure is printed as the command's.
    private static func beforehand(_ client: BlockingControlClient, _ request: ControlMessage.Request,
                            name: String) -> Result<JSONValue, ExitStatus> {
        do {
            switch try client.send(request, progress: { _ in }) {
            case .success(let value): return .success(value)
            case .failure(let error):
                return .failure(ExitStatus(Main.failure(code: error.code, message: "\(name): \(error.message)",
                                                        exit: ExitCode.failure)))
            }
        } catch {
            if case .daemonNotRunning = error {
                return .failure(ExitStatus(Main.failure(code: "daemon_not_running", message: "the daemon is not running: \(error)",
                                                        exit: ExitCode.daemonUnreachable)))
            }
            return .failure(ExitStatus(Main.failure(code: "control", message: "\(error)", exit: ExitCode.failure)))
        }
    }

    /// An exit status as a `Result` failure.
    struct ExitStatus: Error {
        let code: Int32
        init(_ code: Int32) { self.code = code }
    }

    /// `[y/N]` on stderr; a line from stdin.
    private static func ask(_ question: String) -> Bool {
        Output.write(question + " [y/N] ", to: STDERR_FILENO)
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < 64 {
            let count = read(STDIN_FILENO, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1, byte != UInt8(ascii: "\n") else { break }
            bytes.append(byte)
        }
        let answer = String(decoding: bytes, as: UTF8.self).lowercased()
        return answer == "y" || answer == "yes"
    }

    private static func cancelled() -> Int32 {
        Main.failure(code: "cancelled", message: "not confirmed; nothing was paid", exit: ExitCode.failure)
    }
}
