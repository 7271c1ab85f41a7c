import PeerNode
import Transport

/// Every `peernode` command. The remote ones are thin: they check their arguments,
/// build one control request, and render its result.
enum Commands {
    /// Computed: the table holds closures, and a computed list needs no shared state.
    static var all: [CLICommand] { [
        CLICommand(words: ["init"], abstract: "Create a data directory: seed (0600), commented config, store; print the node's pubky.",
                   usage: "[--network mainnet|testnet|signet|regtest] [--pubky-recovery-file <file> --pkarr-relay <url>[,<url>...]]",
                   details: ["Refuses to overwrite an existing seed. Edit <datadir>/peernode.conf before `peernode run`.",
                             "With --pubky-recovery-file the node's pubky is your Pubky identity: the file is opened once (its",
                             "passphrase typed at a prompt, or read from the file PEERNODE_PUBKY_PASSPHRASE_FILE names, never",
                             "from the command line), the identity signs one record naming this node's own key, and the key",
                             "is forgotten. The identity's packet is read from the relays first (its other records are kept),",
                             "then published to them; the daemon republishes it (docs/PUBKY.md)."],
                   action: .local(Local.initialize)),
        CLICommand(words: ["run"], abstract: "Run the daemon in the foreground until SIGINT or SIGTERM.",
                   usage: "[--allow-unsafe] [--<key>=<value> ...]",
                   details: ["Any config key can be given as --<key>=<value>; it wins over peernode.conf.",
                             "--allow-unsafe accepts mainnet settings that put funds at risk (see `peernode help config`)."],
                   action: .local(Local.run)),
        CLICommand(words: ["doctor"], abstract: "Check everything the node needs, without the daemon; say what to do for each problem.",
                   usage: "[--allow-unsafe] [--<key>=<value> ...]",
                   details: ["Checks the data directory, Bitcoin Core (reachable, network, txindex), LND (macaroon permissions",
                             "read offline, TLS with lnd_tls_cert, network, synced, outbound liquidity) and the peer port.",
                             "Each check is ok, a warning (the node runs, degraded) or fatal (`run` refuses to start on it).",
                             "Exit 0 when no check is fatal, 1 when one is, 4 when the config itself cannot be read."],
                   action: .local(Local.doctor)),
        remote(["status"], "Show the node: network, pubky, chain tip, balances, peers, provider.", "") { arguments in
            try CLICommand.noExtraPositionals(arguments, 0, command: "status")
            return ControlMessage.Request(command: "status")
        } render: { Render.status($0) },
        remote(["stop"], "Stop the daemon as SIGTERM does: attached commands are detached, state is kept, it exits.", "",
               details: ["The daemon stops taking commands, answers `pay`s that wait on a swap with the swap id (the swap",
                         "goes on at the next `peernode run`), and exits within 10 s."]) { arguments in
            try CLICommand.noExtraPositionals(arguments, 0, command: "stop")
            return ControlMessage.Request(command: "stop")
        } render: { "stopping the daemon (pid \(Render.text($0["pid"])))" },
        remote(["contacts", "add"], "Save a contact; never renames or re-keys an existing one without --replace.",
               "<name> <pubky> [<host:port>] | <name> <pubky>@<host:port> [--replace]",
               details: ["Without an address the pubky is resolved through the pkarr relays (pkarr_relay) and the address",
                         "follows the contact's packet; a typed address is kept as an override.",
                         "A pubky already saved under another name, or a name another pubky holds, is refused (exit 2)",
                         "with what exists: rename it (`peernode contacts rename <old> <new>`) or add with --replace,",
                         "which points the name at this pubky and drops the contact that held it."]) { arguments in
            let name = try CLICommand.positional(arguments, 0, "name", command: "contacts add")
            let pubky: String
            let address: String?
            let second = try CLICommand.positional(arguments, 1, "pubky", command: "contacts add")
            if arguments.positionals.count == 2, let at = second.lastIndex(of: "@") {
                pubky = String(second[..<at])
                address = String(second[second.index(after: at)...])
            } else if arguments.positionals.count == 2 {
                // The pubky alone: the daemon resolves it through the pkarr relays.
                pubky = second
                address = nil
            } else {
                pubky = second
                address = try CLICommand.positional(arguments, 2, "host:port", command: "contacts add")
                try CLICommand.noExtraPositionals(arguments, 3, command: "contacts add")
            }
            var fields: [String: JSONValue] = ["name": .string(name), "pubky": .string(pubky),
                                               "replace": .bool(arguments.flag("replace"))]
            if let address {
                let (host, port) = try hostPort(address, command: "contacts add")
                fields["host"] = .string(host)
                fields["port"] = .integer(port)
            }
            return ControlMessage.Request(command: "contacts.add", args: .object(fields))
        } render: { Render.contact($0["contact"], verb: "saved") + ($0["note"].map { "\nnote: \(Render.text($0))" } ?? "") },
        remote(["contacts", "rename"], "Give a contact a new name.", "<name|pubky> <new-name>") { arguments in
            let which = try CLICommand.positional(arguments, 0, "name|pubky", command: "contacts rename")
            let name = try CLICommand.positional(arguments, 1, "new-name", command: "contacts rename")
            try CLICommand.noExtraPositionals(arguments, 2, command: "contacts rename")
            return ControlMessage.Request(command: "contacts.rename", args: .object(["contact": .string(which), "name": .string(name)]))
        } render: { Render.contact($0["contact"], verb: "renamed \"\(Render.text($0["old_name"]))\" to") },
        remote(["contacts", "list"], "List the contacts.", "") { arguments in
            try CLICommand.noExtraPositionals(arguments, 0, command: "contacts list")
            return ControlMessage.Request(command: "contacts.list")
        } render: { Render.contacts($0) },
        remote(["contacts", "remove"], "Remove a contact by name or pubky.", "<name|pubky>") { arguments in
            let which = try CLICommand.positional(arguments, 0, "name|pubky", command: "contacts remove")
            try CLICommand.noExtraPositionals(arguments, 1, command: "contacts remove")
            return ControlMessage.Request(command: "contacts.remove", args: .object(["contact": .string(which)]))
        } render: { Render.contact($0["removed"], verb: "removed") },
        remote(["wallet", "balance"], "Show the on-chain wallet's balance (after syncing with the chain).", "") { arguments in
            try CLICommand.noExtraPositionals(arguments, 0, command: "wallet balance")
            return ControlMessage.Request(command: "wallet.balance")
        } render: { Render.balance($0) },
        remote(["wallet", "address"], "Print a fresh receive address of the on-chain wallet.", "") { arguments in
            try CLICommand.noExtraPositionals(arguments, 0, command: "wallet address")
            return ControlMessage.Request(command: "wallet.address")
        } render: { $0["address"]?.stringValue ?? Render.generic($0) },
        remote(["wallet", "send"], "Send on-chain from the wallet.", "<address> <sats> [--fee-rate <sat/vB>]") { arguments in
            let address = try CLICommand.positional(arguments, 0, "address", command: "wallet send")
            let amount = try CLICommand.satoshis(try CLICommand.positional(arguments, 1, "sats", command: "wallet send"), "sats",
                                                 command: "wallet send")
            try CLICommand.noExtraPositionals(arguments, 2, command: "wallet send")
            var args: [String: JSONValue] = ["address": .string(address), "amount_sat": .integer(amount)]
            if let rate = arguments.options["fee-rate"] {
                args["fee_rate_sat_vb"] = try CLICommand.feeRate(rate, command: "wallet send")
            }
            return ControlMessage.Request(command: "wallet.send", args: .object(args))
        } render: { Render.sent($0) },
        remote(["offers"], "Probe the contacts for swap offers; list them and why other contacts were skipped.",
               "[--refresh]") { arguments in
            try CLICommand.noExtraPositionals(arguments, 0, command: "offers")
            return ControlMessage.Request(command: "offers", args: .object(["refresh": .bool(arguments.flag("refresh"))]))
        } render: { Render.offers($0) },
        remote(["swaps"], "List swaps, newest first: kind, amount, contact or destination, state, fees, time.", "[--limit <n>]") { arguments in
            try CLICommand.noExtraPositionals(arguments, 0, command: "swaps")
            var args: [String: JSONValue] = [:]
            if let limit = arguments.options["limit"] { args["limit"] = .integer(try CLICommand.count(limit, "--limit", command: "swaps")) }
            return ControlMessage.Request(command: "swaps", args: .object(args))
        } render: { Render.swaps($0) },
        remote(["report"], "Account for every swap: amounts, fees earned and paid, net result; totals per day and role.",
               "[--since YYYY-MM-DD]",
               details: ["Counts swaps that ended (on or after the UTC day --since names); swaps in flight are listed",
                         "apart and never counted. Net is the change of the node's on-chain plus Lightning balance."]) { arguments in
            try CLICommand.noExtraPositionals(arguments, 0, command: "report")
            var args: [String: JSONValue] = [:]
            if let since = arguments.options["since"] {
                // Checked here too, so a bad date is a usage error before any daemon is asked.
                do { _ = try AccountingDay(parsing: since) } catch { throw UsageError("\(error)", command: "report") }
                args["since"] = .string(since)
            }
            return ControlMessage.Request(command: "report", args: .object(args))
        } render: { Render.report($0) },
        remote(["swap", "show"], "Show what happened to a swap: amount, route, fees and a timeline of its steps (raw under --json).",
               "<id>", details: ["<id> may be a unique prefix of the id (from `peernode swaps`)."]) { arguments in
            let id = try CLICommand.positional(arguments, 0, "id", command: "swap show")
            try CLICommand.noExtraPositionals(arguments, 1, command: "swap show")
            return ControlMessage.Request(command: "swap.show", args: .object(["id": .string(id)]))
        } render: { Render.swap($0) },
        remote(["swap", "watch"], "Follow a swap until it ends: each step as it happens, and where it waits.", "<id>",
               details: ["<id> may be a unique prefix of the id. Ctrl-C stops watching; the swap goes on (exit 5)."]) { arguments in
            let id = try CLICommand.positional(arguments, 0, "id", command: "swap watch")
            try CLICommand.noExtraPositionals(arguments, 1, command: "swap watch")
            return ControlMessage.Request(command: "swap.watch", args: .object(["id": .string(id)]))
        } render: { "swap \(Render.text($0["swap_id"])) ended: \(Render.text($0["state"]))" },
        remote(["swap", "claim"], "Claim a swap's lock by hand, whatever its cached status.", "<id>") { arguments in
            let id = try CLICommand.positional(arguments, 0, "id", command: "swap claim")
            try CLICommand.noExtraPositionals(arguments, 1, command: "swap claim")
            return ControlMessage.Request(command: "swap.claim", args: .object(["id": .string(id)]))
        } render: { Render.generic($0) },
        remote(["swap", "refund"], "Refund a swap's lock by hand once its timeout has passed.", "<id>") { arguments in
            let id = try CLICommand.positional(arguments, 0, "id", command: "swap refund")
            try CLICommand.noExtraPositionals(arguments, 1, command: "swap refund")
            return ControlMessage.Request(command: "swap.refund", args: .object(["id": .string(id)]))
        } render: { Render.generic($0) },
        remote(["recover"], "Find this seed's swaps on chain after losing the database; re-create one from its contract.",
               "[--from-height <n>] [--gap-limit <n>] [--contract <json>|@<file>] [--no-contacts]", details: recoverDetails) { arguments in
            try CLICommand.noExtraPositionals(arguments, 0, command: "recover")
            var args: [String: JSONValue] = [:]
            if arguments.flags.contains("no-contacts") { args["ask_contacts"] = .bool(false) }
            if let height = arguments.options["from-height"] {
                // Height 0 is a valid start, so this is not read as satoshis.
                guard let value = Int64(height), value >= 0 else {
                    throw UsageError("<n> must be a block height, got \"\(height)\"", command: "recover")
                }
                args["from_height"] = .integer(value)
            }
            if let gap = arguments.options["gap-limit"] {
                args["gap_limit"] = .integer(try CLICommand.count(gap, "--gap-limit", command: "recover"))
            }
            if let contract = arguments.options["contract"] {
                var text = contract
                if contract.hasPrefix("@") {
                    guard let file = Context.readSmallFile(String(contract.dropFirst())) else {
                        throw UsageError("cannot read \(contract.dropFirst())", command: "recover")
                    }
                    text = file
                }
                do {
                    args["contract"] = try JSONParser.parse(Array(text.utf8), limits: JSONParser.Limits(maxLength: 1 << 20))
                } catch {
                    throw UsageError("--contract is not JSON: \(error)", command: "recover")
                }
            }
            return ControlMessage.Request(command: "recover", args: .object(args))
        } render: { Render.generic($0) },
        remote(["pay"], "Pay a contact on whichever rail it takes, from whichever balance covers it (directly, else by a swap).",
               "<contact> <sats> [--yes] [--max-fee <sats>] [--from savings|spending] [--contract-type taproot_boltz|p2wsh_v2] [--quote <quote_id>]",
               details: payDetails + railDetails + quoteDetails) { arguments in
            let contact = try CLICommand.positional(arguments, 0, "contact", command: "pay")
            let amount = try CLICommand.satoshis(try CLICommand.positional(arguments, 1, "sats", command: "pay"), "sats", command: "pay")
            try CLICommand.noExtraPositionals(arguments, 2, command: "pay")
            var args: [String: JSONValue] = ["contact": .string(contact), "amount_sat": .integer(amount)]
            try CLICommand.swapOptions(arguments, into: &args, quote: true, command: "pay")
            try CLICommand.source(arguments, into: &args, command: "pay")
            return ControlMessage.Request(command: "pay", args: .object(args))
        } render: { Render.payment($0) },
        remote(["swap-out"], "Move Lightning funds to on-chain savings (the wallet, or --to an address).",
               "<sats> [--yes] [--max-fee <sats>] [--to <address>] [--contract-type taproot_boltz|p2wsh_v2]",
               details: payDetails) { arguments in
            let amount = try CLICommand.satoshis(try CLICommand.positional(arguments, 0, "sats", command: "swap-out"), "sats",
                                                 command: "swap-out")
            try CLICommand.noExtraPositionals(arguments, 1, command: "swap-out")
            var args: [String: JSONValue] = ["amount_sat": .integer(amount)]
            if let to = arguments.options["to"] { args["address"] = .string(to) }
            try CLICommand.swapOptions(arguments, into: &args, quote: false, command: "swap-out")
            return ControlMessage.Request(command: "swap-out", args: .object(args))
        } render: { Render.payment($0) },
        remote(["swap-in"], "Move on-chain savings to the Lightning balance (a submarine swap paying this node's own invoice).",
               "<sats> [--yes] [--contract-type taproot_boltz|p2wsh_v2]", details: swapInDetails) { arguments in
            let amount = try CLICommand.satoshis(try CLICommand.positional(arguments, 0, "sats", command: "swap-in"), "sats",
                                                 command: "swap-in")
            try CLICommand.noExtraPositionals(arguments, 1, command: "swap-in")
            var args: [String: JSONValue] = ["amount_sat": .integer(amount)]
            try CLICommand.swapOptions(arguments, into: &args, quote: false, command: "swap-in")
            return ControlMessage.Request(command: "swap-in", args: .object(args))
        } render: { Render.payment($0) },
        remote(["quote"], "Show the route and what paying <sats> would cost, with the provider's quote id for a swap, without paying.",
               "<sats> [--contact <name>] [--from savings|spending] [--contract-type taproot_boltz|p2wsh_v2]",
               details: railDetails + quoteDetails) { arguments in
            let amount = try CLICommand.satoshis(try CLICommand.positional(arguments, 0, "sats", command: "quote"), "sats",
                                                 command: "quote")
            try CLICommand.noExtraPositionals(arguments, 1, command: "quote")
            var args: [String: JSONValue] = ["amount_sat": .integer(amount)]
            if let contact = arguments.options["contact"] { args["contact"] = .string(contact) }
            try CLICommand.swapOptions(arguments, into: &args, quote: false, command: "quote")
            try CLICommand.source(arguments, into: &args, command: "quote")
            return ControlMessage.Request(command: "quote", args: .object(args))
        } render: { Render.quote($0) },
        remote(["max"], "Show the largest amount one balance can send: spending by default, --from savings for the on-chain wallet.",
               "[--contact <name>] [--from savings|spending]", details: maxDetails) { arguments in
            try CLICommand.noExtraPositionals(arguments, 0, command: "max")
            var args: [String: JSONValue] = [:]
            if let contact = arguments.options["contact"] { args["contact"] = .string(contact) }
            try CLICommand.source(arguments, into: &args, command: "max")
            return ControlMessage.Request(command: "max", args: .object(args))
        } render: { Render.maxSendable($0) },
        CLICommand(words: ["help"], abstract: "Show help for a command, or `help config` for every configuration key.",
                   usage: "[<command>|config]", details: [], action: .local(Local.help)),
    ] }

