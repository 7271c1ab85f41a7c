/// The options each command takes, so every other one is refused by name (issue 14:
/// `pay carol 20000 --to <addr> --fee-rate 50` paid carol at the default fee, and
/// `status --network testnet` showed the regtest node). `--datadir`, `--socket`, `--json`
/// and `--help` go with every command.
enum CommandOptions {
    static let common: Set<String> = ["datadir", "socket", "json", "help"]

    static let byCommand: [String: Set<String>] = [
        "init": ["network", "pubky-recovery-file", "pkarr-relay"],
        // run also takes any config key as --<key>=<value> (Arguments.unknown).
        "run": ["network", "allow-unsafe"],
        // doctor checks what run would start with, overrides included.
        "doctor": ["network", "allow-unsafe"],
        "contacts add": ["replace"],
        "wallet send": ["fee-rate", "yes"],
        "offers": ["refresh"],
        "swaps": ["limit"],
        "report": ["since"],
        "recover": ["from-height", "gap-limit", "contract", "no-contacts"],
        "pay": ["contract-type", "quote", "yes", "max-fee", "from"],
        "swap-out": ["to", "contract-type", "yes", "max-fee"],
        "swap-in": ["contract-type", "yes"],
        "quote": ["contact", "contract-type", "from"],
        "max": ["contact", "from"],
    ]

    /// The first option given that `command` does not take, as typed (`--to`).
    static func firstRefused(_ arguments: Arguments, command: String) -> String? {
        let accepted = common.union(byCommand[command] ?? [])
        let given = arguments.options.keys.sorted() + arguments.flags.sorted()
        if let name = given.first(where: { !accepted.contains($0) }) { return "--" + name }
        if command != "run", command != "doctor", let unknown = arguments.unknown.first {
            return String(unknown.prefix { $0 != "=" })
        }
        return nil
    }
}
