/// The script verification flags libbitcoinkernel accepts (`btck_ScriptVerificationFlags`).
/// Only consensus rules are exposed: the kernel answers "is this spend valid by consensus",
/// never "is it standard". Bit values are Bitcoin Core's `SCRIPT_VERIFY_*` bits.
public struct ScriptVerificationFlags: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// BIP16 pay-to-script-hash.
    public static let p2sh = ScriptVerificationFlags(rawValue: 1 << 0)
    /// BIP66 strict DER signatures.
    public static let derSig = ScriptVerificationFlags(rawValue: 1 << 2)
    /// BIP147: the CHECKMULTISIG dummy element must be empty.
    public static let nullDummy = ScriptVerificationFlags(rawValue: 1 << 4)
    /// BIP65 OP_CHECKLOCKTIMEVERIFY.
    public static let checkLockTimeVerify = ScriptVerificationFlags(rawValue: 1 << 9)
    /// BIP112 OP_CHECKSEQUENCEVERIFY.
    public static let checkSequenceVerify = ScriptVerificationFlags(rawValue: 1 << 10)
    /// BIP141/143 segregated witness (the kernel requires `.p2sh` with it).
    public static let witness = ScriptVerificationFlags(rawValue: 1 << 11)
    /// BIP341/342 taproot and tapscript (the kernel requires every spent output with it).
    public static let taproot = ScriptVerificationFlags(rawValue: 1 << 17)

    /// Every consensus rule in force today, as a block validator applies them.
    public static let all: ScriptVerificationFlags = [
        .p2sh, .derSig, .nullDummy, .checkLockTimeVerify, .checkSequenceVerify, .witness, .taproot,
    ]

    public var description: String {
        let names: [(ScriptVerificationFlags, String)] = [
            (.p2sh, "P2SH"), (.derSig, "DERSIG"), (.nullDummy, "NULLDUMMY"),
            (.checkLockTimeVerify, "CHECKLOCKTIMEVERIFY"), (.checkSequenceVerify, "CHECKSEQUENCEVERIFY"),
            (.witness, "WITNESS"), (.taproot, "TAPROOT"),
        ]
        var parts = names.filter { contains($0.0) }.map(\.1)
        let unknown = rawValue & ~ScriptVerificationFlags.all.rawValue
        if unknown != 0 { parts.append("0x" + String(unknown, radix: 16)) }
        return parts.isEmpty ? "NONE" : parts.joined(separator: ",")
    }
}
