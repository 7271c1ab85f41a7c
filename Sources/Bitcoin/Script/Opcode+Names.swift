// Opcode names as Bitcoin Core prints and parses them.

extension Opcode {
    /// Bitcoin Core's name for the opcode ("OP_CHECKSIG"); pushes are named by their opcode.
    public var name: String {
        switch self {
        case .zero: return "0"
        case .push(let data): return "OP_PUSHBYTES_\(data.count)"
        case .pushData1: return "OP_PUSHDATA1"
        case .pushData2: return "OP_PUSHDATA2"
        case .pushData4: return "OP_PUSHDATA4"
        case .number(let n): return "OP_\(n)"
        case .unknown: return "OP_UNKNOWN"
        case .oneNegate: return "OP_1NEGATE"
        case .reserved: return "OP_RESERVED"
        case .nop: return "OP_NOP"
        case .ver: return "OP_VER"
        case .`if`: return "OP_IF"
        case .notIf: return "OP_NOTIF"
        case .verIf: return "OP_VERIF"
        case .verNotIf: return "OP_VERNOTIF"
        case .`else`: return "OP_ELSE"
        case .endIf: return "OP_ENDIF"
        case .verify: return "OP_VERIFY"
        case .`return`: return "OP_RETURN"
        case .toAltStack: return "OP_TOALTSTACK"
        case .fromAltStack: return "OP_FROMALTSTACK"
        case .twoDrop: return "OP_2DROP"
        case .twoDup: return "OP_2DUP"
        case .threeDup: return "OP_3DUP"
        case .twoOver: return "OP_2OVER"
        case .twoRot: return "OP_2ROT"
        case .twoSwap: return "OP_2SWAP"
        case .ifDup: return "OP_IFDUP"
        case .depth: return "OP_DEPTH"
        case .drop: return "OP_DROP"
        case .dup: return "OP_DUP"
        case .nip: return "OP_NIP"
        case .over: return "OP_OVER"
        case .pick: return "OP_PICK"
        case .roll: return "OP_ROLL"
        case .rot: return "OP_ROT"
        case .swap: return "OP_SWAP"
        case .tuck: return "OP_TUCK"
        case .cat: return "OP_CAT"
        case .substr: return "OP_SUBSTR"
        case .left: return "OP_LEFT"
        case .right: return "OP_RIGHT"
        case .size: return "OP_SIZE"
        case .invert: return "OP_INVERT"
        case .and: return "OP_AND"
        case .or: return "OP_OR"
        case .xor: return "OP_XOR"
        case .equal: return "OP_EQUAL"
        case .equalVerify: return "OP_EQUALVERIFY"
        case .reserved1: return "OP_RESERVED1"
        case .reserved2: return "OP_RESERVED2"
        case .oneAdd: return "OP_1ADD"
        case .oneSub: return "OP_1SUB"
        case .twoMul: return "OP_2MUL"
        case .twoDiv: return "OP_2DIV"
        case .negate: return "OP_NEGATE"
        case .abs: return "OP_ABS"
        case .not: return "OP_NOT"
        case .zeroNotEqual: return "OP_0NOTEQUAL"
        case .add: return "OP_ADD"
        case .sub: return "OP_SUB"
        case .mul: return "OP_MUL"
        case .div: return "OP_DIV"
        case .mod: return "OP_MOD"
        case .lShift: return "OP_LSHIFT"
        case .rShift: return "OP_RSHIFT"
        case .boolAnd: return "OP_BOOLAND"
        case .boolOr: return "OP_BOOLOR"
        case .numEqual: return "OP_NUMEQUAL"
        case .numEqualVerify: return "OP_NUMEQUALVERIFY"
        case .numNotEqual: return "OP_NUMNOTEQUAL"
        case .lessThan: return "OP_LESSTHAN"
        case .greaterThan: return "OP_GREATERTHAN"
        case .lessThanOrEqual: return "OP_LESSTHANOREQUAL"
        case .greaterThanOrEqual: return "OP_GREATERTHANOREQUAL"
        case .min: return "OP_MIN"
        case .max: return "OP_MAX"
        case .within: return "OP_WITHIN"
        case .ripemd160: return "OP_RIPEMD160"
        case .sha1: return "OP_SHA1"
        case .sha256: return "OP_SHA256"
        case .hash160: return "OP_HASH160"
        case .hash256: return "OP_HASH256"
        case .codeSeparator: return "OP_CODESEPARATOR"
        case .checkSig: return "OP_CHECKSIG"
        case .checkSigVerify: return "OP_CHECKSIGVERIFY"
        case .checkMultiSig: return "OP_CHECKMULTISIG"
        case .checkMultiSigVerify: return "OP_CHECKMULTISIGVERIFY"
        case .nop1: return "OP_NOP1"
        case .checkLockTimeVerify: return "OP_CHECKLOCKTIMEVERIFY"
        case .checkSequenceVerify: return "OP_CHECKSEQUENCEVERIFY"
        case .nop4: return "OP_NOP4"
        case .nop5: return "OP_NOP5"
        case .nop6: return "OP_NOP6"
        case .nop7: return "OP_NOP7"
        case .nop8: return "OP_NOP8"
        case .nop9: return "OP_NOP9"
        case .nop10: return "OP_NOP10"
        case .checkSigAdd: return "OP_CHECKSIGADD"
        case .invalidOpcode: return "OP_INVALIDOPCODE"
        }
    }

