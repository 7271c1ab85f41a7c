@testable import Bitcoin

/// Bitcoin Core's script-flag names as its JSON tests spell them (`mapFlagNames` in
/// src/test/transaction_tests.cpp), split into the consensus flags the kernel takes and the
/// policy flags it cannot: libbitcoinkernel only answers consensus questions.
enum CoreScriptFlags {
    static let consensus: [String: ScriptVerificationFlags] = [
        "P2SH": .p2sh, "DERSIG": .derSig, "NULLDUMMY": .nullDummy,
        "CHECKLOCKTIMEVERIFY": .checkLockTimeVerify, "CHECKSEQUENCEVERIFY": .checkSequenceVerify,
        "WITNESS": .witness, "TAPROOT": .taproot,
    ]

    static let policy: Set<String> = [
        "STRICTENC", "LOW_S", "SIGPUSHONLY", "MINIMALDATA", "DISCOURAGE_UPGRADABLE_NOPS", "CLEANSTACK",
        "MINIMALIF", "NULLFAIL", "DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM", "WITNESS_PUBKEYTYPE",
        "CONST_SCRIPTCODE", "DISCOURAGE_UPGRADABLE_PUBKEYTYPE", "DISCOURAGE_OP_SUCCESS",
        "DISCOURAGE_UPGRADABLE_TAPROOT_VERSION",
    ]

    /// A flags column: the consensus part for the kernel, and the policy names left over.
    struct Parsed: Equatable {
        var consensus: ScriptVerificationFlags = []
        var policy: Set<String> = []
    }

    struct UnknownFlag: Error, CustomStringConvertible {
        let name: String
        var description: String { "unknown verification flag '\(name)'" }
    }

    /// `ParseScriptFlags`: "" is no flags, otherwise comma-separated names; NONE adds nothing.
    /// An unknown name is an error, as in Core.
    static func parse(_ column: String) throws -> Parsed {
        var parsed = Parsed()
        guard !column.isEmpty else { return parsed }
        for name in column.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            if name == "NONE" { continue }
            if let flag = consensus[name] {
                parsed.consensus.insert(flag)
            } else if policy.contains(name) {
                parsed.policy.insert(name)
            } else {
                throw UnknownFlag(name: name)
            }
        }
        return parsed
    }

    /// Script errors that a policy flag can raise, by the flags that can raise them. Policy
    /// rules only add checks that fail with these errors; when a row's expected error is not
    /// raisable by any policy flag it carries, consensus evaluation stops at the same error.
    static let errorsRaisableByPolicy: [String: Set<String>] = [
        "MINIMALDATA": ["MINIMALDATA"],
        "SCRIPTNUM": ["MINIMALDATA"], // non-minimal numbers; overflow is consensus, indistinguishable here
        "MINIMALIF": ["MINIMALIF"],
        "CLEANSTACK": ["CLEANSTACK"],
        "WITNESS_PUBKEYTYPE": ["WITNESS_PUBKEYTYPE"],
        "DISCOURAGE_UPGRADABLE_NOPS": ["DISCOURAGE_UPGRADABLE_NOPS"],
        "DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM": ["DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM"],
        "DISCOURAGE_UPGRADABLE_PUBKEYTYPE": ["DISCOURAGE_UPGRADABLE_PUBKEYTYPE"],
        "DISCOURAGE_OP_SUCCESS": ["DISCOURAGE_OP_SUCCESS"],
        "DISCOURAGE_UPGRADABLE_TAPROOT_VERSION": ["DISCOURAGE_UPGRADABLE_TAPROOT_VERSION"],
        "PUBKEYTYPE": ["STRICTENC"],
        "SIG_HASHTYPE": ["STRICTENC"],
        "SIG_HIGH_S": ["LOW_S"],
        // The DER check runs under DERSIG, LOW_S or STRICTENC alike; see `canComeFromPolicy`.
        "SIG_DER": ["LOW_S", "STRICTENC"],
        // Also raised by consensus P2SH; policy SIGPUSHONLY raises it for every script.
        "SIG_PUSHONLY": ["SIGPUSHONLY"],
        "NULLFAIL": ["NULLFAIL"],
        "OP_CODESEPARATOR": ["CONST_SCRIPTCODE"],
        "SIG_FINDANDDELETE": ["CONST_SCRIPTCODE"],
    ]

    /// Whether `error` may have been raised by one of the row's policy flags, in which case a
    /// consensus-only verdict cannot confirm it.
    static func canComeFromPolicy(error: String, flags: Parsed) -> Bool {
        // With DERSIG set, the identical encoding check runs by consensus.
        if error == "SIG_DER", flags.consensus.contains(.derSig) { return false }
        return !(errorsRaisableByPolicy[error, default: []].isDisjoint(with: flags.policy))
    }
}