    static let recoverDetails = [
        "Scans blocks from --from-height (default 0 on regtest; required elsewhere) for spends of contracts made",
        "with this seed's swap keys and reports each with its swap index and role; a provider's held invoice is",
        "settled with a preimage a claim revealed. Then every saved contact is asked for the on-chain -> Lightning",
        "swaps it holds with this node (add your contacts again first; --no-contacts skips this): each one checked",
        "against this seed and the chain is re-created, and its engine refunds or claims it. Any other lock not yet",
        "spent needs --contract (the SwapAccept and terms the swap had). See docs/RECOVERY.md.",
    ]

    private static func remote(_ words: [String], _ abstract: String, _ usage: String, details: [String] = [],
                               request: @escaping (Arguments) throws -> ControlMessage.Request,
                               render: @escaping (JSONValue) -> String) -> CLICommand {
        CLICommand(words: words, abstract: abstract, usage: usage, details: details,
                   action: .remote(request: request, render: render))
    }

    /// What `pay` and `swap-out` print and when they return.
    static let payDetails = [
        "Progress lines go to stderr as the swap advances; the result (route, skipped contacts, fee breakdown) to stdout.",
        "It ends \"sent\" (exit 0) once the claim is broadcast: \"confirmed\" when it confirms within 30 s, else",
        "\"committed and settling on-chain\" (the swap finishes in the background). Any other end exits 1 with what",
        "happened to the funds: nothing paid, the payment returned, or held until the provider cancels the invoice.",
    ]