    /// Operations by name, with and without the OP_ prefix, as Core's script parser accepts
    /// them (OP_NOP2/NOP3 are the old names of CHECKLOCKTIMEVERIFY/CHECKSEQUENCEVERIFY).
    public static let operationsByName: [String: Opcode] = {
        var table: [String: Opcode] = [:]
        let named: [(String, Opcode)] = [
            ("1NEGATE", .oneNegate),
            ("RESERVED", .reserved),
            ("NOP", .nop),
            ("VER", .ver),
            ("IF", .`if`),
            ("NOTIF", .notIf),
            ("VERIF", .verIf),
            ("VERNOTIF", .verNotIf),
            ("ELSE", .`else`),
            ("ENDIF", .endIf),
            ("VERIFY", .verify),
            ("RETURN", .`return`),
            ("TOALTSTACK", .toAltStack),
            ("FROMALTSTACK", .fromAltStack),
            ("2DROP", .twoDrop),
            ("2DUP", .twoDup),
            ("3DUP", .threeDup),
            ("2OVER", .twoOver),
            ("2ROT", .twoRot),
            ("2SWAP", .twoSwap),
            ("IFDUP", .ifDup),
            ("DEPTH", .depth),
            ("DROP", .drop),
            ("DUP", .dup),
            ("NIP", .nip),
            ("OVER", .over),
            ("PICK", .pick),
            ("ROLL", .roll),
            ("ROT", .rot),
            ("SWAP", .swap),
            ("TUCK", .tuck),
            ("CAT", .cat),
            ("SUBSTR", .substr),
            ("LEFT", .left),
            ("RIGHT", .right),
            ("SIZE", .size),
            ("INVERT", .invert),
            ("AND", .and),
            ("OR", .or),
            ("XOR", .xor),
            ("EQUAL", .equal),
            ("EQUALVERIFY", .equalVerify),
            ("RESERVED1", .reserved1),
            ("RESERVED2", .reserved2),
            ("1ADD", .oneAdd),
            ("1SUB", .oneSub),
            ("2MUL", .twoMul),
            ("2DIV", .twoDiv),
            ("NEGATE", .negate),
            ("ABS", .abs),
            ("NOT", .not),
            ("0NOTEQUAL", .zeroNotEqual),
            ("ADD", .add),
            ("SUB", .sub),
            ("MUL", .mul),
            ("DIV", .div),
            ("MOD", .mod),
            ("LSHIFT", .lShift),
            ("RSHIFT", .rShift),
            ("BOOLAND", .boolAnd),
            ("BOOLOR", .boolOr),
            ("NUMEQUAL", .numEqual),
            ("NUMEQUALVERIFY", .numEqualVerify),
            ("NUMNOTEQUAL", .numNotEqual),
            ("LESSTHAN", .lessThan),
            ("GREATERTHAN", .greaterThan),
            ("LESSTHANOREQUAL", .lessThanOrEqual),
            ("GREATERTHANOREQUAL", .greaterThanOrEqual),
            ("MIN", .min),
            ("MAX", .max),
            ("WITHIN", .within),
            ("RIPEMD160", .ripemd160),
            ("SHA1", .sha1),
            ("SHA256", .sha256),
            ("HASH160", .hash160),
            ("HASH256", .hash256),
            ("CODESEPARATOR", .codeSeparator),
            ("CHECKSIG", .checkSig),
            ("CHECKSIGVERIFY", .checkSigVerify),
            ("CHECKMULTISIG", .checkMultiSig),
            ("CHECKMULTISIGVERIFY", .checkMultiSigVerify),
            ("NOP1", .nop1),
            ("CHECKLOCKTIMEVERIFY", .checkLockTimeVerify),
            ("NOP2", .checkLockTimeVerify),
            ("CHECKSEQUENCEVERIFY", .checkSequenceVerify),
            ("NOP3", .checkSequenceVerify),
            ("NOP4", .nop4),
            ("NOP5", .nop5),
            ("NOP6", .nop6),
            ("NOP7", .nop7),
            ("NOP8", .nop8),
            ("NOP9", .nop9),
            ("NOP10", .nop10),
            ("CHECKSIGADD", .checkSigAdd),
            ("INVALIDOPCODE", .invalidOpcode),
        ]
        for (name, op) in named {
            table[name] = op
            table["OP_" + name] = op
        }
        for n in UInt8(1)...16 {
            table["\(n)"] = nil
            table["OP_\(n)"] = .number(n)
        }
        table["OP_0"] = .zero
        table["OP_FALSE"] = .zero
        table["OP_TRUE"] = .number(1)
        return table
    }()
}
