import HTLC
import PeerNode
import Transport

/// One `peernode` command: its words, a one-line abstract, its usage and options for
/// `--help`, and either a control request it sends to the daemon (with how to show the
/// result) or a local action (`init`, `run`, `help`).
struct CLICommand {
    enum Action {
        /// Sends a request built from the arguments; renders the result for people.
        /// The builder throws only `UsageError` (its closures are untyped so trailing closures
        /// need no annotation).
        case remote(request: (Arguments) throws -> ControlMessage.Request, render: (JSONValue) -> String)
        case local(@Sendable (Arguments) async -> Int32)
    }

    let words: [String]
    let abstract: String
    /// After `peernode <words>`: positionals and options.
    let usage: String
    let details: [String]
    let action: Action

    var name: String { words.joined(separator: " ") }

    var help: String {
        var lines = ["usage: peernode \(name)\(usage.isEmpty ? "" : " " + usage)", "", abstract]
        if !details.isEmpty { lines += [""] + details }
        lines += ["", "common options:",
                  "  --datadir <dir>   the data directory (default: ~/.peernode)",
                  "  --socket <path>   the daemon's control socket (default: control_socket of the config)",
                  "  --json            print one JSON object on stdout, errors included (docs/CLI.md)",
                  "  --help, -h        this text",
                  "", CLICommand.exitCodes]
        return lines.joined(separator: "\n")
    }

    static let exitCodes = """
        exit codes: 0 ok, 1 the command failed, 2 usage error (or a refused contact change), 3 the daemon is
                    not running, 4 configuration or data directory error (no data directory: run `peernode init`),
                    5 detached (Ctrl-C, or the daemon stopping, let go of a swap that goes on in the daemon)
        """

    /// The positional at `index`, or a usage error naming it.
    static func positional(_ arguments: Arguments, _ index: Int, _ name: String, command: String) throws(UsageError) -> String {
        guard index < arguments.positionals.count else { throw UsageError("missing <\(name)>", command: command) }
        return arguments.positionals[index]
    }

    /// A positive whole number of satoshis.
    static func satoshis(_ text: String, _ name: String, command: String) throws(UsageError) -> Int64 {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let value = Int64(text), value > 0, value <= 2_100_000_000_000_000 else {
            throw UsageError("<\(name)> must be a whole number of satoshis above 0, got \"\(text)\"", command: command)
        }
        return value
    }

    /// A positive whole number that is not an amount (`--limit`, `--gap-limit`).
    static func count(_ text: String, _ name: String, command: String) throws(UsageError) -> Int64 {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let value = Int64(text), value > 0 else {
            throw UsageError("\(name) must be a whole number above 0, got \"\(text)\"", command: command)
        }
        return value
    }

    /// A fee rate in sat/vB: above 0, up to 3 decimals (a whole sat per kvB), at most
    /// 10,000; sent as the decimal the user typed.
    static func feeRate(_ text: String, command: String) throws(UsageError) -> JSONValue {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let digits: (Substring) -> Bool = { !$0.isEmpty && $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }
        guard (parts.count == 1 || parts.count == 2), digits(parts[0]), parts.count == 1 || (digits(parts[1]) && parts[1].count <= 3),
              let whole = Int64(parts[0]), whole <= 10_000 else {
            throw UsageError("--fee-rate must be a rate in sat/vB such as 2 or 1.5 (at most 3 decimals, up to 10,000), got \"\(text)\"",
                             command: command)
        }
        let fraction = parts.count == 2 ? (Int64(parts[1]) ?? 0) * [100, 10, 1][parts[1].count - 1] : 0
        let perKvB = whole * 1_000 + fraction
        guard perKvB > 0, perKvB <= 10_000_000 else {
            throw UsageError("--fee-rate must be above 0 and at most 10,000 sat/vB, got \"\(text)\"", command: command)
        }
        return .number(text)
    }

    /// `--contract-type` and (where `quote` allows) `--quote` into the request's args.
    static func swapOptions(_ arguments: Arguments, into args: inout [String: JSONValue], quote: Bool,
                            command: String) throws(UsageError) {
        if let type = arguments.options["contract-type"] {
            if let retired = ContractType(rawValue: type), retired.isRetired {
                throw UsageError("--contract-type \(type) is retired (its claim branch does not check the preimage's size); "
                                 + "use p2wsh_v2 or taproot_boltz", command: command)
            }
            guard ContractType(rawValue: type) != nil else {
                throw UsageError("--contract-type must be one of " + ContractType.allCases.map(\.rawValue).joined(separator: ", ")
                                 + ", got \"\(type)\"", command: command)
            }
            args["contract_type"] = .string(type)
        }
        if let id = arguments.options["quote"] {
            guard quote else { throw UsageError("--quote is for `pay` only", command: command) }
            guard !id.isEmpty else { throw UsageError("--quote needs the quote id `peernode quote` printed", command: command) }
            args["quote_id"] = .string(id)
        }
    }

    /// `--from savings|spending`: which balance pays (`pay`, `quote`, `max`).
    static func source(_ arguments: Arguments, into args: inout [String: JSONValue], command: String) throws(UsageError) {
        guard let from = arguments.options["from"] else { return }
        guard from == "savings" || from == "spending" else {
            throw UsageError("--from must be savings (the on-chain wallet) or spending (the Lightning balance), got \"\(from)\"",
                             command: command)
        }
        args["from"] = .string(from)
    }

    static func noExtraPositionals(_ arguments: Arguments, _ count: Int, command: String) throws(UsageError) {
        if arguments.positionals.count > count {
            throw UsageError("unexpected argument \"\(arguments.positionals[count])\"", command: command)
        }
    }
}