    /// What `swap-in` (and `pay` to a Lightning-only contact) prints and when it returns.
    static let swapInDetails = [
        "This node's Lightning node makes an invoice for <sats>; the cheapest contact that swaps on-chain to Lightning",
        "pays it once a lock funded from savings has the provider's confirmations (at least 1). It returns \"paid\" with",
        "the preimage (the proof of payment), the lock total and the lock's fee, so it waits for a block. If the",
        "provider never pays, the node refunds the lock itself from the timeout height (exit 1 says so).",
    ]

    /// How `pay` and `quote` choose the rail (docs/ROUTING.md).
    static let railDetails = [
        "The contact's endpoints (an on-chain address, Lightning) and the balances (savings: confirmed on-chain coins;",
        "spending: the Lightning balance) decide: a direct payment when a balance covers <sats> and its fee on a rail",
        "the contact takes (the cheaper if both do), else the cheapest swap among the contacts' providers: spending ->",
        "on-chain (reverse) or savings -> Lightning (submarine). --from savings|spending keeps one balance; the route",
        "line says which rail was taken and why.",
    ]

    /// What `max` reports, per balance.
    static let maxDetails = [
        "Spending (the default): to a contact that takes Lightning, the balance less the routing-fee reserve; otherwise",
        "the largest swap-out a provider's real quotes fit into that. --from savings: to a contact that takes on-chain,",
        "the savings less the fee of sending every coin; otherwise (or without --contact, for swap-in) the largest",
        "amount a submarine provider's real quotes fit into the savings with the lock's fee.",
    ]

