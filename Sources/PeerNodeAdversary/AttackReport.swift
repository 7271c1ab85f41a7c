import Transport

/// The one JSON line the kit prints: what it did and what the provider did back, in the
/// words a scenario checks (`refused`, `reason`, `lock_txid`, `claim_txid`, `payment`, ...).
/// Keys the attack never reached are absent rather than null.
struct AttackReport {
    private var fields: [String: JSONValue]

    init(attack: Attack) {
        fields = ["attack": .string(attack.rawValue)]
    }

    subscript(key: String) -> JSONValue? {
        get { fields[key] }
        set { fields[key] = newValue }
    }

    mutating func set(_ key: String, _ value: String) { fields[key] = .string(value) }
    mutating func set(_ key: String, _ value: Bool) { fields[key] = .bool(value) }
    mutating func set(_ key: String, _ value: some BinaryInteger) { fields[key] = .integer(value) }

    /// One line, keys sorted (the canonical form), so a reader needs no pretty-printer.
    var line: String { JSONValue.object(fields).canonicalString }
}