    /// `--contract-type` and `--quote`, for `quote` and `pay`.
    static let quoteDetails = [
        "--contract-type uses only providers whose offer lists that contract (taproot_boltz or p2wsh_v2); `pay` then",
        "swaps even when savings would cover it. `quote --contact <name>` asks the chosen provider for a signed quote",
        "and prints its id and expiry; `pay <name> <sats> --quote <id>` commits exactly that quote (single use, valid",
        "for the provider's quote_lifetime_seconds, 300 s by default). The provider's clock decides: an expired quote",
        "fails with quote_expired and nothing is paid.",
    ]

    /// `host:port` or `[v6]:port`.
    static func hostPort(_ text: String, command: String) throws(UsageError) -> (String, Int) {
        var host = Substring(text)
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else {
            throw UsageError("<host:port> must end with a port from 1 to 65535, got \"\(text)\"", command: command)
        }
        host = text[..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty else { throw UsageError("<host:port> has no host", command: command) }
        return (String(host), port)
    }

    /// The longest run of words naming a command (`contacts add` over `contacts`).
    static func find(_ positionals: [String]) -> (CLICommand, Int)? {
        for length in stride(from: min(2, positionals.count), through: 1, by: -1) {
            let words = Array(positionals.prefix(length))
            if let command = all.first(where: { $0.words == words }) { return (command, length) }
        }
        return nil
    }

    /// The commands under a group word (`contacts` -> add, list, remove).
    static func group(_ word: String) -> [CLICommand] {
        all.filter { $0.words.count == 2 && $0.words[0] == word }
    }

    static var overview: String {
        let width = all.map(\.name.count).max() ?? 0
        var lines = ["usage: peernode <command> [options]", "",
                     "A Lightning-to-on-chain swap node: `run` starts the daemon; the other commands talk to it.", "",
                     "commands:"]
        for command in all {
            lines.append("  \(command.name)\(String(repeating: " ", count: width - command.name.count))  \(command.abstract)")
        }
        lines += ["", "`peernode <command> --help` shows a command's arguments; `peernode help config` every config key.",
                  "", CLICommand.exitCodes]
        return lines.joined(separator: "\n")
    }
}
